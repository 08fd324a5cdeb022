/**
 * docs/deploy.md's shell snippets, run or checked without an AWS account:
 *
 * - the outputs block runs in bash over an outputs file shaped as `cdk
 *   deploy --outputs-file` writes it, from the synthesized stack's outputs,
 *   for the default stage and another one: every variable it exports is set;
 * - every `$VARIABLE` a snippet reads is set by a snippet (or by the AWS
 *   CLI's `export-credentials`), so the page can be followed from zero;
 * - every `npx cdk` command's subcommand and flags are the CDK CLI's, every
 *   `-c key=value` names a context key the app knows, and every
 *   `npx shardwal` command and flag is the CLI's.
 *
 * `npm run synth` itself runs in cdk-synth.test.ts, the construct example in
 * package-cdk.test.ts.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../infra/constructs/functions.js';
import { validateDeploySettings } from '../../infra/settings.js';
import { stackIdFor } from '../../infra/shardwal-app.js';
import { COMMANDS } from '../../lib/cli/commands.js';
import { synth } from './support.js';

const run = promisify(execFile);

let doc: string;
let blocks: string[];
beforeAll(async () => {
  doc = await readFile(path.join(PROJECT_ROOT, 'docs', 'deploy.md'), 'utf8');
  blocks = [...doc.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
});

/** Commands of the snippets, continuation lines joined, comments dropped. */
function commands(): string[] {
  return blocks
    .flatMap((b) => b.replace(/\\\n\s*/g, ' ').split('\n'))
    .map((line) => line.replace(/\s#.*$/, '').trim())
    .filter((line) => line.length > 0 && !line.startsWith('#'));
}

/** Variables the AWS CLI sets (`aws configure export-credentials --format env`) or the shell has. */
const FROM_ENVIRONMENT = new Set([
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_SESSION_TOKEN',
]);

describe('docs/deploy.md', () => {
  describe('the outputs snippet', () => {
    for (const stage of ['default', 'staging']) {
      it(`exports every variable from the outputs file of the ${stage} stage`, async () => {
        const s = synth(stage === 'default' ? {} : { stage });
        const outputs = Object.fromEntries(
          Object.keys(s.template.toJSON().Outputs).map((name) => [name, `value-of-${name}`]),
        );
        const block = blocks.find((b) => b.includes('out() {'));
        expect(block, 'the block that reads outputs.json').toBeDefined();
        const dir = await mkdtemp(path.join(os.tmpdir(), 'shardwal-deploy-doc-'));
        try {
          await writeFile(
            path.join(dir, 'outputs.json'),
            JSON.stringify({ [stackIdFor(stage)]: outputs }),
          );
          const exported = [...block!.matchAll(/^export (\w+)=/gm)].map((m) => m[1]!);
          const script = `set -euo pipefail\n${block}\n${exported.map((v) => `echo "${v}=$${v}"`).join('\n')}\n`;
          const { stdout } = await run('bash', ['-c', script], { cwd: dir });
          const values = Object.fromEntries(
            stdout
              .trim()
              .split('\n')
              .filter((line) => /^\w+=/.test(line))
              .map((line) => line.split('=') as [string, string]),
          );
          for (const variable of exported) expect(values[variable], variable).toMatch(/^value-of-/);
          expect(values.TABLE).toBe('value-of-TableName');
          expect(values.INGEST_FIFO_DLQ_URL).toBe('value-of-IngestFifoDlqUrl');
        } finally {
          await rm(dir, { recursive: true, force: true });
        }
      });
    }
  });

  it('sets every variable a snippet reads', () => {
    const all = blocks.join('\n');
    const set = new Set([
      ...FROM_ENVIRONMENT,
      ...[...all.matchAll(/(?:^|[\s;(])(?:export )?(\w+)=/gm)].map((m) => m[1]!),
      ...[...all.matchAll(/\bfor (\w+) in\b/g)].map((m) => m[1]!),
      ...[...all.matchAll(/^(\w+)\(\) \{/gm)].map((m) => m[1]!),
    ]);
    const read = [...all.matchAll(/\$\{?([A-Za-z_]\w*)/g)].map((m) => m[1]!);
    expect([...new Set(read.filter((v) => !set.has(v)))]).toEqual([]);
  });

  it('uses only subcommands and flags the CDK CLI has', async () => {
    const cdk = commands().filter((c) => c.startsWith('npx cdk '));
    expect(cdk.length).toBeGreaterThan(3);
    const help = new Map<string, string>();
    for (const command of cdk) {
      const [, , sub, ...rest] = command.split(/\s+/);
      if (!help.has(sub!)) {
        const { stdout } = await run(
          path.join(PROJECT_ROOT, 'node_modules', '.bin', 'cdk'),
          [sub!, '--help'],
          {
            env: { ...process.env, CDK_DISABLE_VERSION_CHECK: '1' },
          },
        );
        help.set(sub!, stdout);
      }
      for (const flag of rest.filter((a) => /^--[a-z]/.test(a))) {
        expect(help.get(sub!), `${command}: ${flag}`).toContain(flag.split('=')[0]);
      }
    }
  }, 60_000);

  it('passes only context keys the app knows to -c', () => {
    const pairs = commands().flatMap((c) => [...c.matchAll(/-c (\w+)=(\S+)/g)]);
    expect(pairs.length).toBeGreaterThan(0);
    for (const [, key, value] of pairs) {
      const settings = key === 'jwtIssuer' ? {} : { [key!]: value!.replace(/…$/, '') };
      expect(() => validateDeploySettings(settings), `${key}=${value}`).not.toThrow(
        /not a shardwal context key/,
      );
    }
  });

  it('uses only shardwal commands and flags the CLI has', () => {
    const cli = [...doc.matchAll(/npx shardwal (\w+)([^`\n]*)/g)];
    expect(cli.length).toBeGreaterThan(0);
    for (const [text, name, rest] of cli) {
      const command = COMMANDS.find((c) => c.name === name);
      expect(command, text).toBeDefined();
      for (const [, flag] of rest!.matchAll(/--([a-z][\w-]*)/g)) {
        expect(Object.keys(command!.options), `${text}: --${flag}`).toContain(flag);
      }
    }
  });
});
