/**
 * Least privilege, one function at a time. Each grant names its actions;
 * none uses a `grantReadWrite`-style helper, whose action lists are wider
 * than what the handlers call. The invariants the tests hold us to:
 *
 *   1. The put handlers' only S3 action is creating spill objects,
 *      create-if-absent (with reading back their own, and listing so that a
 *      missing key is a 404, not a 403); with spilling off
 *      (`spillBytes=off`) they have no S3 permission at all. The status
 *      handler only reads WAL objects (a seq whose batch item expired is
 *      looked up there, `lib/status/wal-seq.ts`). The flushers and
 *      recovery read spill objects whether or not spilling is on: a
 *      deployment that switches it off
 *      still flushes the batches spilled before.
 *   2. Only the flushers write WAL objects; only export writes manifests,
 *      segments and snapshot parts; only export deletes (retention). Recovery
 *      reads, and creates spill objects (verify's copy of an aged pending
 *      payload). Spill objects are read by the flushers, recovery and the
 *      put handlers, and never deleted by anyone: the lifecycle rule expires
 *      them.
 *   3. Every object write is create-if-absent: PutObject is allowed only with
 *      an `If-None-Match` header, so no role can overwrite a WAL object, an
 *      export or a spilled payload, even by a bug. Export's streamed writes
 *      are multipart uploads: their `CreateMultipartUpload` and `UploadPart`
 *      requests (which S3 authorizes as PutObject and which take no
 *      conditional header) are allowed where `s3:ObjectCreationOperation` is
 *      false, and only the `CompleteMultipartUpload` that creates the object
 *      must carry `If-None-Match`; `AbortMultipartUpload` lets a failed one go.
 *   4. The status handler has no write action.
 *   5. No grant outlives its use: `TABLE_ACTIONS_BY_HANDLER` lists what each
 *      handler's code sends; S3 grants name only the key kinds it touches.
 *   6. The Iceberg table committer (deployed only with the `tables` setting)
 *      reads WAL objects and owns `tables/*`: it gets, creates (always
 *      create-if-absent, the version hint included: delete, then create)
 *      and deletes (expiry, orphans, old metadata) there, and nothing else
 *      in the bucket. Export then also reads `tables/<name>/metadata/`, its
 *      retention floor, and recovery reads metadata and data files (a
 *      shard's full verify reads the table segments its export lists).
 */
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import type { Deployed, HandlerName } from './functions.js';
import { EXPORT_READ_PATTERNS, EXPORT_WRITTEN_PATTERNS, KEY_PATTERNS } from './key-patterns.js';
import { acknowledgeCdkKeyActions, grantKeyUse } from './key-use.js';
import { acknowledgeWildcardResources } from './nag.js';
import { TABLE_LAYOUT } from './storage.js';

/**
 * DynamoDB actions, by what the code in `lib/memtable/` sends. The sets below
 * follow the handlers' call paths: a grant nothing calls is a grant removed.
 */
const DDB_ACTIONS = {
  /** Shard records, idempotency records and batch heads, by key. */
  getItem: 'dynamodb:GetItem',
  /** Batch ranges of one shard (flush, verify, rebuild); the pending index. */
  query: 'dynamodb:Query',
  /** Batch items, void markers, idempotency records, quarantined batches. */
  putItem: 'dynamodb:PutItem',
  /** Every shard-record change (allocate, claim, commit, watermark, reset). */
  updateItem: 'dynamodb:UpdateItem',
  /** An idempotency reservation released when its batch provably did not land. */
  deleteItem: 'dynamodb:DeleteItem',
  /** Quarantine: a rejected batch moved out of the batch range (rebuild). */
  batchWriteItem: 'dynamodb:BatchWriteItem',
  /** The one-time registry backfill of records older than the registry (`list-shards.ts`). */
  scan: 'dynamodb:Scan',
} as const;

