/**
 * Reading batches with their payloads: what the flusher resolves (step 3 of
 * the flush protocol) and recovery replays. A spilled payload is read from S3
 * and checked against its head (S2 in `spill.ts`); rows are decoded only when
 * asked for, since the flusher passes the payload into the WAL as it is.
 */
import { InternalError } from '../errors.js';
import { mapWithConcurrency } from '../ticker/concurrency.js';
import { type BatchRow, decodeBatchRows } from './batch-codec.js';
import { headFields, payloadParts, spillRefOf } from './batch-item.js';
import { groupChunks, type ItemGroup } from './item-groups.js';
import { readSpill } from './spill.js';
import { batchRange, isBatchChunk, queryShardItems, seqOfBatchSk, type Table } from './table.js';

/** A batch as the flusher reads it. */
export type StoredBatch = (
  | {
      seq: number;
      kind: 'rows';
      /** The rows, decoded on first read (the flusher writes `payload` as it is). */
      rows: BatchRow[];
      /** Rows in the batch, as its head records. */
      rowCount: number;
      /** Uncompressed payload bytes (what the buffer was charged). */
      bytes: number;
      /** The compressed payload, whole: one gzip member of `encoding` (`batch-codec.ts`). */
      payload: Uint8Array;
      /** The payload's encoding (undefined: the first version's JSON array). */
      encoding: string | undefined;
    }
  | { seq: number; kind: 'void'; bytes: 0 }
) & {
  createdAtMs: number;
  /** Cumulative charge through this batch's allocation (A2 in `allocate.ts`), when known. */
  chargeEnd: number | undefined;
  /** When its put allocated the seq, when recorded (L5 in `lib/liveness.ts`). */
  allocatedAtMs: number | undefined;
  /** Sort keys of every item of this batch (head and chunks), for deletion. */
  itemKeys: string[];
};

/** Options of `readBatches`. */
export interface ReadBatchesInput {
  shard: string;
  /** First seq to read (inclusive). */
  fromSeq: number;
  /** Last seq to read (inclusive). */
  toSeq: number;
  /** Stop after the batch that reaches this many bytes (at least one batch is returned). */
  maxBytes: number;
}

/** Reads batch heads and chunks in [fromSeq, toSeq], ascending; missing seqs are simply absent. */
export async function readBatches(table: Table, input: ReadBatchesInput): Promise<StoredBatch[]> {
  const { shard } = input;
  let bytes = 0;
  const items = queryShardItems(
    table,
    shard,
    batchRange(input.fromSeq, input.toSeq),
    'Query batches',
  );
  const groups: ItemGroup[] = [];
  for await (const group of groupChunks(items, isBatchChunk)) {
    groups.push(group);
    const head = headFields(group.head);
    if (head.kind !== 'void') bytes += head.bytes;
    if (bytes >= input.maxBytes) break;
  }
  // Spilled payloads are read from S3 side by side; the rest are decoded as they are.
  return mapWithConcurrency(groups, SPILL_READS_IN_FLIGHT, async (group) =>
    toStoredBatch(shard, group, await payloadOf(table, shard, group)),
  );
}

/** Spilled payloads read at once by one `readBatches`. */
export const SPILL_READS_IN_FLIGHT = 16;

/** The compressed payload parts of a batch group: its items' data, or its spilled object (S2). */
export async function payloadOf(
  table: Table,
  shard: string,
  group: ItemGroup,
): Promise<Uint8Array[]> {
  const ref = spillRefOf(group.head);
  if (ref === undefined) return group.payload;
  if (!table.spill) {
    throw new InternalError(
      `shard ${shard} ${group.sk}: its payload is spilled to ${ref.key} but this process has no object store for the table`,
    );
  }
  return [await readSpill(table.spill.store(), ref)];
}

function toStoredBatch(shard: string, group: ItemGroup, payload: Uint8Array[]): StoredBatch {
  const { itemKeys } = group;
  const head = headFields(group.head);
  const seq = seqOfBatchSk(group.sk);
  const { createdAtMs, chargeEnd, allocatedAtMs } = head;
  if (head.kind === 'void') {
    return { seq, kind: 'void', bytes: 0, createdAtMs, chargeEnd, allocatedAtMs, itemKeys };
  }
  const parts = payloadParts(group.head);
  if (payload.length !== parts) {
    throw new InternalError(
      `shard ${shard} batch ${seq}: expected ${parts} chunks, got ${payload.length}`,
    );
  }
  const { encoding } = head;
  const whole = payload.length === 1 ? payload[0]! : Buffer.concat(payload);
  let rows: BatchRow[] | undefined;
  return {
    seq,
    kind: 'rows',
    // Decoded only when read: the flusher passes the payload into the WAL as it is.
    get rows(): BatchRow[] {
      rows ??= decodeBatchRows(`shard ${shard} batch ${seq}`, [whole], encoding);
      return rows;
    },
    rowCount: head.rowCount,
    bytes: head.bytes,
    payload: whole,
    encoding,
    createdAtMs,
    chargeEnd,
    allocatedAtMs,
    itemKeys,
  };
}
