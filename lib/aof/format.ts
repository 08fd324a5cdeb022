/**
 * AOF export format v1: the types and constants. The byte layout is specified
 * in docs/aof-format.md; `writer.ts` writes it and `reader.ts` reads it. An
 * export is a compacted snapshot of one shard: every WAL position below
 * `coveredPosition` folded into the live keyed rows and the keyless rows.
 */
import type { KeyId } from '../rows/key-id.js';

/** First field of every AOF export's header line. */
export const AOF_MAGIC = 'shardwal-aof';

/**
 * The format version this code writes. v2 carries rows and keys exactly as
 * the WAL v2 does (`lib/rows`): `row` the row's text, `k` a key id. v1 is
 * still read, its keys as string keys.
 */
export const AOF_FORMAT_VERSION = 2;

/** Versions this code reads. */
export const AOF_READABLE_VERSIONS = [1, 2] as const;

/** The header of one export. */
export interface AofHeader {
  shard: string;
  /** WAL positions below this are folded in; the export is stored at `aofKey(shard, coveredPosition)`. */
  coveredPosition: number;
  /** Last batch seq of the covered WAL prefix (0 when it covers nothing). */
  lastSeq: number;
  /** Row offset the first row after the covered prefix takes. */
  nextRowOffset: number;
  /** Number of keyed records (live keys). */
  keyedCount: number;
  /** Number of keyless records. */
  keylessCount: number;
  /** `coveredPosition` of the export this one was folded from; null when folded from WAL position 0. */
  previousExport: number | null;
  /** Wall-clock time the export was built. */
  createdAtMs: number;
}

/** A live keyed row: the newest put of its key, with the seq and offset it came from. */
export interface AofKeyedRow {
  key: KeyId;
  seq: number;
  offset: number;
  /** The row's text as sent. */
  text: string;
}

/** A keyless row, kept in offset order. */
export interface AofKeylessRow {
  seq: number;
  offset: number;
  /** The row's text as sent. */
  text: string;
}

/** One item of a streamed export: the header, then keyed rows (ascending key), then keyless rows. */
export type AofEntry =
  | { kind: 'header'; header: AofHeader }
  | { kind: 'keyed'; row: AofKeyedRow }
  | { kind: 'keyless'; row: AofKeylessRow };

/** A decoded export held whole (tests and small shards). */
export interface AofObject {
  header: AofHeader;
  keyed: AofKeyedRow[];
  keyless: AofKeylessRow[];
}
