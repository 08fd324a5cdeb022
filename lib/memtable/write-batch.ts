/**
 * Step 4 of the put path: write the batch item, conditional on its head not
 * existing (H1 in `batch-item.ts`). The payload goes first, in continuation
 * chunks or spilled to S3; the head is the batch's commit point (S1 in
 * `spill.ts`).
 */
import { randomUUID } from 'node:crypto';
import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import { GapSealedError, PutDeadlineError, SeqTakenError, UnavailableError } from '../errors.js';
import { RetryPolicy, retry } from '../retry.js';
import type { EncodedBatch } from './batch-codec.js';
import { readBatchHead } from './batch-heads.js';
import { chunkItem, rowsHeadItem } from './batch-item.js';
import { type SpillRef, spills, writeSpill } from './spill.js';
import {
  CONDITION_FAILED,
  expiresAt,
  lifetimesOf,
  send,
  sendUnconditional,
  type Table,
} from './table.js';

/** The point past which a put must not write its batch (L1 in `lib/liveness.ts`). */
interface WriteDeadline {
  atMs: number;
  now: () => number;
}

/** Input of `writeBatch`. */
export interface WriteBatchInput {
  shard: string;
  seq: number;
  /** When the seq was allocated (the put's clock): bounds how old the shard's pending data is (L5). */
  allocatedAtMs?: number;
  /** The rows, serialized once by `encodeBatchRows`. */
  batch: EncodedBatch;
  /** Bytes accounted against the shard's buffer (same figure given to allocateSeq). */
  bytes: number;
  /** The allocation's cumulative charge (A2 in `allocate.ts`). */
  chargeEnd?: number;
  nowMs: number;
  idempotencyKey?: string;
  /** No item is sent once this has passed. */
  deadline?: WriteDeadline;
  /** Identifies this put's write (a fresh one by default): what tells its own item from another's. */
  putId?: string;
}

/**
 * Writes batch `input.seq`. Throws GapSealedError when the seq was sealed
 * void first (nothing of ours is read: chunks or a spilled payload we wrote
 * are referenced by nothing and expire),
 * PutDeadlineError when the deadline passed before the head was written, and
 * UnavailableError when the outcome is unknown (a lost response). In the last
 * two cases the caller settles the seq (`settleOwnSeq`) to learn or decide it.
 */
export async function writeBatch(table: Table, input: WriteBatchInput): Promise<void> {
  const { shard, seq } = input;
  const expires = expiresAt(input.nowMs, lifetimesOf(table).batchMs);
  const putId = input.putId ?? randomUUID();
  const checkDeadline = () => {
    if (input.deadline && input.deadline.now() >= input.deadline.atMs) {
      throw new PutDeadlineError(shard, seq);
    }
  };
  // The payload first, in S3 or in continuation chunks: the head is the commit point (S1).
  let spilled: SpillRef | undefined;
  const spill = table.spill;
  if (spills(spill, input.batch.compressed.length)) {
    checkDeadline();
    spilled = await writeSpill(spill.store(), shard, seq, putId, input.batch.compressed);
  }
  const chunks = spilled ? [] : input.batch.chunks;
  for (let part = 1; part < chunks.length; part++) {
    checkDeadline();
    await sendUnconditional(
      table,
      new PutItemCommand({
        TableName: table.tableName,
        Item: chunkItem({ shard, seq, part, data: chunks[part]!, expiresAt: expires }),
      }),
      'PutItem batch chunk',
    );
  }
  const head = rowsHeadItem({
    shard,
    seq,
    parts: chunks.length,
    rowCount: input.batch.rowCount,
    bytes: input.bytes,
    nowMs: input.nowMs,
    expiresAt: expires,
    putId,
    payload: spilled ? { spilled } : { data: chunks[0]! },
    allocatedAtMs: input.allocatedAtMs,
    chargeEnd: input.chargeEnd,
    idempotencyKey: input.idempotencyKey,
  });
  // The write may have landed with its response lost: re-sending is safe because the
  // seq is ours alone, and a condition failure below tells the two cases apart.
  const out = await retry(
    RetryPolicy.resendWrite,
    () => {
      checkDeadline();
      return send(
        table,
        new PutItemCommand({
          TableName: table.tableName,
          Item: head,
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
        'PutItem batch',
      );
    },
    { retryable: (error) => error instanceof UnavailableError },
  );
  if (out === CONDITION_FAILED) {
    // Something is at our seq: our own earlier attempt (a lost response), a void seal, or,
    // when the shard record was rolled back behind the memtable, another put's old batch.
    // Only the put id tells ours apart; nothing removes an item within a put's deadline (L5).
    const found = await readBatchHead(table, shard, seq);
    if (found?.kind === 'rows' && found.putId === putId) return;
    // What we wrote besides the head (chunks, a spilled payload) stays behind, referenced by
    // nothing: TTL and the lifecycle rule remove it, at no charge (a delete bills like a write).
    if (found?.kind === 'rows') throw new SeqTakenError(shard, seq);
    throw new GapSealedError(shard, seq);
  }
}
