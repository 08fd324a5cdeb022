/**
 * A segment's rows, only once the segment verified against its manifest
 * record (row count, sizes, CRC-32), so a tail never yields a row of a
 * segment whose bytes are not the ones its export wrote. A segment of up to
 * `bufferBytes` uncompressed bytes is read once (`readSegment`: every line,
 * offsets, then the figures) and held; a larger one is read twice, first its
 * bytes alone against the figures, then parsed line by line as it streams,
 * so memory stays bounded whatever the segment's size.
 *
 * `firstSegmentSeq` reads only a segment's first line, to seek: the seq of
 * its first row. It checks that line's shape and offset; the caller checks
 * the seq again when it reads the segment whole.
 */
import { CorruptDataError, UnknownFormatVersionError } from '../../errors.js';
import {
  SEGMENT_READABLE_VERSIONS,
  type SegmentRef,
  type SegmentRow,
  segmentKey,
  TABLE_SEGMENT_VERSION,
} from '../../segment/format.js';
import { parseSegmentLine } from '../../segment/lines.js';
import { readSegment } from '../../segment/reader.js';
import { readGzipLines, statsMismatch } from '../../store/gzip-lines.js';
import type { ObjectStore } from '../../store/object-store.js';
import { pushToPull } from './push-to-pull.js';

/** Rows per batch handed on from a segment held in memory. */
const BATCH_ROWS = 2048;

/**
 * Yields the rows of `ref` with `seq >= fromSeq`, in non-empty batches,
 * after the segment verified. `firstSeq`, when given, is what a seek read of
 * its first row: the whole read must agree, or the seek was misled and the
 * read fails.
 */
export async function* verifiedSegmentRows(
  store: ObjectStore,
  shard: string,
  ref: SegmentRef,
  fromSeq: number,
  bufferBytes: number,
  firstSeq?: number,
): AsyncGenerator<SegmentRow[], void, undefined> {
  let first = firstSeq !== undefined;
  const checkFirst = (row: SegmentRow) => {
    if (!first) return;
    first = false;
    if (row.seq !== firstSeq) {
      throw new CorruptDataError(
        segmentKey(shard, ref.first),
        `line 1 has seq ${row.seq}, but read a moment ago it had seq ${firstSeq}`,
      );
    }
  };
  // A table segment is read into memory anyway (`lib/segment/table-reader.ts`).
  if (ref.rawBytes <= bufferBytes || ref.v === TABLE_SEGMENT_VERSION) {
    const rows: SegmentRow[] = [];
    await readSegment(store, shard, ref, (row) => {
      checkFirst(row);
      if (row.seq >= fromSeq) rows.push(row);
    });
    for (let at = 0; at < rows.length; at += BATCH_ROWS) yield rows.slice(at, at + BATCH_ROWS);
    return;
  }
  await checkSegmentBytes(store, shard, ref);
  yield* pushToPull<SegmentRow>((emit) =>
    readSegment(store, shard, ref, (row) => {
      checkFirst(row);
      return row.seq >= fromSeq ? emit(row) : undefined;
    }),
  );
}

/**
 * The first of the two reads of a large segment: its bytes against the
 * manifest's record (stored and uncompressed sizes, line count, CRC-32),
 * lines split but not parsed. With these equal, the segment is the one its
 * export wrote; the second read parses and checks each line as it streams.
 */
async function checkSegmentBytes(store: ObjectStore, shard: string, ref: SegmentRef) {
  const key = segmentKey(shard, ref.first);
  if (!(SEGMENT_READABLE_VERSIONS as readonly number[]).includes(ref.v)) {
    throw new UnknownFormatVersionError(key, 'segment', ref.v, SEGMENT_READABLE_VERSIONS);
  }
  const stream = await store.getStream(key);
  if (!stream) throw new CorruptDataError(key, 'missing: the manifest lists it');
  try {
    const mismatch = statsMismatch(ref, await readGzipLines(key, stream, () => undefined));
    if (mismatch) throw new CorruptDataError(key, mismatch);
  } finally {
    stream.destroy();
  }
}

/** Ends a read after its first line. */
const FIRST_LINE_READ = Symbol('first line read');

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The seq of the first row of `ref`, from its first line alone. */
export async function firstSegmentSeq(
  store: ObjectStore,
  shard: string,
  ref: SegmentRef,
): Promise<number> {
  const key = segmentKey(shard, ref.first);
  if (!(SEGMENT_READABLE_VERSIONS as readonly number[]).includes(ref.v)) {
    throw new UnknownFormatVersionError(key, 'segment', ref.v, SEGMENT_READABLE_VERSIONS);
  }
  if (ref.v === TABLE_SEGMENT_VERSION) return firstTableSegmentSeq(store, shard, ref);
  const fail = (problem: string): never => {
    throw new CorruptDataError(key, `line 1: ${problem}`);
  };
  const stream = await store.getStream(key);
  if (!stream) throw new CorruptDataError(key, 'missing: the manifest lists it');
  let first: SegmentRow | undefined;
  try {
    await readGzipLines(key, stream, (bytes) => {
      let text: string;
      try {
        text = utf8.decode(bytes);
      } catch {
        return fail('not valid UTF-8');
      }
      first = parseSegmentLine(text, fail);
      throw FIRST_LINE_READ;
    });
  } catch (error) {
    if (error !== FIRST_LINE_READ) throw error;
  } finally {
    stream.destroy();
  }
  if (!first) throw new CorruptDataError(key, 'empty, but the manifest records rows');
  if (first.offset !== ref.firstOffset) {
    fail(`offset ${first.offset}, the manifest says the segment starts at ${ref.firstOffset}`);
  }
  return first.seq;
}

/** The seq of a table segment's first row: its rows are read from the table (and checked) whole. */
async function firstTableSegmentSeq(
  store: ObjectStore,
  shard: string,
  ref: SegmentRef,
): Promise<number> {
  let first: number | undefined;
  await readSegment(store, shard, ref, (row) => {
    first ??= row.seq;
  });
  return first!;
}
