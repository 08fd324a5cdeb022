/**
 * Reads a segment the manifest names and checks it against what the
 * manifest recorded: its version (an unknown one is an
 * `UnknownFormatVersionError`), every line's shape, offsets strictly
 * ascending from `firstOffset` to `lastOffset`, seqs never decreasing, and
 * at the end its row count, sizes and CRC-32. A missing segment, or any
 * mismatch, is a `CorruptDataError` naming its key. Rows reach `onRow` before
 * the final check: they are provisional until the read resolves. A table
 * segment (version 2) is read from its table (`table-reader.ts`), with the
 * same checks.
 */
import { CorruptDataError, UnknownFormatVersionError } from '../errors.js';
import { readListedLines, statsMismatch } from '../store/gzip-lines.js';
import type { ObjectStore } from '../store/object-store.js';
import {
  SEGMENT_READABLE_VERSIONS,
  type SegmentRef,
  type SegmentRow,
  segmentKey,
  TABLE_SEGMENT_VERSION,
} from './format.js';
import { parseSegmentLine } from './lines.js';
import { readTableSegment } from './table-reader.js';

/** Where a read segment's rows go; the line's bytes are valid only during the call. */
export type SegmentRowHandler = (row: SegmentRow, line: Buffer) => Promise<void> | undefined | void;

/** Reads `ref` of `shard`, verifying it; resolves once the whole segment checked out. */
export async function readSegment(
  store: ObjectStore,
  shard: string,
  ref: SegmentRef,
  onRow: SegmentRowHandler = () => undefined,
): Promise<void> {
  const key = segmentKey(shard, ref.first);
  if (!(SEGMENT_READABLE_VERSIONS as readonly number[]).includes(ref.v)) {
    throw new UnknownFormatVersionError(key, 'segment', ref.v, SEGMENT_READABLE_VERSIONS);
  }
  if (ref.v === TABLE_SEGMENT_VERSION) return readTableSegment(store, shard, ref, onRow);
  let lastOffset = -1;
  let lastSeq = 0;
  const stats = await readListedLines(store, key, (text, bytes, index, fail) => {
    const row = parseSegmentLine(text, fail);
    const expected = index === 0 ? ref.firstOffset : lastOffset + 1;
    if (index === 0 ? row.offset !== expected : row.offset < expected) {
      fail(`offset ${row.offset}, expected ${index === 0 ? '' : 'at least '}${expected}`);
    }
    if (row.offset > ref.lastOffset)
      fail(`offset ${row.offset} is past lastOffset ${ref.lastOffset}`);
    if (row.seq < lastSeq) fail(`seq ${row.seq} after seq ${lastSeq}; seqs never decrease`);
    lastOffset = row.offset;
    lastSeq = row.seq;
    return onRow(row, bytes);
  });
  const mismatch = statsMismatch(ref, stats);
  if (mismatch) throw new CorruptDataError(key, mismatch);
  if (lastOffset !== ref.lastOffset) {
    throw new CorruptDataError(
      key,
      `ends at offset ${lastOffset}, the manifest says ${ref.lastOffset}`,
    );
  }
}
