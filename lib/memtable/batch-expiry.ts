/**
 * Keeping pending batches alive (L5 in `lib/liveness.ts`): every batch item
 * expires by TTL a fixed time after its write, and a shard that stops
 * flushing must not lose what it still has to flush. The scheduled verify
 * extends the expiry of pending items (above `durableSeq`) once less than
 * half their lifetime is left; only a stalled shard ever needs it, so in
 * normal operation this reads one small range and writes nothing. A pending
 * batch whose payload is spilled to S3 also has that payload copied to a
 * fresh key before the bucket's lifecycle rule could remove it (S3 in
 * `spill.ts`).
 */
import { type AttributeValue, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { spillRefOf } from './batch-item.js';
import { hasPendingBatches, num, type ShardRecord, str } from './shard-record.js';
import { RESPILL_AGE_MS, readSpill, writeSpill } from './spill.js';
import {
  batchesFrom,
  batchRange,
  CONDITION_FAILED,
  expiresAt,
  lifetimesOf,
  queryShardItems,
  send,
  seqOfBatchSk,
  shardPk,
  type Table,
} from './table.js';

/** Extends the expiry of `record`'s pending batch items that near it; returns how many it extended. */
export async function extendPendingExpiry(
  table: Table,
  record: ShardRecord,
  nowMs: number,
): Promise<number> {
  const fromSeq = record.durableSeq + 1;
  const toSeq = record.nextSeq - 1;
  if (toSeq < fromSeq) return 0;
  const { batchMs } = lifetimesOf(table);
  const renewBeforeSeconds = (nowMs + batchMs / 2) / 1000;
  let extended = 0;
  // To the end of the batch range, not `nextSeq - 1`: a record restored from a backup may be
  // behind batches still pending, which must live until the rebuild hands them to the flusher.
  // In normal operation nothing lies above `nextSeq - 1`, so the read is the same.
  const items = queryShardItems(
    table,
    record.shard,
    batchesFrom(fromSeq),
    'Query pending batch expiry',
    'sk, expiresAt',
  );
  for await (const item of items) {
    const expires = Number(item.expiresAt?.N ?? Number.POSITIVE_INFINITY);
    if (expires >= renewBeforeSeconds) continue;
    const out = await updateBatchItem(
      table,
      record.shard,
      item.sk!,
      {
        set: 'expiresAt = :expires',
        condition: 'attribute_exists(pk)',
        values: { ':expires': expiresAt(nowMs, batchMs) },
      },
      'UpdateItem extend batch expiry',
    );
    if (typeof out === 'object') extended += 1;
  }
  return extended;
}

/**
 * Copies the spilled payload of each of `record`'s pending batches whose
 * object is `RESPILL_AGE_MS` old to a fresh key and points the head at it
 * (S3 in `spill.ts`); returns how many it copied. The head changes only if it
 * still points at the object read (a concurrent copy wins, ours is an orphan
 * the lifecycle removes); the payload's length and hash stay the same, so a
 * flusher reading either key gets the same bytes.
 */
export async function respillAged(
  table: Table,
  record: ShardRecord,
  nowMs: number,
): Promise<number> {
  const spill = table.spill;
  if (!spill || !hasPendingBatches(record)) return 0;
  let copied = 0;
  const items = queryShardItems(
    table,
    record.shard,
    batchRange(record.durableSeq + 1, record.nextSeq - 1),
    'Query pending spilled batches',
    'sk, putId, createdAtMs, spillKey, spillBytes, spillSha, spillAtMs',
  );
  for await (const item of items) {
    const ref = spillRefOf(item);
    if (!ref) continue;
    const spilledAtMs = num(item, 'spillAtMs', num(item, 'createdAtMs', 0));
    if (nowMs - spilledAtMs < RESPILL_AGE_MS) continue;
    const seq = seqOfBatchSk(str(item, 'sk')!);
    const payload = await readSpill(spill.store(), ref);
    const fresh = await writeSpill(
      spill.store(),
      record.shard,
      seq,
      str(item, 'putId') ?? 'unnamed',
      payload,
      nowMs,
    );
    const out = await updateBatchItem(
      table,
      record.shard,
      item.sk!,
      {
        set: 'spillKey = :fresh, spillAtMs = :now',
        condition: 'spillKey = :old',
        values: {
          ':fresh': { S: fresh.key },
          ':now': { N: String(nowMs) },
          ':old': { S: ref.key },
        },
      },
      'UpdateItem copy spilled payload',
    );
    if (out !== CONDITION_FAILED) copied += 1;
  }
  return copied;
}

/** Sets `update.set` on batch item `sk` of `shard` when `update.condition` holds; `send`'s answer. */
function updateBatchItem(
  table: Table,
  shard: string,
  sk: AttributeValue,
  update: { set: string; condition: string; values: Record<string, AttributeValue> },
  what: string,
) {
  return send(
    table,
    new UpdateItemCommand({
      TableName: table.tableName,
      Key: { pk: { S: shardPk(shard) }, sk },
      UpdateExpression: `SET ${update.set}`,
      ConditionExpression: update.condition,
      ExpressionAttributeValues: update.values,
    }),
    what,
  );
}