/** The DynamoDB actions each handler's code sends to the table. */
const TABLE_ACTIONS_BY_HANDLER = {
  // lib/put: idempotency (get, put, delete), allocate (update), the batch (put, update), durable wait (get).
  putHttp: ['getItem', 'putItem', 'updateItem', 'deleteItem'],
  putSqs: ['getItem', 'putItem', 'updateItem', 'deleteItem'],
  // lib/http/status-route: the shard record, the batch head and quarantine copies of a seq.
  statusHttp: ['getItem'],
  // lib/flush: record (get, update), batches (query), void seals (put); nothing deletes (TTL).
  flushTick: ['getItem', 'query', 'putItem', 'updateItem'],
  flushWorker: ['getItem', 'query', 'putItem', 'updateItem'],
  // lib/export: the registry backfill (scan, update, its marker put), a record (get), the
  // watermark and retention cursors (update).
  export: ['getItem', 'updateItem', 'putItem', 'scan'],
  // lib/recovery: the registry backfill (scan, marker put), batches (query), heals and
  // quarantine (put, batch write), fence and reset (update).
  recover: ['getItem', 'query', 'putItem', 'updateItem', 'batchWriteItem', 'scan'],
  // functions/table-commit: listShards (lib/table sends nothing to the table): the registry
  // backfill (marker get and put, scan, register update), Query on the index below; and the
  // shard record's historyKeptFrom cursor (get), which history retention in tables reads.
  tableCommit: ['getItem', 'updateItem', 'putItem', 'scan'],
} as const satisfies Record<HandlerName, readonly (keyof typeof DDB_ACTIONS)[]>;

/** Functions with an async failure destination (the failures queue). */
const SCHEDULED: ReadonlySet<HandlerName> = new Set([
  'flushTick',
  'export',
  'recover',
  'tableCommit',
]);

/** PutObject only when the request carries `If-None-Match` (create-if-absent). */
const CREATE_IF_ABSENT: Record<string, unknown> = { Null: { 's3:if-none-match': 'false' } };

/** A multipart upload's requests that create nothing (`CreateMultipartUpload`, `UploadPart`). */
const UPLOAD_PARTS: Record<string, unknown> = { Bool: { 's3:ObjectCreationOperation': 'false' } };

/** Resources the grants refer to. */
export interface PermissionTargets {
  functions: Deployed<NodejsFunction>;
  table: ITable;
  bucket: IBucket;
  flushQueue: Queue;
  /** Where put-sqs sends the messages it refuses for good (`lib/sqs/put-messages.ts`). */
  ingestDeadLetterQueues: Queue[];
  /** Whether large payloads spill to S3 (`spillBytes` set): the spill grants exist only then. */
  spilling: boolean;
  /** The app's key the table, bucket and queues are encrypted with: every function may use it. */
  key?: IKey | undefined;
}

/** Adds one statement to a handler's role. */
type Allow = (
  name: HandlerName,
  actions: readonly string[],
  resources: string[],
  conditions?: Record<string, unknown>,
) => void;

