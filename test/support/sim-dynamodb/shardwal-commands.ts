/**
 * Seeded random DynamoDB commands of exactly the shapes shardwal sends: the
 * expressions below are copied from `lib/memtable/*` and `lib/fence/*` (as of
 * this writing), with values drawn from small ranges so conditions both hold
 * and fail, attributes go missing, and keys collide. Differential tests send
 * each command to dynalite and to `MemoryDynamoDB` and compare.
 */
import {
  type AttributeValue,
  BatchWriteItemCommand,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  ScanCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { idempotencyCommands } from './shardwal-idempotency-commands.js';

/** A command, or a paginated read the driver walks page by page. */
export type GeneratedCommand =
  | { kind: 'single'; command: object; label: string }
  | { kind: 'pages'; page: (startKey?: Record<string, AttributeValue>) => object; label: string };

const SHARDS = ['s1', 's2', 's3'];
const N = (n: number): AttributeValue => ({ N: String(n) });
const S = (s: string): AttributeValue => ({ S: s });

/** Draws shardwal-shaped commands for `tableName` from `random`. */
export function shardwalCommands(tableName: string, random: () => number) {
  const int = (n: number) => Math.floor(random() * n);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)]!;
  const shard = () => pick(SHARDS);
  const record = (s: string) => ({ pk: S(`shard#${s}`), sk: S('meta') });
  const seqSk = (seq: number) => `batch#${String(seq).padStart(12, '0')}`;
  const now = () => 1_000 + int(40) * 25;
  const bytes = (n: number) => Uint8Array.from({ length: n }, () => int(256));
  const updateRecord = (
    label: string,
    s: string,
    update: string,
    values: Record<string, AttributeValue>,
    condition?: string,
  ): GeneratedCommand => ({
    kind: 'single',
    label,
    command: new UpdateItemCommand({
      TableName: tableName,
      Key: record(s),
      UpdateExpression: update,
      ConditionExpression: condition,
      ExpressionAttributeValues: values,
      ReturnValues: 'ALL_NEW',
    }),
  });
  const single = (label: string, command: object): GeneratedCommand => ({
    kind: 'single',
    label,
    command,
  });

  const generators: (() => GeneratedCommand)[] = [
    // lib/memtable/allocate.ts
    () => {
      const s = shard();
      const n = 10 + int(300);
      return updateRecord(
        'allocate',
        s,
        'SET nextSeq = if_not_exists(nextSeq, :one) + :one, pendingPk = :pending, pendingShard = :shard, lastAllocAtMs = :now, lastAllocToken = :token ADD bufferedBytes :bytes, chargedBytes :bytes',
        {
          ':one': N(1),
          ':zero': N(0),
          ':pending': S('pending'),
          ':shard': S(s),
          ':now': N(now()),
          ':bytes': N(n),
          ':room': N(1000 - n),
          ':token': S(`t${int(4)}`),
        },
        'attribute_not_exists(poison) AND (attribute_not_exists(bufferedBytes) OR bufferedBytes <= :zero OR bufferedBytes <= :room) AND (attribute_not_exists(lastAllocToken) OR lastAllocToken <> :token)',
      );
    },
    // lib/fence/claim.ts: claimFlush, renewLease, releaseLease, clearExpiredLease
    () =>
      updateRecord(
        'claim',
        shard(),
        'SET epoch = if_not_exists(epoch, :zero) + :one, leaseOwner = :owner, leaseExpiresAtMs = :expires',
        {
          ':zero': N(0),
          ':one': N(1),
          ':owner': S(pick(['a', 'b'])),
          ':expires': N(now() + 500),
          ':now': N(now()),
        },
        'attribute_exists(pk) AND attribute_not_exists(poison) AND (attribute_not_exists(leaseExpiresAtMs) OR leaseExpiresAtMs < :now)',
      ),
    () =>
      updateRecord(
        'renew lease',
        shard(),
        'SET leaseExpiresAtMs = :expires',
        { ':expires': N(now() + 500), ':epoch': N(int(4)), ':owner': S(pick(['a', 'b'])) },
        'epoch = :epoch AND leaseOwner = :owner',
      ),
    () =>
      random() < 0.5
        ? updateRecord(
            'release lease',
            shard(),
            'REMOVE leaseOwner, leaseExpiresAtMs',
            { ':epoch': N(int(4)) },
            'epoch = :epoch',
          )
        : updateRecord(
            'clear expired lease',
            shard(),
            'REMOVE leaseOwner, leaseExpiresAtMs',
            { ':now': N(now()) },
            'leaseExpiresAtMs < :now',
          ),
    // lib/fence/commit.ts: commitFlush (with and without the release, and draining), poisonShard
    () => {
      const position = int(3);
      const values: Record<string, AttributeValue> = {
        ':lastSeq': N(int(6)),
        ':nextPos': N(position + 1),
        ':nextRow': N(int(50)),
        ':epoch': N(int(4)),
        ':pos': N(position),
      };
      const fence =
        position === 0
          ? 'epoch = :epoch AND (attribute_not_exists(walNextPos) OR walNextPos = :pos)'
          : 'epoch = :epoch AND walNextPos = :pos';
      if (random() < 0.3) {
        // C5: the commit that also drains the shard.
        values[':zero'] = N(0);
        values[':next'] = N(1 + int(6));
        return updateRecord(
          'commit and drain',
          shard(),
          'SET durableSeq = :lastSeq, walNextPos = :nextPos, nextRowOffset = :nextRow, bufferedBytes = :zero, releasedBytes = if_not_exists(chargedBytes, :zero) REMOVE leaseOwner, leaseExpiresAtMs, pendingPk, pendingShard, pendingSinceMs',
          values,
          `${fence} AND nextSeq = :next`,
        );
      }
      let release = '';
      if (random() < 0.7) {
        release = ', releasedBytes = :released, bufferedBytes = chargedBytes - :released';
        values[':released'] = N(int(400));
      }
      return updateRecord(
        'commit',
        shard(),
        `SET durableSeq = :lastSeq, walNextPos = :nextPos, nextRowOffset = :nextRow${release} REMOVE leaseOwner, leaseExpiresAtMs`,
        values,
        fence,
      );
    },
    () => {
      const held = random() < 0.5;
      const values: Record<string, AttributeValue> = {
        ':reason': S(`r${int(3)}`),
        ':now': N(now()),
      };
      let condition = 'attribute_not_exists(poison)';
      if (held) {
        values[':epoch'] = N(int(4));
        values[':pos'] = N(int(2));
        condition += ' AND epoch = :epoch AND walNextPos = :pos';
      }
      return updateRecord(
        'poison',
        shard(),
        'SET poison = :reason, poisonedAtMs = :now',
        values,
        condition,
      );
    },
    // lib/memtable/pending-index.ts: clearPending
    () => {
      const next = 1 + int(6);
      return updateRecord(
        'clear pending',
        shard(),
        'REMOVE pendingPk, pendingShard SET bufferedBytes = :zero, releasedBytes = if_not_exists(chargedBytes, :zero)',
        { ':next': N(next), ':durable': N(next - 1), ':zero': N(0) },
        'nextSeq = :next AND durableSeq = :durable',
      );
    },
    // lib/memtable/reset-cursors.ts: fenceForRebuild, resetCursors, releaseRebuildFence
    () =>
      updateRecord(
        'fence for rebuild',
        shard(),
        'SET epoch = if_not_exists(epoch, :zero) + :one, leaseOwner = :owner, leaseExpiresAtMs = :expires, poison = :reason, poisonedAtMs = :now',
        {
          ':zero': N(0),
          ':one': N(1),
          ':owner': S('rebuild'),
          ':expires': N(now() + 500),
          ':reason': S('rebuilding'),
          ':now': N(now()),
        },
      ),
    () => {
      const s = shard();
      const durable = int(5);
      const next = durable + 1 + int(3);
      const pending = next > durable + 1;
      const set = [
        'durableSeq = :durable',
        'walNextPos = :pos',
        'nextRowOffset = :row',
        'nextSeq = :next',
        'bufferedBytes = :bytes',
        'releasedBytes = if_not_exists(chargedBytes, :zeroBytes) - :bytes',
        'aofWatermark = :watermark',
        'rebuiltAtMs = :now',
        ...(pending ? ['pendingPk = :pending', 'pendingShard = :shard'] : []),
      ];
      const remove = [
        'poison',
        'poisonedAtMs',
        'leaseOwner',
        'leaseExpiresAtMs',
        ...(pending ? [] : ['pendingPk', 'pendingShard']),
      ];
      const values: Record<string, AttributeValue> = {
        ':durable': N(durable),
        ':pos': N(int(3)),
        ':row': N(int(40)),
        ':next': N(next),
        ':bytes': N(int(300)),
        ':zeroBytes': N(0),
        ':watermark': N(int(2)),
        ':now': N(now()),
        ':one': N(1),
        ':epoch': N(int(4)),
      };
      if (pending) {
        values[':pending'] = S('pending');
        values[':shard'] = S(s);
      }
      return updateRecord(
        'reset cursors',
        s,
        `SET ${set.join(', ')} REMOVE ${remove.join(', ')} ADD generation :one`,
        values,
        'epoch = :epoch',
      );
    },
    () =>
      random() < 0.5
        ? updateRecord(
            'release fence',
            shard(),
            'REMOVE leaseOwner, leaseExpiresAtMs, poison, poisonedAtMs',
            { ':epoch': N(int(4)) },
            'epoch = :epoch',
          )
        : updateRecord(
            'release fence, keep poison',
            shard(),
            'SET poison = :poison REMOVE leaseOwner, leaseExpiresAtMs',
            { ':epoch': N(int(4)), ':poison': S('before') },
            'epoch = :epoch',
          ),
    // lib/memtable/watermark.ts
    () =>
      updateRecord(
        'record watermark',
        shard(),
        'SET aofWatermark = :covered, aofWatermarkAtMs = :now',
        { ':covered': N(int(3)), ':now': N(now()) },
        'attribute_exists(pk) AND walNextPos >= :covered AND (attribute_not_exists(aofWatermark) OR aofWatermark < :covered)',
      ),
    // lib/memtable/shard-record.ts: readShardRecord
    () =>
      single(
        'read record',
        new GetItemCommand({ TableName: tableName, Key: record(shard()), ConsistentRead: true }),
      ),
    // lib/memtable: writeBatch (chunk, head), sealVoid, readBatchHead, deleteBatches
    () => {
      const s = shard();
      const seq = 1 + int(6);
      return single(
        'write chunk',
        new PutItemCommand({
          TableName: tableName,
          Item: {
            pk: S(`shard#${s}`),
            sk: S(`${seqSk(seq)}#${String(1 + int(2)).padStart(4, '0')}`),
            data: { B: bytes(int(40)) },
          },
        }),
      );
    },
    () => {
      const s = shard();
      const head: Record<string, AttributeValue> = {
        pk: S(`shard#${s}`),
        sk: S(seqSk(1 + int(6))),
        kind: S('rows'),
        parts: N(1 + int(2)),
        rowCount: N(1 + int(5)),
        bytes: N(10 + int(300)),
        createdAtMs: N(now()),
        data: { B: bytes(1 + int(60)) },
      };
      if (random() < 0.5) head.chargeEnd = N(int(900));
      if (random() < 0.3) head.idemKey = S(`k${int(3)}`);
      return single(
        'write head',
        new PutItemCommand({
          TableName: tableName,
          Item: head,
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
    },
    () => {
      const item: Record<string, AttributeValue> = {
        pk: S(`shard#${shard()}`),
        sk: S(seqSk(1 + int(6))),
        kind: S('void'),
        createdAtMs: N(now()),
      };
      if (random() < 0.5) item.chargeEnd = N(int(900));
      return single(
        'seal void',
        new PutItemCommand({
          TableName: tableName,
          Item: item,
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
    },
    () =>
      single(
        'read batch head',
        new GetItemCommand({
          TableName: tableName,
          Key: { pk: S(`shard#${shard()}`), sk: S(seqSk(1 + int(6))) },
          ConsistentRead: true,
          ProjectionExpression: 'kind, rowCount, idemKey',
        }),
      ),
    () => {
      const s = shard();
      const seqs = [...new Set(Array.from({ length: 1 + int(4) }, () => 1 + int(6)))];
      const keys = seqs.flatMap((seq) => [
        seqSk(seq),
        ...(random() < 0.3 ? [`${seqSk(seq)}#0001`] : []),
      ]);
      return single(
        'delete batches',
        new BatchWriteItemCommand({
          RequestItems: {
            [tableName]: keys.map((sk) => ({
              DeleteRequest: { Key: { pk: S(`shard#${s}`), sk: S(sk) } },
            })),
          },
        }),
      );
    },
    // lib/memtable/table.ts: queryShardItems (+ the projections of batch-heads.ts)
    () => {
      const s = shard();
      const from = int(5);
      const to = from + int(4);
      const projection = random() < 0.4 ? 'sk, kind, createdAtMs, bytes, idemKey' : undefined;
      const limit = random() < 0.6 ? 1 + int(3) : undefined;
      const forward = random() < 0.8;
      return {
        kind: 'pages',
        label: 'query shard items',
        page: (startKey) =>
          new QueryCommand({
            TableName: tableName,
            KeyConditionExpression: 'pk = :pk AND sk BETWEEN :lo AND :hi',
            ProjectionExpression: projection,
            ExpressionAttributeValues: {
              ':pk': S(`shard#${s}`),
              ':lo': S(seqSk(from)),
              ':hi': S(`${seqSk(to)}#~`),
            },
            ConsistentRead: true,
            ExclusiveStartKey: startKey,
            Limit: limit,
            ScanIndexForward: forward,
          }),
      };
    },
    // lib/memtable/pending-index.ts: listPendingShards
    () => {
      const limit = random() < 0.6 ? 1 + int(2) : undefined;
      return {
        kind: 'pages',
        label: 'query pending index',
        page: (startKey) =>
          new QueryCommand({
            TableName: tableName,
            IndexName: 'pending',
            KeyConditionExpression: 'pendingPk = :p',
            ExpressionAttributeValues: { ':p': S('pending') },
            ExclusiveStartKey: startKey,
            Limit: limit,
          }),
      };
    },
    // lib/memtable/list-shards.ts: scanShardRecords
    () => {
      const limit = random() < 0.6 ? 1 + int(4) : undefined;
      return {
        kind: 'pages',
        label: 'scan shard records',
        page: (startKey) =>
          new ScanCommand({
            TableName: tableName,
            FilterExpression: 'sk = :meta',
            ExpressionAttributeValues: { ':meta': S('meta') },
            ConsistentRead: true,
            ExclusiveStartKey: startKey,
            Limit: limit,
          }),
      };
    },
    ...idempotencyCommands(tableName, random),
    // Requests DynamoDB refuses: both must answer ValidationException.
    () => {
      const bad = pick<{ update: string; values: Record<string, AttributeValue> }>([
        { update: 'SET epoch = :missing', values: { ':one': N(1) } },
        { update: 'SET state = :one', values: { ':one': N(1) } },
        { update: 'SET epoch = :one', values: { ':one': N(1), ':unused': N(2) } },
        { update: 'SET epoch = = :one', values: { ':one': N(1) } },
        { update: 'SET epoch = :one ADD epoch :one', values: { ':one': N(1) } },
        { update: 'ADD poison :one', values: { ':one': S('x') } },
        { update: 'SET pk = :one', values: { ':one': S('x') } },
      ]);
      return updateRecord('malformed', shard(), bad.update, bad.values);
    },
  ];
  return (): GeneratedCommand => pick(generators)();
}
