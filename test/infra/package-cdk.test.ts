/**
 * The construct as a platform team adopts it: the packed tarball installed in
 * a fresh project (no access to this repository's sources; `aws-cdk-lib`,
 * `constructs` and `cdk-nag`, its peers, linked from this repo's
 * node_modules as an app would have them), and docs/deploy.md's construct
 * example, extracted from the doc, type-checked against the shipped
 * declarations and run: a Stage with a concrete env, cdk-nag's packs on,
 * bring-your-own alarm topic and bucket, a service without its dashboard,
 * and `grantProduce` narrowed to a shard prefix. The synthesized template is
 * then read statement by statement.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { transform } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installConsumer, linkFromRepo, packedPackage, ROOT } from '../support/packed-package.js';

const run = promisify(execFile);

/** The fenced block after this marker in docs/deploy.md is the example. */
const MARKER = '<!-- tested by test/infra/package-cdk.test.ts -->';

/** The TypeScript example of docs/deploy.md, as written there. */
async function deployDocExample(): Promise<string> {
  const doc = await readFile(path.join(ROOT, 'docs', 'deploy.md'), 'utf8');
  const at = doc.indexOf(MARKER);
  if (at < 0) throw new Error(`docs/deploy.md has no ${MARKER}`);
  const block = /```ts\n([\s\S]*?)```/.exec(doc.slice(at));
  if (!block) throw new Error('no ```ts block after the marker in docs/deploy.md');
  return block[1]!;
}

interface CfnResource {
  Type: string;
  DeletionPolicy?: string;
  Properties: Record<string, unknown> & {
    PolicyDocument?: { Statement: { Effect: string; Action: unknown; Resource: unknown }[] };
  };
}

let work: string;
let consumer: string;
let resources: Record<string, CfnResource>;
let synthFailure: Error | undefined;

beforeAll(async () => {
  work = await mkdtemp(path.join(os.tmpdir(), 'shardwal-pack-cdk-'));
  consumer = path.join(work, 'consumer');
  await mkdir(consumer);
  await installConsumer(consumer, await packedPackage());
  await linkFromRepo(consumer, ['aws-cdk-lib', 'constructs', 'cdk-nag']);
  const source = await deployDocExample();
  await writeFile(path.join(consumer, 'app.ts'), source);
  const { code } = await transform(source, { loader: 'ts', format: 'esm' });
  await writeFile(path.join(consumer, 'app.mjs'), code);
  const outdir = path.join(consumer, 'cdk.out');
  try {
    await run(process.execPath, ['app.mjs'], {
      cwd: consumer,
      env: { ...process.env, CDK_OUTDIR: outdir },
      timeout: 240_000,
      maxBuffer: 16 * 1024 * 1024,
    });
    const assembly = path.join(outdir, 'assembly-Prod');
    const template = (await readdir(assembly)).find((f) => f.endsWith('.template.json'))!;
    resources = JSON.parse(await readFile(path.join(assembly, template), 'utf8')).Resources;
  } catch (error) {
    synthFailure = error as Error;
  }
}, 600_000);

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

const ofType = (type: string) =>
  Object.entries(resources).filter(([, r]) => r.Type === type) as [string, CfnResource][];

describe('shardwal/cdk, installed from the packed tarball', () => {
  it("synthesizes docs/deploy.md's example in a Stage with an env, cdk-nag on, no unacknowledged finding", () => {
    if (synthFailure) {
      const stderr = (synthFailure as Error & { stderr?: string }).stderr ?? '';
      throw new Error(`the example failed:\n${stderr.split('\n').slice(-30).join('\n')}`);
    }
    expect(ofType('AWS::Lambda::Function')).toHaveLength(14);
  });

  it('type-checks the example against the shipped declarations', async () => {
    // The declarations name Node's types (streams, buffers), as an app's would.
    await linkFromRepo(consumer, ['@types/node']);
    const tsc = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    const args = ['--noEmit', '--strict', '--skipLibCheck', '--module', 'nodenext'];
    await expect(
      run(process.execPath, [tsc, ...args, '--moduleResolution', 'nodenext', 'app.ts'], {
        cwd: consumer,
      }),
    ).resolves.toBeDefined();
  }, 120_000);

  it('deploys the prebuilt bundles from the package, not the sources', () => {
    for (const [, fn] of ofType('AWS::Lambda::Function')) {
      expect(fn.Properties).toMatchObject({ Handler: 'index.handler', Runtime: 'nodejs24.x' });
      expect(JSON.stringify(fn.Properties.Environment)).not.toContain('enable-source-maps');
    }
  });

  it('gives every function its own role, with no managed policy', () => {
    const roles = ofType('AWS::IAM::Role').filter(([, r]) =>
      JSON.stringify(r.Properties.AssumeRolePolicyDocument).includes('lambda.amazonaws.com'),
    );
    expect(roles).toHaveLength(14);
    for (const [, role] of roles) expect(role.Properties.ManagedPolicyArns).toBeUndefined();
  });

  it('sends every alarm to the brought pager topic, and creates no topic', () => {
    const alarms = ofType('AWS::CloudWatch::Alarm');
    expect(alarms.length).toBeGreaterThan(40);
    for (const [, alarm] of alarms) {
      expect(alarm.Properties.AlarmActions).toEqual(['arn:aws:sns:eu-west-1:123456789012:pager']);
    }
    expect(ofType('AWS::SNS::Topic')).toEqual([]);
  });

  it('narrows grantProduce to the shard prefix over HTTP and grants the ingest queues whole', () => {
    const policies = ofType('AWS::IAM::Policy').filter(([id]) => id.startsWith('Checkout'));
    expect(policies).toHaveLength(1);
    const text = JSON.stringify(policies[0]![1].Properties.PolicyDocument);
    expect(text).toContain('/$default/POST/v1/shards/checkout-*/rows');
    expect(text).toContain('/$default/GET/v1/shards/checkout-*/seqs/*');
    expect(text).not.toContain('/v1/shards/*/rows');
    expect(text).toContain('sqs:GetQueueAttributes');
  });

  it('creates one data bucket (with its log bucket) and leaves the brought one alone', () => {
    expect(ofType('AWS::S3::Bucket')).toHaveLength(2);
    const readers = ofType('AWS::IAM::ManagedPolicy').map(([, p]) => JSON.stringify(p.Properties));
    expect(readers.some((p) => p.includes(':s3:::acme-audit-rows/shards/*/wal/*'))).toBe(true);
  });

  it('leaves out the dashboard where asked', () => {
    expect(ofType('AWS::CloudWatch::Dashboard')).toHaveLength(1);
  });

  it('deletes the service built with removalPolicy DESTROY, and keeps the other', () => {
    const tables = ofType('AWS::DynamoDB::Table')
      .map(([, t]) => t.DeletionPolicy)
      .sort();
    expect(tables).toEqual(['Delete', 'Retain']);
  });
});
