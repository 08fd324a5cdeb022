import { beforeAll, describe, expect, it } from 'vitest';
import { DENY_OVERWRITE_SID } from '../../infra/constructs/bucket-policy.js';
import type { HandlerName } from '../../infra/constructs/functions.js';
import { logicalIdOf } from '../../infra/constructs/nag.js';
import { ContextError, PropError } from '../../infra/settings.js';
import { MemoryObjectStore } from '../../lib/store/memory-store.js';
import { appendTable } from '../../lib/table/append.js';
import { compactTable } from '../../lib/table/compact.js';
import { expireSnapshots } from '../../lib/table/expire.js';
import { versionHintKey } from '../../lib/table/paths.js';
import { testDeps, WalWriter } from '../table/helpers.js';
import {
  actionsOf,
  functionId,
  nagReport,
  type Statement,
  type Synthesized,
  statementsOf,
  synth,
  tablesPropsError,
} from './support.js';

let on: Synthesized;
let off: Synthesized;
beforeAll(() => {
  on = synth({
    tables: 'clicks-*=clicks,*',
    tableSchemas: { clicks: { partition: 'hour', columns: { user: 'string' } } },
    tableCommitMs: 90_000,
  });
  off = synth();
});

const resources = (x: Synthesized) => x.template.toJSON().Resources;

/** An S3 grant as `<action> <key pattern or "bucket"> [<condition>]`, sorted. */
function s3Grants(x: Synthesized, name: HandlerName): string[] {
  const bucket = JSON.stringify({ 'Fn::GetAtt': [logicalIdOf(x.service.storage.bucket), 'Arn'] });
  const render = (resource: unknown): string => {
    if (JSON.stringify(resource) === bucket) return 'bucket';
    const [head, tail] = (resource as { 'Fn::Join': [string, unknown[]] })['Fn::Join'][1];
    expect(JSON.stringify(head)).toBe(bucket);
    return (tail as string).slice(1);
  };
  return statementsOf(x, name)
    .flatMap((st: Statement) =>
      actionsOf([st])
        .filter((a) => a.startsWith('s3:'))
        .flatMap((a) =>
          (Array.isArray(st.Resource) ? st.Resource : [st.Resource]).map((r) =>
            [a, render(r), ...(st.Condition ? [JSON.stringify(st.Condition)] : [])].join(' '),
          ),
        ),
    )
    .sort();
}

const IF_NONE_MATCH = JSON.stringify({ Null: { 's3:if-none-match': 'false' } });

/** Whether an IAM ARN pattern's key part (`*` any run, `?` one character) matches `key`. */
const matches = (pattern: string, key: string) =>
  new RegExp(
    `^${pattern
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')
      .replace(/\?/g, '.')}$`,
  ).test(key);

/** The key patterns of the bucket's overwrite deny. */
function denyPatterns(x: Synthesized): string[] {
  const policy = Object.values(x.template.findResources('AWS::S3::BucketPolicy')).find(
    (p) => p.Properties.Bucket.Ref === logicalIdOf(x.service.storage.bucket),
  )!;
  const deny = (
    policy.Properties.PolicyDocument.Statement as {
      Sid?: string;
      Resource: { 'Fn::Join': [string, [unknown, string]] }[];
    }[]
  ).find((st) => st.Sid === DENY_OVERWRITE_SID)!;
  return deny.Resource.map((r) => r['Fn::Join'][1][1].slice(1));
}

