/**
 * Step 3 of the put path: allocate one batch seq with an atomic counter on the
 * shard record and, in the same update, mark the shard pending and add the
 * batch's bytes. The update is refused when the shard is poisoned or its
 * buffered bytes are over the limit, so a refused put leaves no trace.
 */
import { BackpressureError, PoisonedError } from '../errors.js';
import { readShardRecord, updateShardRecord } from './shard-record.js';
import { PENDING_PK, type Table } from './table.js';

/** What the put path needs to know about its allocation. */
export interface Allocation {
  seq: number;
  /** Buffered bytes of the shard including this batch. */
  bufferedBytes: number;
  /** Recovery generation at allocation; a change means the cursors were reset. */
  generation: number;
}

/** Input of `allocateSeq`. */
export interface AllocateInput {
  shard: string;
  bytes: number;
  nowMs: number;
  maxBufferedBytes: number;
  /** Seconds a backpressured caller should wait (about one flush interval). */
  retryAfterSeconds: number;
}

/** Allocates the next batch seq of `shard`; throws PoisonedError or BackpressureError. */
export async function allocateSeq(table: Table, input: AllocateInput): Promise<Allocation> {
  const { shard, bytes, nowMs, maxBufferedBytes } = input;
  const out = await updateShardRecord(
    table,
    shard,
    {
      update:
        'SET nextSeq = if_not_exists(nextSeq, :one) + :one, pendingPk = :pending, pendingShard = :shard, lastAllocAtMs = :now ADD bufferedBytes :bytes',
      // A batch larger than the whole limit is still admitted into an empty buffer,
      // otherwise it could never be written at all.
      condition:
        'attribute_not_exists(poison) AND (attribute_not_exists(bufferedBytes) OR bufferedBytes <= :zero OR bufferedBytes <= :room)',
      values: {
        ':one': { N: '1' },
        ':zero': { N: '0' },
        ':pending': { S: PENDING_PK },
        ':shard': { S: shard },
        ':now': { N: String(nowMs) },
        ':bytes': { N: String(bytes) },
        ':room': { N: String(maxBufferedBytes - bytes) },
      },
    },
    'UpdateItem allocate seq',
  );
  if (out === undefined) {
    // dynalite ignores ReturnValuesOnConditionCheckFailure, so read why.
    const record = await readShardRecord(table, shard);
    if (record?.poison) throw new PoisonedError(shard, record.poison);
    throw new BackpressureError(
      shard,
      record?.bufferedBytes ?? 0,
      maxBufferedBytes,
      input.retryAfterSeconds,
    );
  }
  const record = out;
  return {
    seq: record.nextSeq - 1,
    bufferedBytes: record.bufferedBytes,
    generation: record.generation,
  };
}
