/**
 * The construct as a platform team adopts it: the packed tarball installed in
 * a fresh project (no access to this repository's sources; `aws-cdk-lib`,
 * `constructs` and `cdk-nag`, its peers, linked from this repo's
 * node_modules as an app would have them), and docs/deploy.md's construct
 * example, extracted from the doc, type-checked against the shipped
 * declarations and run: a Stage with a concrete env, cdk-nag's packs on,
 * bring-your-own KMS key, alarm topic, bucket and table, a service with its
 * HTTP API, standard SQS queue and dashboard left out, and `grantProduce`
 * (narrowed to a shard prefix, and on the lean service). The synthesized
 * template is then read statement by statement. Then a second app from the
 * package alone holds the same two shapes of service in every env shape
 * (env-agnostic, account only, region only, both; in a Stage and not) and
 * reports cdk-nag's findings: none may be unacknowledged.
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

/**
 * A consumer app of the package alone: for every env shape, in a Stage and
 * not, a service with every part and a lean one on the app's key, bucket and
 * table with parts left out, each granted to a producer and a reader;
 * prints each shape's unacknowledged cdk-nag findings (AwsSolutions and
 * Serverless) as JSON.
 */
const ENV_MATRIX = `
import { App, Stack, Stage } from 'aws-cdk-lib';
import { Table } from 'aws-cdk-lib/aws-dynamodb';
import { AccountRootPrincipal, Role } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Bucket } from 'aws-cdk-lib/aws-s3';
import { ShardwalService, shardwalNagPacks } from 'shardwal/cdk';

const envs = {
  'env-agnostic': undefined,
  'account only': { account: '123456789012' },
  'region only': { region: 'eu-west-1' },
  'account and region': { account: '123456789012', region: 'eu-west-1' },
};
const report = {};
for (const [name, env] of Object.entries(envs)) {
  for (const inStage of [false, true]) {
    const app = new App();
    const scope = inStage ? new Stage(app, 'Prod') : app;
    const stack = new Stack(scope, 'Ingest', env ? { env } : {});
    const full = new ShardwalService(stack, 'Full', { stage: 'full', producerAccounts: ['111122223333'] });
    const lean = new ShardwalService(stack, 'Lean', {
      stage: 'lean',
      alarmEmail: 'oncall@example.com',
      key: new Key(stack, 'DataKey', { enableKeyRotation: true }),
      bucket: Bucket.fromBucketName(stack, 'Rows', 'acme-rows'),
      table: Table.fromTableName(stack, 'Batches', 'acme-batches'),
      httpApi: false,
      sqsIngest: false,
      dashboard: false,
    });
    for (const service of [full, lean]) {
      service.grantProduce(new Role(service, 'Producer', { assumedBy: new AccountRootPrincipal() }), { shards: ['orders-*'] });
      service.grantRead(new Role(service, 'Reader', { assumedBy: new AccountRootPrincipal() }));
    }
    report[name + (inStage ? ' in a Stage' : '')] = shardwalNagPacks(scope).flatMap((pack) =>
      pack.validateScope(scope).violations.map((v) => v.severity + ' ' + v.ruleName),
    );
  }
}
console.log(JSON.stringify(report));
`;

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
let matrix: Record<string, string[]> | undefined;
let matrixFailure: Error | undefined;

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
  await writeFile(path.join(consumer, 'matrix.mjs'), ENV_MATRIX);
  try {
    const { stdout } = await run(process.execPath, ['matrix.mjs'], {
      cwd: consumer,
      env: { ...process.env, CDK_OUTDIR: path.join(consumer, 'matrix.out') },
      timeout: 300_000,
      maxBuffer: 16 * 1024 * 1024,
    });
    matrix = JSON.parse(stdout.trim().split('\n').pop()!);
  } catch (error) {
    matrixFailure = error as Error;
  }
}, 900_000);

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
    expect(ofType('AWS::Lambda::Function')).toHaveLength(12);
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
    expect(roles).toHaveLength(12);
    for (const [, role] of roles) expect(role.Properties.ManagedPolicyArns).toBeUndefined();
  });

  it('leaves out what the lean service does not use: its API, HTTP handlers, standard queue, dashboard', () => {
    const audit = (type: string) => ofType(type).filter(([id]) => id.startsWith('Audit'));
    const handlers = audit('AWS::Lambda::Function').map(([, f]) => f.Properties.Description);
    expect(handlers.sort()).toEqual(
      ['export', 'flush-tick', 'flush-worker', 'put-sqs', 'recover'].map((h) => `shardwal ${h}`),
    );
    expect(audit('AWS::ApiGatewayV2::Api')).toEqual([]);
    const queues = audit('AWS::SQS::Queue').map(([id]) => id);
    expect(queues.filter((id) => /^AuditQueuesIngest(?!Fifo)/.test(id))).toEqual([]);
    expect(queues.filter((id) => id.startsWith('AuditQueuesIngestFifo'))).toHaveLength(2);
    expect(ofType('AWS::CloudWatch::Dashboard')).toHaveLength(1);
    expect(ofType('AWS::ApiGatewayV2::Api')).toHaveLength(1);
  });

  it('sends the full service alarms to the brought pager, the lean one to its own topic on the key', () => {
    const alarms = ofType('AWS::CloudWatch::Alarm');
    const toPager = alarms.filter(([id]) => id.startsWith('Orders'));
    expect(toPager.length).toBeGreaterThan(20);
    for (const [, alarm] of toPager) {
      expect(alarm.Properties.AlarmActions).toEqual(['arn:aws:sns:eu-west-1:123456789012:pager']);
    }
    const topics = ofType('AWS::SNS::Topic');
    expect(topics).toHaveLength(1);
    const [topicId, topic] = topics[0]!;
    expect(topicId).toMatch(/^Audit/);
    const keyId = ofType('AWS::KMS::Key')[0]![0];
    expect(topic.Properties.KmsMasterKeyId).toEqual({ 'Fn::GetAtt': [keyId, 'Arn'] });
    for (const [id, alarm] of alarms.filter(([id]) => id.startsWith('Audit'))) {
      expect(alarm.Properties.AlarmActions, id).toEqual([{ Ref: topicId }]);
    }
  });

  it('lets CloudWatch publish to the encrypted topic: the topic policy and the key policy', () => {
    const [, topicPolicy] = ofType('AWS::SNS::TopicPolicy')[0]!;
    const publish = (
      topicPolicy.Properties.PolicyDocument as {
        Statement: { Effect: string; Action: unknown; Principal?: unknown }[];
      }
    ).Statement.find((st) => st.Effect === 'Allow');
    expect(publish).toMatchObject({
      Action: 'sns:Publish',
      Principal: { Service: 'cloudwatch.amazonaws.com' },
    });
    const [, key] = ofType('AWS::KMS::Key')[0]!;
    const statements = (key.Properties.KeyPolicy as { Statement: Record<string, unknown>[] })
      .Statement;
    expect(statements).toContainEqual(
      expect.objectContaining({
        Principal: { Service: 'cloudwatch.amazonaws.com' },
        Action: ['kms:Decrypt', 'kms:GenerateDataKey*'],
      }),
    );
  });

  it('encrypts the created table, data bucket and every queue with the brought key', () => {
    const keyRef = { 'Fn::GetAtt': [ofType('AWS::KMS::Key')[0]![0], 'Arn'] };
    const [[, table]] = ofType('AWS::DynamoDB::Table') as [[string, CfnResource]];
    expect(JSON.stringify(table.Properties.SSESpecification)).toContain(JSON.stringify(keyRef));
    const data = ofType('AWS::S3::Bucket').filter(([, b]) => b.Properties.VersioningConfiguration);
    expect(JSON.stringify(data[0]![1].Properties.BucketEncryption)).toContain('aws:kms');
    for (const [, queue] of ofType('AWS::SQS::Queue')) {
      expect(queue.Properties.KmsMasterKeyId).toEqual(keyRef);
    }
  });

  it('narrows grantProduce to the shard prefix over HTTP and grants the ingest queues whole', () => {
    const policies = ofType('AWS::IAM::Policy').filter(([id]) => id.startsWith('Checkout'));
    expect(policies).toHaveLength(1);
    const text = JSON.stringify(policies[0]![1].Properties.PolicyDocument);
    expect(text).toContain('/$default/POST/v1/shards/checkout-*/rows');
    expect(text).toContain('/$default/GET/v1/shards/checkout-*/seqs/*');
    expect(text).not.toContain('/v1/shards/*/rows');
    expect(text).toContain('sqs:GetQueueAttributes');
    expect(text).toContain('kms:GenerateDataKey');
  });

  it('grants the lean service producer its FIFO queue and the key only: no route, no absent queue', () => {
    const policies = ofType('AWS::IAM::Policy').filter(([id]) => id.startsWith('Ledger'));
    expect(policies).toHaveLength(1);
    const { Statement } = policies[0]![1].Properties.PolicyDocument!;
    const text = JSON.stringify(Statement);
    expect(text).not.toContain('execute-api');
    const sqs = Statement.filter((st) => JSON.stringify(st.Action).includes('sqs:SendMessage'));
    expect(sqs).toHaveLength(1);
    expect(JSON.stringify(sqs[0]!.Resource)).toMatch(/"AuditQueuesIngestFifo[0-9A-F]{8}"/);
    expect(text).toContain('kms:GenerateDataKey');
  });

  it('creates one data bucket (with its log bucket) and one table, and leaves the brought ones alone', () => {
    expect(ofType('AWS::S3::Bucket')).toHaveLength(2);
    expect(ofType('AWS::DynamoDB::Table')).toHaveLength(1);
    const readers = ofType('AWS::IAM::ManagedPolicy').map(([, p]) => JSON.stringify(p.Properties));
    expect(readers.some((p) => p.includes(':s3:::acme-audit-rows/shards/*/wal/*'))).toBe(true);
  });

  it('deletes the lean service queues built with removalPolicy DESTROY, and keeps the other ingest queues', () => {
    const policies = (prefix: string) =>
      ofType('AWS::SQS::Queue')
        .filter(([id]) => id.startsWith(prefix))
        .map(([, q]) => q.DeletionPolicy);
    expect(policies('AuditQueuesIngestFifo')).toEqual(['Delete', 'Delete']);
    expect(policies('OrdersQueuesIngest')).toEqual(['Retain', 'Retain', 'Retain', 'Retain']);
  });

  it('leaves no unacknowledged cdk-nag finding in any env shape, in a Stage or not', () => {
    if (matrixFailure) {
      const stderr = (matrixFailure as Error & { stderr?: string }).stderr ?? '';
      throw new Error(`the env matrix failed:\n${stderr.split('\n').slice(-30).join('\n')}`);
    }
    expect(Object.keys(matrix!)).toHaveLength(8);
    for (const [shape, findings] of Object.entries(matrix!)) expect(findings, shape).toEqual([]);
  });
});
