/**
 * Turns resolved batches into a WAL object, and checks that an existing
 * object holds exactly what the memtable holds for the same seqs (adoption
 * must never hand a seq rows it did not have).
 */
import type { StoredBatch } from '../memtable/batches.js';
import type { ShardRecord } from '../memtable/shard-record.js';
import type { WalObject, WalRow } from '../wal/format.js';

/** Builds the WAL object for the record's next position from contiguous batches. */
export function buildWalObject(
  record: ShardRecord,
  epoch: number,
  batches: readonly StoredBatch[],
  nowMs: number,
): WalObject {
  const rows = walRows(batches, record.nextRowOffset);
  return {
    header: {
      shard: record.shard,
      position: record.walNextPos,
      epoch,
      firstSeq: batches[0]!.seq,
      lastSeq: batches.at(-1)!.seq,
      firstRowOffset: record.nextRowOffset,
      rowCount: rows.length,
      voidSeqs: batches.filter((batch) => batch.kind === 'void').map((batch) => batch.seq),
      createdAtMs: nowMs,
    },
    rows,
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
      rows.push(walRow);
    }
  }
  return rows;
}

/**
 * Why `existing` does not hold exactly `covered` (batches firstSeq..lastSeq
 * of the memtable), or undefined when it does.
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
    if (JSON.stringify(expected[i]) !== JSON.stringify(existing.rows[i])) {
      return `row at offset ${expected[i]!.offset} (seq ${expected[i]!.seq}) differs`;
    }
  }
  return undefined;
}
