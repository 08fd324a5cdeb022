/**
 * Batch items without their payloads: which seqs hold a batch (or a void),
 * when it was written, its bytes and the sort keys of its items. Recovery
 * reconciles these against S3 without reading every payload; a put settling
 * its own seq reads one head.
 */

import { batchItemKey, headFields } from './batch-item.js';
import { groupChunks } from './item-groups.js';
import {
  batchRange,
  batchSk,
  getItem,
  isBatchChunk,
  queryShardItems,
  seqOfBatchSk,
  type Table,
} from './table.js';

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
    const { kind, createdAtMs, bytes, idempotencyKey, chargeEnd } = headFields(head);
    heads.push({
      seq: seqOfBatchSk(sk),
      kind,
      createdAtMs,
      bytes,
      idempotencyKey,
      chargeEnd,
      itemKeys,
    });
  }
  return heads;
}

/** A batch head as a put sees it when settling its own seq. */
export interface BatchHeadSummary {
  kind: 'rows' | 'void';
  rowCount: number;
  idempotencyKey: string | undefined;
  /** The put that wrote it (`WriteBatchInput.putId`). */
  putId: string | undefined;
  /** A void sealed by a rebuild at a seq S3 already holds (rule 3 in `lib/recovery/reconcile-batches.ts`). */
  reissued: boolean;
}

/** Reads the head of batch `seq` (strongly consistent); undefined when nothing is there. */
export async function readBatchHead(
  table: Table,
  shard: string,
  seq: number,
): Promise<BatchHeadSummary | undefined> {
  const { Item: item } = await getItem(
    table,
    batchItemKey(shard, batchSk(seq)),
    'GetItem batch head',
    'kind, rowCount, idemKey, putId, reissued',
  );
  if (!item) return undefined;
  const { kind, rowCount, idempotencyKey, putId, reissued } = headFields(item);
  return { kind, rowCount, idempotencyKey, putId, reissued };
}
