/**
 * Least privilege, one function at a time. Each grant names its actions;
 * none uses a `grantReadWrite`-style helper, whose action lists are wider
 * than what the handlers call. The invariants the tests hold us to:
 *
 *   1. The put and status handlers have no S3 permission at all.
 *   2. Only the flushers write WAL objects; only export writes AOF exports;
 *      only export deletes (WAL retention). Recovery reads.
 *   3. Every object write is create-if-absent: PutObject is allowed only with
 *      an `If-None-Match` header, so no role can overwrite a WAL object or an
 *      export, even by a bug.
 *   4. The status handler has no write action.
 */
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { Bucket } from 'aws-cdk-lib/aws-s3';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import type { HandlerName } from './functions.js';
import { acknowledgeWildcardResources, arnToken } from './nag.js';
import { TABLE_LAYOUT } from './storage.js';

/** DynamoDB action sets. */
export const DDB_ACTIONS = {
  read: ['dynamodb:GetItem', 'dynamodb:Query'],
  write: ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'],
  /** The flusher deletes batch items the WAL covers in one BatchWriteItem. */
  batchWrite: ['dynamodb:BatchWriteItem'],
  /** Export and verify walk every shard record. */
  scan: ['dynamodb:Scan'],
} as const;

/** Object key patterns, as in `lib/paths.ts`. */
export const KEY_PATTERNS = {
  shard: 'shards/*',
  wal: 'shards/*/wal/*',
  aof: 'shards/*/aof/*',
} as const;

/** PutObject only when the request carries `If-None-Match` (create-if-absent). */
const CREATE_IF_ABSENT: Record<string, unknown> = { Null: { 's3:if-none-match': 'false' } };

/** Resources the grants refer to. */
export interface PermissionTargets {
  functions: Record<HandlerName, NodejsFunction>;
  table: Table;
  bucket: Bucket;
  flushQueue: Queue;
}

/** Grants every function exactly what it uses. */
export function grantLeastPrivilege(t: PermissionTargets): void {
  const tableArn = t.table.tableArn;
  const pendingIndexArn = `${tableArn}/index/${TABLE_LAYOUT.pendingIndex}`;
  const allow = (
    name: HandlerName,
    actions: readonly string[],
    resources: string[],
    conditions?: Record<string, unknown>,
  ) =>
    t.functions[name].addToRolePolicy(
      new PolicyStatement({
        actions: [...actions],
        resources,
        ...(conditions ? { conditions } : {}),
      }),
    );
  const objects = (pattern: string) => t.bucket.arnForObjects(pattern);
  const sendFlushRequests = (name: HandlerName) =>
    allow(name, ['sqs:SendMessage'], [t.flushQueue.queueArn]);
  // ListBucket applies to the bucket ARN, and is not narrowed by an s3:prefix
  // condition: S3 also consults it to answer a GetObject of a missing key with
  // 404 rather than 403, and that check carries no prefix.
  const listBucket = (name: HandlerName) => allow(name, ['s3:ListBucket'], [t.bucket.bucketArn]);

  for (const put of ['putHttp', 'putSqs'] as const) {
    allow(put, [...DDB_ACTIONS.read, ...DDB_ACTIONS.write], [tableArn]);
    sendFlushRequests(put);
  }

  allow('statusHttp', DDB_ACTIONS.read, [tableArn]);

  for (const flusher of ['flushTick', 'flushWorker'] as const) {
    allow(
      flusher,
      [...DDB_ACTIONS.read, ...DDB_ACTIONS.write, ...DDB_ACTIONS.batchWrite],
      [tableArn],
    );
    allow(flusher, ['dynamodb:Query'], [pendingIndexArn]);
    allow(flusher, ['s3:GetObject'], [objects(KEY_PATTERNS.wal)]);
    allow(flusher, ['s3:PutObject'], [objects(KEY_PATTERNS.wal)], CREATE_IF_ABSENT);
    listBucket(flusher);
    acknowledgeKeyPatterns(t.functions[flusher], t.bucket, [KEY_PATTERNS.wal]);
  }
  sendFlushRequests('flushTick');

  const walker = [
    ...DDB_ACTIONS.read,
    ...DDB_ACTIONS.write,
    ...DDB_ACTIONS.batchWrite,
    ...DDB_ACTIONS.scan,
  ];
  allow('export', walker, [tableArn]);
  allow('export', ['s3:GetObject'], [objects(KEY_PATTERNS.shard)]);
  allow('export', ['s3:PutObject'], [objects(KEY_PATTERNS.aof)], CREATE_IF_ABSENT);
  allow('export', ['s3:DeleteObject'], [objects(KEY_PATTERNS.wal)]);
  listBucket('export');
  acknowledgeKeyPatterns(t.functions.export, t.bucket, [
    KEY_PATTERNS.shard,
    KEY_PATTERNS.aof,
    KEY_PATTERNS.wal,
  ]);

  allow('recover', walker, [tableArn]);
  allow('recover', ['s3:GetObject'], [objects(KEY_PATTERNS.shard)]);
  listBucket('recover');
  acknowledgeKeyPatterns(t.functions.recover, t.bucket, [KEY_PATTERNS.shard]);
}

/**
 * cdk-nag IAM5 flags any `*` in a resource. Here the wildcards are the shard
 * name and the zero-padded position: both are data, unknown at deploy time,
 * and the grant is already narrowed to one object kind (`wal` or `aof`).
 */
function acknowledgeKeyPatterns(
  fn: NodejsFunction,
  bucket: Bucket,
  patterns: readonly string[],
): void {
  acknowledgeWildcardResources(
    fn.role!,
    patterns.map((pattern) => `${arnToken(bucket)}/${pattern}`),
    'Object keys are shards/<shard>/<kind>/<position>: shard names and positions are data created at run time, so the grant names the key layout, not keys.',
  );
}
