/**
 * Turns resolved batches into a WAL object (format v3: the batches' own gzip
 * members behind batch frames, `lib/wal/encode-batches.ts`), and checks that
 * an existing object holds exactly what the memtable holds for the same seqs
 * (adoption must never hand a seq rows it did not have).
 */
import { BATCH_ENCODING, encodeBatchRows } from '../memtable/batch-codec.js';
import type { StoredBatch } from '../memtable/read-batches.js';
import type { ShardRecord } from '../memtable/shard-record.js';
import { encodeWalBatches, type FramedBatch, memberTrailer } from '../wal/encode-batches.js';
import type { WalHeader, WalObject, WalRow } from '../wal/format.js';

/** A WAL object ready to write: its header and bytes. */
export interface BuiltWalObject {
  header: WalHeader;
  body: Uint8Array;
}

/** Builds the WAL object for the record's next position from contiguous batches. */
export function buildWalObject(
  record: ShardRecord,
  epoch: number,
  batches: readonly StoredBatch[],
  nowMs: number,
): BuiltWalObject {
  const framed: FramedBatch[] = [];
  for (const batch of batches) if (batch.kind === 'rows') framed.push(framedBatch(batch));
  const header: WalHeader = {
    shard: record.shard,
    position: record.walNextPos,
    epoch,
    firstSeq: batches[0]!.seq,
    lastSeq: batches.at(-1)!.seq,
    firstRowOffset: record.nextRowOffset,
    rowCount: framed.reduce((sum, batch) => sum + batch.rows, 0),
    voidSeqs: batches.filter((batch) => batch.kind === 'void').map((batch) => batch.seq),
    createdAtMs: nowMs,
  };
  return { header, body: encodeWalBatches(header, framed) };
}

/**
 * A batch as a v3 object frames it: its payload as the put compressed it
 * when that is one gzip member of the current encoding whose length the head
 * confirms (E1 in `encode-batches.ts`), else re-encoded from its rows (the
 * first version's batches, or anything unexpected).
 */
function framedBatch(batch: Extract<StoredBatch, { kind: 'rows' }>): FramedBatch {
  const trailer = memberTrailer(batch.payload);
  if (
    batch.encoding === BATCH_ENCODING &&
    batch.rowCount > 0 &&
    trailer !== undefined &&
    trailer.bytes === batch.bytes % 2 ** 32
  ) {
    return {
      seq: batch.seq,
      rows: batch.rowCount,
      ingestedAtMs: batch.createdAtMs,
      member: batch.payload,
      textBytes: batch.bytes,
    };
  }
  const encoded = encodeBatchRows(batch.rows);
  return {
    seq: batch.seq,
    rows: encoded.rowCount,
    ingestedAtMs: batch.createdAtMs,
    member: encoded.compressed,
    textBytes: encoded.jsonBytes,
  };
}

function walRows(batches: readonly StoredBatch[], firstRowOffset: number): WalRow[] {
  const rows: WalRow[] = [];
  for (const batch of batches) {
    if (batch.kind === 'void') continue;
    for (const row of batch.rows) {
      const walRow: WalRow = { seq: batch.seq, offset: firstRowOffset + rows.length };
      if (row.key !== undefined) walRow.key = row.key;
      if (row.delete) walRow.delete = true;
      if (row.text !== undefined) walRow.text = row.text;
      walRow.ingestedAtMs = batch.createdAtMs;
      rows.push(walRow);
    }
  }
  return rows;
}

/**
 * Why `existing` does not hold exactly `covered` (batches firstSeq..lastSeq
 * of the memtable), or undefined when it does. An object older than v3
 * records no buffering times; they are compared where it does.
 */
export function contentMismatch(
  existing: WalObject,
  covered: readonly StoredBatch[],
): string | undefined {
  const { header } = existing;
  const seqs = covered.map((batch) => batch.seq);
  const expectedSeqs = Array.from(
    { length: header.lastSeq - header.firstSeq + 1 },
    (_, i) => header.firstSeq + i,
  );
  if (JSON.stringify(seqs) !== JSON.stringify(expectedSeqs)) {
    return `memtable holds seqs ${seqs[0]}..${seqs.at(-1)} (${seqs.length}) but the object covers ${header.firstSeq}..${header.lastSeq}`;
  }
  const voids = covered.filter((batch) => batch.kind === 'void').map((batch) => batch.seq);
  if (JSON.stringify(voids) !== JSON.stringify(header.voidSeqs)) {
    return `void seqs differ: memtable ${JSON.stringify(voids)}, object ${JSON.stringify(header.voidSeqs)}`;
  }
  const expected = walRows(covered, header.firstRowOffset);
  if (expected.length !== existing.rows.length) {
    return `row count differs: memtable ${expected.length}, object ${existing.rows.length}`;
  }
  for (let i = 0; i < expected.length; i++) {
    const want = expected[i]!;
    if (existing.rows[i]!.ingestedAtMs === undefined) delete want.ingestedAtMs;
    if (JSON.stringify(want) !== JSON.stringify(existing.rows[i])) {
      return `row at offset ${want.offset} (seq ${want.seq}) differs`;
    }
  }
  return undefined;
}
