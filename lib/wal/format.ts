/**
 * WAL object format: the types and constants. The byte layout is specified
 * in docs/wal-format.md; `encode-batches.ts` writes v3 from compressed
 * batches, `encode.ts` writes v2 from rows, `decode.ts` reads every version.
 */

import type { Row } from '../rows/row.js';

/** First field of every WAL object's header line. */
export const WAL_MAGIC = 'shardwal-wal';

/**
 * The format version the flusher writes. v3 is made of the batches' own gzip
 * members, each behind a batch frame line (`{"t":"b",...}`) that carries its
 * seq, first row offset, row count and buffering time; its row lines carry
 * neither seq nor offset. v2 stores rows and keys exactly (`lib/rows`): `row`
 * is the row's text as sent and `k` a key id, a JSON string or number; every
 * row line names its seq and offset. v1 stored `JSON.stringify` of parsed
 * rows and every key as a string; it is still read, its keys as string keys.
 */
export const WAL_FORMAT_VERSION = 3;

/** The version `encodeWal` writes from rows (no compressed batches at hand: tests, tools). */
export const WAL_ROWS_VERSION = 2;

/** Versions this code reads. */
export const WAL_READABLE_VERSIONS = [1, 2, 3] as const;

/** A JSON object, as rows are. */
export type JsonObject = { [key: string]: JsonValue };
/** Any JSON value. */
type JsonValue = string | number | boolean | null | JsonValue[] | JsonObject;

/** The header of one WAL object. */
export interface WalHeader {
  shard: string;
  /** WAL position of this object; positions are contiguous from 0. */
  position: number;
  /** Epoch of the flusher that wrote it. */
  epoch: number;
  /** First batch seq covered (inclusive). */
  firstSeq: number;
  /** Last batch seq covered (inclusive); every seq in between is either rows or void. */
  lastSeq: number;
  /** Shard-wide offset of the first row. */
  firstRowOffset: number;
  /** Number of row records. */
  rowCount: number;
  /** Seqs in [firstSeq, lastSeq] sealed as void (a put that never wrote its batch). */
  voidSeqs: number[];
  /** Wall-clock time the object was encoded. */
  createdAtMs: number;
}

/** The header's fields, in the order every version writes them (after `t`, `magic` and `v`). */
export const WAL_HEADER_FIELDS = [
  'shard',
  'position',
  'epoch',
  'firstSeq',
  'lastSeq',
  'firstRowOffset',
  'rowCount',
  'voidSeqs',
  'createdAtMs',
] as const satisfies readonly (keyof WalHeader)[];

/** One row record. A keyless row has no key; a delete has a key and no row. */
export interface WalRow extends Row {
  /** Batch seq the row was put in. */
  seq: number;
  /** Shard-wide row offset: firstRowOffset + index in the object. */
  offset: number;
  /**
   * When the row's batch was buffered (its put wrote it), ms since the Unix
   * epoch: recorded from v3 on, undefined for older objects (use
   * `header.createdAtMs` there).
   */
  ingestedAtMs?: number;
}

/** A decoded WAL object. */
export interface WalObject {
  header: WalHeader;
  rows: WalRow[];
}
