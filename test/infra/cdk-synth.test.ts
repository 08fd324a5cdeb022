/**
 * `cdk synth` as a user runs it: the CLI, cdk.json's `app` (tsx), real
 * NodejsFunction bundling with the local esbuild, cdk-nag and the CDK's
 * CloudFormation schema validation as synthesis plugins (an unacknowledged
 * error fails the synth). Proves the synth needs no Docker and no AWS lookups
 * (a lookup would leave "missing" context in the manifest).
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ESM_REQUIRE_BANNER } from '../../infra/constructs/bundling.js';
import { PROJECT_ROOT } from '../../infra/constructs/functions.js';
import { STACK_ID } from '../../infra/shardwal-app.js';
import { DEFAULT_HANDLERS } from './support.js';

const run = promisify(execFile);

let outdir: string;
let failure: Error | undefined;

beforeAll(async () => {
  outdir = mkdtempSync(join(tmpdir(), 'shardwal-cdk-out-'));
  try {
    await run(
      join(PROJECT_ROOT, 'node_modules', '.bin', 'cdk'),
      ['synth', '--quiet', '--output', outdir, '-c', 'flushIntervalMs=10000'],
      {
        cwd: PROJECT_ROOT,
        env: { ...process.env, CDK_DISABLE_VERSION_CHECK: '1', CDK_DISABLE_CLI_TELEMETRY: 'true' },
        // ~35 s of CPU (seven esbuild bundles, CloudFormation validation); generous for a busy machine.
        timeout: 240_000,
      },
    );
  } catch (error) {
    failure = error as Error;
  }
}, 250_000);

afterAll(() => {
  rmSync(outdir, { recursive: true, force: true });
});

describe('cdk synth', () => {
  it('succeeds from cdk.json with no Docker and no context lookups', () => {
    if (failure) {
      const stderr = (failure as Error & { stderr?: string }).stderr ?? '';
      const tail = stderr
        .split('\n')
        .filter((line) => !/^\s+at /.test(line))
        .slice(-15)
        .join('\n');
      throw new Error(`cdk synth failed:\n${tail || failure.message}`);
    }
    const manifest = JSON.parse(readFileSync(join(outdir, 'manifest.json'), 'utf8'));
    expect(manifest.missing).toBeUndefined();
    expect(existsSync(join(outdir, `${STACK_ID}.template.json`))).toBe(true);
  });

  it('bundles every handler into an ESM asset of its own with the createRequire banner and linked source maps', () => {
    if (failure) throw new Error('cdk synth failed (see above)');
    const template = JSON.parse(readFileSync(join(outdir, `${STACK_ID}.template.json`), 'utf8'));
    const fns = Object.values(
      template.Resources as Record<string, { Type: string; Metadata?: Record<string, string> }>,
    ).filter((r) => r.Type === 'AWS::Lambda::Function');
    expect(fns).toHaveLength(DEFAULT_HANDLERS.length);
    const assets = fns.map((fn) => fn.Metadata?.['aws:asset:path'] ?? 'missing');
    expect(new Set(assets).size).toBe(fns.length);
    for (const asset of assets) {
      const assetDir = join(outdir, asset);
      // The entry and the chunks split from it: each defines `require`, each links its map
      // (read only with NODE_OPTIONS=--enable-source-maps, which no function sets).
      const files = readdirSync(assetDir).filter((file) => file.endsWith('.mjs'));
      expect(files).toContain('index.mjs');
      for (const file of files) {
        const code = readFileSync(join(assetDir, file), 'utf8');
        expect(code.startsWith(ESM_REQUIRE_BANNER)).toBe(true);
        expect(existsSync(join(assetDir, `${file}.map`))).toBe(true);
        expect(code.trimEnd().endsWith(`//# sourceMappingURL=${file}.map`)).toBe(true);
      }
    }
  });
});