/** Grants every function exactly what it uses. */
export function grantLeastPrivilege(t: PermissionTargets): void {
  const tableArn = t.table.tableArn;
  const pendingIndexArn = `${tableArn}/index/${TABLE_LAYOUT.pendingIndex}`;
  const registryIndexArn = `${tableArn}/index/${TABLE_LAYOUT.registryIndex}`;
  const allow: Allow = (name, actions, resources, conditions) =>
    fn(t, name).addToRolePolicy(
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

  const deployed = Object.keys(t.functions) as HandlerName[];
  for (const name of deployed) {
    allow(
      name,
      TABLE_ACTIONS_BY_HANDLER[name].map((a) => DDB_ACTIONS[a]),
      [tableArn],
    );
    if (t.key) {
      // Every function reads or writes the table, the bucket or a queue.
      const role = fn(t, name).role!;
      grantKeyUse(t.key, role);
      // The scheduled ones' async failure destination (the CDK's send grant).
      if (SCHEDULED.has(name)) acknowledgeCdkKeyActions(role);
    }
  }
  const puts = (['putHttp', 'putSqs'] as const).filter((put) => t.functions[put]);
  for (const put of puts) sendFlushRequests(put);
  // Its event sources grant put-sqs ChangeMessageVisibility (hold-backs) on the ingest queues.
  if (t.functions.putSqs) {
    allow(
      'putSqs',
      ['sqs:SendMessage'],
      t.ingestDeadLetterQueues.map((q) => q.queueArn),
    );
  }

  for (const flusher of ['flushTick', 'flushWorker'] as const) {
    allow(flusher, [DDB_ACTIONS.query], [pendingIndexArn]);
    allow(flusher, ['s3:GetObject'], [objects(KEY_PATTERNS.wal)]);
    allow(flusher, ['s3:PutObject'], [objects(KEY_PATTERNS.wal)], CREATE_IF_ABSENT);
    listBucket(flusher);
    acknowledgeKeyPatterns(t.functions[flusher], t.bucket, [KEY_PATTERNS.wal]);
  }
  sendFlushRequests('flushTick');

  // The seq status reads the WAL object covering a seq whose batch item expired.
  if (t.functions.statusHttp) {
    allow('statusHttp', ['s3:GetObject'], [objects(KEY_PATTERNS.wal)]);
    listBucket('statusHttp');
    acknowledgeKeyPatterns(t.functions.statusHttp, t.bucket, [KEY_PATTERNS.wal]);
  }

  // Both scheduled jobs list the shards through the registry index.
  for (const job of ['export', 'recover'] as const)
    allow(job, [DDB_ACTIONS.query], [registryIndexArn]);

  // Export reads the base manifest, the WAL since and (a compaction, a legacy
  // base) snapshot parts and legacy exports; it writes segments, parts and the
  // manifest, streamed ones as multipart uploads; retention deletes every kind
  // but what it keeps (never a WAL object at or above the watermark).
  const written = EXPORT_WRITTEN_PATTERNS.map(objects);
  allow('export', ['s3:GetObject'], EXPORT_READ_PATTERNS.map(objects));
  allow('export', ['s3:PutObject'], written, CREATE_IF_ABSENT);
  allow('export', ['s3:PutObject'], written, UPLOAD_PARTS);
  allow('export', ['s3:AbortMultipartUpload'], written);
  allow('export', ['s3:DeleteObject'], EXPORT_READ_PATTERNS.map(objects));
  listBucket('export');
  acknowledgeKeyPatterns(t.functions.export, t.bucket, EXPORT_READ_PATTERNS);

  // Recovery reads exports (manifests, their parts and segments, legacy
  // exports) and WAL objects; it lists a shard's prefix to find objects the
  // table has no record of.
  allow('recover', ['s3:GetObject'], EXPORT_READ_PATTERNS.map(objects));
  listBucket('recover');
  acknowledgeKeyPatterns(t.functions.recover, t.bucket, EXPORT_READ_PATTERNS);

  grantSpill(t, allow, listBucket);
  if (t.functions.tableCommit) grantTables(t, allow, listBucket, registryIndexArn);
}

/** The function of `name`; an optional one that is not deployed is a bug of the caller. */
function fn(t: PermissionTargets, name: HandlerName): NodejsFunction {
  const found = t.functions[name];
  if (!found) throw new Error(`grant to ${name}, which is not deployed`);
  return found;
}

/**
 * The Iceberg tables' grants (`docs/tables.md`). The committer lists the
 * shards through the registry index, reads WAL objects (never spilled
 * payloads: the WAL inlines them) and owns `tables/*`. Export reads the
 * tables' metadata folders: a shard's table high-water is its WAL floor and
 * where its table segments end. Recovery reads metadata and data files: a
 * shard's full verify reads its table segments.
 */
function grantTables(
  t: PermissionTargets,
  allow: Allow,
  listBucket: (name: HandlerName) => void,
  registryIndexArn: string,
) {
  const tables = [t.bucket.arnForObjects(KEY_PATTERNS.table)];
  allow('tableCommit', [DDB_ACTIONS.query], [registryIndexArn]);
  allow('tableCommit', ['s3:GetObject'], [t.bucket.arnForObjects(KEY_PATTERNS.wal)]);
  allow('tableCommit', ['s3:GetObject'], tables);
  // Data files, manifests, manifest lists and metadata files are created
  // once (the metadata file is the commit); the hint is deleted, then created.
  allow('tableCommit', ['s3:PutObject'], tables, CREATE_IF_ABSENT);
  // Snapshot expiry, orphan removal, old metadata files, the hint's rewrite.
  allow('tableCommit', ['s3:DeleteObject'], tables);
  listBucket('tableCommit');
  acknowledgeKeyPatterns(fn(t, 'tableCommit'), t.bucket, [KEY_PATTERNS.wal, KEY_PATTERNS.table]);

  allow('export', ['s3:GetObject'], [t.bucket.arnForObjects(KEY_PATTERNS.tableMetadata)]);
  acknowledgeKeyPatterns(t.functions.export, t.bucket, [KEY_PATTERNS.tableMetadata]);
  // A shard's full verify reads its table segments from the table (`lib/segment/table-reader.ts`).
  const read = [KEY_PATTERNS.tableMetadata, KEY_PATTERNS.tableData];
  allow(
    'recover',
    ['s3:GetObject'],
    read.map((pattern) => t.bucket.arnForObjects(pattern)),
  );
  acknowledgeKeyPatterns(fn(t, 'recover'), t.bucket, read);
}

/**
 * The spill's grants (`lib/memtable/spill.ts`), on `spill/*` only. A put
 * writes its payload create-if-absent and, when a retried write finds its
 * own object, reads it back to check it; listing lets that read of a missing
 * key answer 404: the put handlers get these only while spilling is on. The
 * flushers read payloads to inline them into the WAL. Recovery reads them
 * (rebuild's quarantine inlines them) and creates copies (verify's heal of an
 * aged pending payload). Those two keep their grants with spilling off, for
 * the batches spilled before; they already list the bucket.
 */
function grantSpill(t: PermissionTargets, allow: Allow, listBucket: (name: HandlerName) => void) {
  const spill = [t.bucket.arnForObjects(KEY_PATTERNS.spill)];
  const puts = t.spilling ? (['putHttp', 'putSqs'] as const).filter((put) => t.functions[put]) : [];
  for (const put of puts) {
    allow(put, ['s3:PutObject'], spill, CREATE_IF_ABSENT);
    allow(put, ['s3:GetObject'], spill);
    listBucket(put);
  }
  for (const flusher of ['flushTick', 'flushWorker'] as const) {
    allow(flusher, ['s3:GetObject'], spill);
  }
  allow('recover', ['s3:GetObject'], spill);
  allow('recover', ['s3:PutObject'], spill, CREATE_IF_ABSENT);
  for (const name of [...puts, 'flushTick', 'flushWorker', 'recover'] as const) {
    acknowledgeKeyPatterns(fn(t, name), t.bucket, [KEY_PATTERNS.spill]);
  }
}

/**
 * cdk-nag IAM5 flags any `*` in a resource. Here the wildcards are the shard
 * name and the zero-padded position (or a spilled batch's seq and put id):
 * all data, unknown at deploy time, and the grant is already narrowed to one
 * object kind.
 */
function acknowledgeKeyPatterns(
  fn: NodejsFunction,
  bucket: IBucket,
  patterns: readonly string[],
): void {
  acknowledgeWildcardResources(
    fn.role!,
    patterns.map((pattern) => bucket.arnForObjects(pattern)),
    'Object keys are shards/<shard>/<kind>/<position...>, spill/<shard>/<seq>-<putId> and tables/<table>/{data,metadata}/<file>: shard and table names, positions, seqs, put ids and file names are data created at run time, so the grant names the key layout, not keys.',
  );
}
