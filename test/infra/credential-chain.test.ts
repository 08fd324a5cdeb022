/**
 * The credential chain of the function bundles (`lib/runtime/lambda-credentials.ts`,
 * aliased in `infra/constructs/bundle-options.ts`): a bundle built with the
 * functions' options resolves a DynamoDB client's credentials in fresh Node
 * processes, from the environment as on Lambda, and from the SDK's whole
 * default chain (its own file beside the bundle) where the environment holds
 * none or names a profile.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUNDLE_ENTRY, BUNDLE_FILE, REPO_ROOT } from '../../infra/build/paths.js';
import {
  credentialChainBuildOptions,
  ESBUILD_OPTIONS,
} from '../../infra/constructs/bundle-options.js';

const run = promisify(execFile);

/** Prints the access key id a default-configured DynamoDB client resolves. */
const ENTRY = `import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
const client = new DynamoDBClient({ region: 'eu-west-1' });
const credentials = await client.config.credentials();
console.log(credentials.accessKeyId);`;

const CREDENTIALS_FILE = `[default]
aws_access_key_id = AKIDFROMDEFAULTPROFILE
aws_secret_access_key = default-secret

[other]
aws_access_key_id = AKIDFROMOTHERPROFILE
aws_secret_access_key = other-secret
`;

let dir: string;
let bundle: string;
let credentialsFile: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'shardwal-credentials-'));
  const outdir = join(dir, 'bundle');
  await build({
    ...ESBUILD_OPTIONS,
    absWorkingDir: REPO_ROOT,
    stdin: { contents: ENTRY, resolveDir: REPO_ROOT, sourcefile: 'entry.ts', loader: 'ts' },
    entryNames: BUNDLE_ENTRY,
    outdir,
    logLevel: 'warning',
  });
  await build(credentialChainBuildOptions(outdir));
  bundle = join(outdir, BUNDLE_FILE);
  credentialsFile = join(dir, 'credentials');
  writeFileSync(credentialsFile, CREDENTIALS_FILE);
}, 60_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The access key id the bundle resolves with `env` (and nothing else) in its environment. */
async function accessKeyIdWith(env: Record<string, string>): Promise<string> {
  const { stdout } = await run(process.execPath, [bundle], {
    cwd: dir,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: dir,
      AWS_CONFIG_FILE: join(dir, 'no-config'),
      AWS_SHARED_CREDENTIALS_FILE: credentialsFile,
      AWS_EC2_METADATA_DISABLED: 'true',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      ...env,
    },
    timeout: 20_000,
  });
  return stdout.trim().split('\n').pop() ?? '';
}

describe('function bundles', () => {
  describe('credential chain', () => {
    it('takes the credentials in the environment, as Lambda gives them', async () => {
      await expect(
        accessKeyIdWith({ AWS_ACCESS_KEY_ID: 'AKIDFROMENV', AWS_SECRET_ACCESS_KEY: 's' }),
      ).resolves.toBe('AKIDFROMENV');
    });

    it('loads the whole default chain when the environment holds no credentials', async () => {
      await expect(accessKeyIdWith({})).resolves.toBe('AKIDFROMDEFAULTPROFILE');
    });

    it('prefers a named profile to the environment, as the default chain does', async () => {
      await expect(
        accessKeyIdWith({
          AWS_PROFILE: 'other',
          AWS_ACCESS_KEY_ID: 'AKIDFROMENV',
          AWS_SECRET_ACCESS_KEY: 's',
        }),
      ).resolves.toBe('AKIDFROMOTHERPROFILE');
    });
  });
});
