/**
 * Batch items without their payloads: which seqs hold a batch (or a void),
 * when it was written, its bytes and the sort keys of its items. Recovery
 * reconciles these against S3 without reading every payload.
 */

import { groupChunks } from './item-groups.js';
import { num, str } from './shard-record.js';
import { batchRange, isBatchChunk, queryShardItems, seqOfBatchSk, type Table } from './table.js';

/** A batch as its head item describes it. */
export interface BatchHead {
  seq: number;
  kind: 'rows' | 'void';
  createdAtMs: number;
  bytes: number;
  idempotencyKey: string | undefined;
  /** Cumulative charge through this batch's allocation, when recorded (A2 in `allocate.ts`). */
  chargeEnd: number | undefined;
  /** Sort keys of the head and its continuation chunks. */
  itemKeys: string[];
}

/** Heads of the batches with seq in [fromSeq, toSeq], ascending. */
export async function listBatchHeads(
  table: Table,
  shard: string,
  fromSeq = 0,
  toSeq = Number.MAX_SAFE_INTEGER,
): Promise<BatchHead[]> {
  const heads: BatchHead[] = [];
  const items = queryShardItems(
    table,
    shard,
    batchRange(fromSeq, toSeq),
    'Query batch heads',
    'sk, kind, createdAtMs, bytes, idemKey, chargeEnd',
  );
  for await (const { head, sk, itemKeys } of groupChunks(items, isBatchChunk)) {
    heads.push({
      seq: seqOfBatchSk(sk),
      kind: str(head, 'kind') === 'void' ? 'void' : 'rows',
      createdAtMs: num(head, 'createdAtMs', 0),
      bytes: num(head, 'bytes', 0),
      idempotencyKey: str(head, 'idemKey'),
      chargeEnd: head.chargeEnd?.N === undefined ? undefined : Number(head.chargeEnd.N),
      itemKeys,
    });
  }
  return heads;
}