describe('ShardwalService', () => {
  describe('with tables', () => {
    it('deploys the committer with the table settings in its environment, 2,048 MB for 15 minutes', () => {
      const p = resources(on)[functionId(on, 'tableCommit')].Properties;
      expect([p.MemorySize, p.Timeout]).toEqual([2048, 900]);
      expect(p.Environment.Variables).toMatchObject({
        SHARDWAL_TABLES: 'clicks-*=clicks,*',
        SHARDWAL_TABLE_SCHEMAS: '{"clicks":{"partition":"hour","columns":{"user":"string"}}}',
        SHARDWAL_TABLE_COMMIT_MS: '90000',
      });
      expect(p.ReservedConcurrentExecutions).toBeUndefined();
      // Export reads the tables as its retention floor: it gets the same settings.
      expect(
        resources(on)[functionId(on, 'export')].Properties.Environment.Variables,
      ).toMatchObject({ SHARDWAL_TABLES: 'clicks-*=clicks,*', SHARDWAL_TABLE_COMMIT_MS: '90000' });
    });

    it('resolves the commit period to the environment when only tables is set', () => {
      const plain = synth({ tables: '*' });
      expect(
        resources(plain)[functionId(plain, 'tableCommit')].Properties.Environment.Variables,
      ).toMatchObject({ SHARDWAL_TABLES: '*', SHARDWAL_TABLE_COMMIT_MS: '60000' });
      const schedule = resources(plain)[logicalIdOf(plain.service.schedules.tableCommit!)];
      expect(schedule.Properties.ScheduleExpression).toBe('rate(1 minute)');
    });

    it('schedules a commit every tableCommitMs rounded up to whole minutes with {}, and an hourly maintenance', () => {
      const fnArn = { 'Fn::GetAtt': [functionId(on, 'tableCommit'), 'Arn'] };
      const commit = resources(on)[logicalIdOf(on.service.schedules.tableCommit!)].Properties;
      const maintain = resources(on)[logicalIdOf(on.service.schedules.tableMaintain!)].Properties;
      // 90 s: EventBridge Scheduler's finest rate is a minute, so two.
      expect(commit.ScheduleExpression).toBe('rate(2 minutes)');
      expect(commit.Target).toMatchObject({ Arn: fnArn, Input: '{}' });
      expect(maintain.ScheduleExpression).toBe('rate(1 hour)');
      expect(maintain.Target).toMatchObject({ Arn: fnArn, Input: '{"maintain":true}' });
      for (const s of [commit, maintain]) {
        expect(s.Target.DeadLetterConfig.Arn).toEqual({
          'Fn::GetAtt': [logicalIdOf(on.service.queues.failures), 'Arn'],
        });
      }
      const invokeConfigs = Object.values(
        on.template.findResources('AWS::Lambda::EventInvokeConfig'),
      ).filter((c) => c.Properties.FunctionName.Ref === functionId(on, 'tableCommit'));
      expect(invokeConfigs).toHaveLength(1);
      expect(invokeConfigs[0]!.Properties).toMatchObject({
        MaximumRetryAttempts: 0,
        MaximumEventAgeInSeconds: 120,
      });
    });

    it('grants the committer WAL reads, get, create-if-absent and delete on tables/*, and listing; nothing else on S3', () => {
      expect(s3Grants(on, 'tableCommit')).toEqual(
        [
          's3:GetObject shards/*/wal/*',
          's3:GetObject tables/*',
          `s3:PutObject tables/* ${IF_NONE_MATCH}`,
          's3:DeleteObject tables/*',
          's3:ListBucket bucket',
        ].sort(),
      );
    });

    it('grants the committer on DynamoDB only what listShards sends', () => {
      const table = logicalIdOf(on.service.storage.table);
      const dynamo = statementsOf(on, 'tableCommit').filter((st) =>
        actionsOf([st]).some((a) => a.startsWith('dynamodb:')),
      );
      const render = (r: unknown) =>
        JSON.stringify(r) === JSON.stringify({ 'Fn::GetAtt': [table, 'Arn'] })
          ? 'table'
          : JSON.stringify(r).includes('/index/registry')
            ? 'registry'
            : JSON.stringify(r);
      expect(
        dynamo.flatMap((st) => actionsOf([st]).map((a) => `${a} ${render(st.Resource)}`)).sort(),
      ).toEqual([
        'dynamodb:GetItem table',
        'dynamodb:PutItem table',
        'dynamodb:Query registry',
        'dynamodb:Scan table',
        'dynamodb:UpdateItem table',
      ]);
    });

    it('lets export read the tables’ metadata (its retention floor) and nothing else new', () => {
      const added = s3Grants(on, 'export').filter((g) => !s3Grants(off, 'export').includes(g));
      expect(added).toEqual(['s3:GetObject tables/*/metadata/*']);
    });

    it('lets recovery read the tables’ metadata and data files (a full verify reads table segments) and nothing else new', () => {
      const added = s3Grants(on, 'recover').filter((g) => !s3Grants(off, 'recover').includes(g));
      expect(added.sort()).toEqual([
        's3:GetObject tables/*/data/*',
        's3:GetObject tables/*/metadata/*',
      ]);
    });

    it('gives no other function anything on tables/', () => {
      for (const name of ['putHttp', 'putSqs', 'statusHttp', 'flushTick', 'flushWorker'] as const) {
        expect(s3Grants(on, name)).toEqual(s3Grants(off, name));
      }
    });

    it('lets readers get tables/* and list the bucket', () => {
      const policy = resources(on)[logicalIdOf(on.service.readers.policy)].Properties;
      const get = (policy.PolicyDocument.Statement as Statement[]).find(
        (st) => st.Action === 's3:GetObject',
      )!;
      expect(JSON.stringify(get.Resource)).toContain('"/tables/*"');
      const list = (policy.PolicyDocument.Statement as Statement[]).find(
        (st) => st.Action === 's3:ListBucket',
      )!;
      expect(list.Resource).toEqual({
        'Fn::GetAtt': [logicalIdOf(on.service.storage.bucket), 'Arn'],
      });
    });

    it('alarms on the committer’s errors', () => {
      const errors = Object.values(on.template.findResources('AWS::CloudWatch::Alarm')).filter(
        (a) =>
          a.Properties.MetricName === 'Errors' &&
          a.Properties.Dimensions?.[0]?.Value?.Ref === functionId(on, 'tableCommit'),
      );
      expect(errors).toHaveLength(1);
    });

    it('leaves no unacknowledged AwsSolutions or Serverless finding', () => {
      expect(nagReport(on.stack.node.root)).toEqual([]);
    });
  });

  describe('bucket policy with tables', () => {
    it('denies overwrites of every table key the committer creates, and not of the version hint', async () => {
      // The keys a real committer writes: commits, compaction, expiry.
      const store = new MemoryObjectStore();
      const deps = testDeps(store);
      const wal = new WalWriter(store, 's');
      for (let i = 0; i < 3; i++) {
        await wal.append([{ text: `{"i":${i}}` }], Date.UTC(2026, 11, 1) + i);
        expect((await appendTable(deps, 't', ['s'])).status).toBe('committed');
        deps.clock.ms += 60_000;
      }
      await compactTable(deps, 't');
      await expireSnapshots(deps, 't');
      const keys = store.keys().filter((k) => k.startsWith('tables/'));
      const kinds = new Set(keys.map((k) => k.replace(/[^/]*$/, '').split('/')[2]));
      expect(kinds).toEqual(new Set(['data', 'metadata']));
      expect(keys.some((k) => k.endsWith('.parquet'))).toBe(true);
      expect(keys.some((k) => k.endsWith('.avro'))).toBe(true);
      expect(keys.some((k) => k.endsWith('.metadata.json'))).toBe(true);

      const patterns = denyPatterns(on);
      const hint = versionHintKey('t');
      expect(keys).toContain(hint);
      for (const key of keys) {
        expect([key, patterns.some((p) => matches(p, key))]).toEqual([key, key !== hint]);
      }
    });
  });

  describe('without tables', () => {
    it('deploys no committer, no table schedule, no table grant, no table read for readers', () => {
      expect(off.service.functions.byName.tableCommit).toBeUndefined();
      expect(off.service.schedules.tableCommit).toBeUndefined();
      expect(off.service.schedules.tableMaintain).toBeUndefined();
      expect(Object.keys(off.template.findResources('AWS::Lambda::Function'))).not.toContainEqual(
        expect.stringContaining('tableCommit'),
      );
      expect(Object.keys(on.template.findResources('AWS::Lambda::Function'))).toContainEqual(
        expect.stringContaining('tableCommit'),
      );
      const iam = JSON.stringify({
        ...off.template.findResources('AWS::IAM::Policy'),
        ...off.template.findResources('AWS::IAM::ManagedPolicy'),
        ...off.template.findResources('AWS::IAM::Role'),
      });
      expect(iam).not.toContain('tables/');
      expect(JSON.stringify(off.template.findResources('AWS::Scheduler::Schedule'))).not.toMatch(
        /maintain|table/i,
      );
      for (const fn of Object.values(off.template.findResources('AWS::Lambda::Function'))) {
        expect(Object.keys(fn.Properties.Environment.Variables)).not.toContain('SHARDWAL_TABLES');
      }
    });
  });

  describe('table settings', () => {
    it('names the prop of an invalid table setting', () => {
      const tables = tablesPropsError({ routes: 'Bad Name' });
      expect(tables).toBeInstanceOf(PropError);
      expect(tables.message).toMatch(/^ShardwalService props\.tables\.routes="Bad Name": entry/);
      expect(tablesPropsError({ routes: '*', commitMs: 0 }).message).toMatch(
        /^ShardwalService props\.tables\.commitMs=0: expected a whole number of at least 1/,
      );
      expect(
        tablesPropsError({ routes: '*', schemas: { t: { partition: 'week' } } }).message,
      ).toMatch(/^ShardwalService props\.tables\.schemas=.*expected day, hour or shard/);
    });

    it('refuses table options without routes', () => {
      const error = tablesPropsError({ commitMs: 60_000 });
      expect(error).toBeInstanceOf(ContextError);
      expect(error.message).toBe(
        'ShardwalService props.tables.routes=undefined: expected the shard → table routes',
      );
    });

    it('names the context key of an invalid table setting', () => {
      expect(() => synth({ tables: '*', tableCommitMs: 'soon' })).toThrow(
        /^cdk context tableCommitMs="soon": expected a whole number/,
      );
    });
  });
});
