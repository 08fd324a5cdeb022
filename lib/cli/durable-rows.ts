/**
 * A shard's durable rows in order, read through the WAL reader: WAL objects
 * listed ascending from `fromPos`, each decoded and verified whole (checksum,
 * version, tags) before any of its rows is yielded, so a corrupt object is
 * reported, naming it, before a single row of it is printed. Memory stays
 * bounded by one WAL object.
 *
 * The chain must be contiguous: positions without a hole, each object's
 * first seq and first row offset following the previous object's (or, for
 * the first, the export's end when the dump starts from one). A break is a
 * `CorruptDataError` naming the object (or the missing key), never a skip.
 */
import { CorruptDataError } from '../errors.js';
import { positionOfKey, walKey, walPrefix } from '../paths.js';
import type { ObjectStore } from '../store/object-store.js';
import { decodeWal } from '../wal/decode.js';
import type { WalHeader, WalRow } from '../wal/format.js';

/** Which positions to read. */
export interface WalRange {
  /** First position (the export watermark, or 0). */
  fromPos: number;
  /** Stop before this position (the shard record's `walNextPos`); undefined: read all listed. */
  endPos?: number;
  /** Where the export below `fromPos` ends: the first object must continue it. */
  after?: { lastSeq: number; nextRowOffset: number };
}

/** Yields each durable row of `shard` in `range`, in WAL order. */
export async function* readDurableRows(
  store: ObjectStore,
  shard: string,
  range: WalRange,
): AsyncGenerator<WalRow, { objects: number }, undefined> {
  let expected = range.fromPos;
  let previous: Ends | undefined = range.after && {
    lastSeq: range.after.lastSeq,
    nextOffset: range.after.nextRowOffset,
    what: 'the export below it',
  };
  const startAfter = range.fromPos > 0 ? walKey(shard, range.fromPos - 1) : undefined;
  for await (const key of store.list(walPrefix(shard), { startAfter })) {
    const position = positionOfKey(key);
    if (position === undefined) throw new CorruptDataError(key, 'not a WAL object key');
    if (range.endPos !== undefined && position >= range.endPos) break;
    if (position !== expected) {
      throw new CorruptDataError(
        walKey(shard, expected),
        `missing: the WAL of shard ${shard} jumps from position ${expected - 1} to ${position}`,
      );
    }
    const bytes = await store.get(key);
    if (bytes === undefined) throw new CorruptDataError(key, 'listed but gone when read');
    const { header, rows } = decodeWal(key, bytes);
    if (previous) checkFollows(key, previous, header);
    yield* rows;
    previous = {
      lastSeq: header.lastSeq,
      nextOffset: header.firstRowOffset + header.rowCount,
      what: 'the previous object',
    };
    expected++;
  }
  if (range.endPos !== undefined && expected < range.endPos) {
    throw new CorruptDataError(
      walKey(shard, expected),
      `missing: the shard record says the WAL reaches position ${range.endPos - 1}`,
    );
  }
  return { objects: expected - range.fromPos };
}

/** Where what precedes an object ends. */
interface Ends {
  lastSeq: number;
  nextOffset: number;
  /** For messages: `the previous object` or `the export below it`. */
  what: string;
}

function checkFollows(key: string, previous: Ends, header: WalHeader): void {
  if (header.firstSeq !== previous.lastSeq + 1) {
    throw new CorruptDataError(
      key,
      `starts at seq ${header.firstSeq}, but ${previous.what} ends at seq ${previous.lastSeq}`,
    );
  }
  if (header.firstRowOffset !== previous.nextOffset) {
    throw new CorruptDataError(
      key,
      `starts at row offset ${header.firstRowOffset}, but ${previous.what} ends before ${previous.nextOffset}`,
    );
  }
}
