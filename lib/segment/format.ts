/**
 * Segments: a shard's keyless history in immutable objects (docs/segment-format.md).
 * The contract of `lib/segment/`:
 *
 * 1. A segment holds every keyless row of the WAL positions [first, end), in
 *    offset order, one line each: `{"seq":S,"offset":O,"row":<row>}`, the row
 *    exactly as sent. No header, no trailer: a stock NDJSON reader
 *    (`gzip -dc`, DuckDB's `read_ndjson`, Athena's JSON SerDe) reads rows only.
 * 2. Its key is named by `first` (`shards/<shard>/seg/<first>.ndjson.gz`),
 *    where `first` is the WAL position of its first row; it is written once,
 *    create-if-absent, and never rewritten.
 * 3. Its version, range, row count, sizes and CRC-32 are recorded in the
 *    manifest that lists it; a reader checks the object against them and
 *    fails loud on any difference.
 */
/**
 * Segment format v1: the types, constants and keys. The layout is specified
 * in docs/segment-format.md. A segment is one shard's keyless rows from a
 * contiguous range of WAL positions, written once by export and never
 * rewritten; its version, range, row count and checksum live in the manifest
 * that lists it (`lib/manifest`), not in the object, so a stock NDJSON reader
 * sees nothing but rows.
 */
import { POSITION_DIGITS, padPosition } from '../paths.js';
import type { LineStats } from '../store/gzip-lines.js';

/** The version of a segment stored as its own object (recorded per segment in the manifest). */
export const SEGMENT_FORMAT_VERSION = 1;

/**
 * The version of a table segment: its rows are held by an Iceberg table's
 * data files (`table`), not by an object of its own (zero-copy,
 * docs/segment-format.md). Only a format-2 manifest lists one.
 */
export const TABLE_SEGMENT_VERSION = 2;

/** Versions this code reads. */
export const SEGMENT_READABLE_VERSIONS = [1, 2] as const;

/** Suffix of every segment key: gzip'd JSON Lines, as stock readers expect. */
const SEGMENT_SUFFIX = '.ndjson.gz';

/**
 * A segment as its manifest records it. Sizes and CRC-32 are those of its
 * lines (`lines.ts`); a table segment's `bytes` is 0 (it stores none), its
 * `rawBytes` and `crc32` those of the lines its rows make.
 */
export interface SegmentRef extends LineStats {
  /** Format version. */
  v: number;
  /** WAL position of the object holding its first row; the key is named by it. */
  first: number;
  /** First WAL position after its range: it holds every keyless row of [first, end). */
  end: number;
  /** Row offset of its first and last row. */
  firstOffset: number;
  lastOffset: number;
  /** When the export that wrote it ran. */
  createdAtMs: number;
  /** Version 2 only: the table whose data files hold its rows. */
  table?: string;
}

/** One keyless row of a segment. */
export interface SegmentRow {
  seq: number;
  offset: number;
  /** The row's text as sent. */
  text: string;
}

/** Prefix of a shard's segments. */
export function segmentPrefix(shard: string): string {
  return `shards/${shard}/seg/`;
}

/** Key of the segment whose first row is in the WAL object at `first`. */
export function segmentKey(shard: string, first: number): string {
  return `${segmentPrefix(shard)}${padPosition(first)}${SEGMENT_SUFFIX}`;
}

const SEGMENT_KEY = new RegExp(`/seg/(\\d{${POSITION_DIGITS}})\\.ndjson\\.gz$`);

/** The `first` position a segment key names; undefined when the key is not a segment's. */
export function firstOfSegmentKey(key: string): number | undefined {
  const match = SEGMENT_KEY.exec(key);
  return match ? Number(match[1]) : undefined;
}

/** The segments that are objects of their own, in order (a table segment has no object: its table holds its rows). */
export function storedSegments(segments: readonly SegmentRef[]): SegmentRef[] {
  return segments.filter((segment) => segment.v !== TABLE_SEGMENT_VERSION);
}
