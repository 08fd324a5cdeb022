/**
 * WAL object format v1: the types and constants. The byte layout is specified
 * in docs/wal-format.md; `encode.ts` writes it and `decode.ts` reads it.
 */

/** First field of every WAL object's header line. */
export const WAL_MAGIC = 'shardwal-wal';

/** The format version this code writes. */
export const WAL_FORMAT_VERSION = 1;

/** Versions this code reads. */
export const WAL_READABLE_VERSIONS = [1] as const;

/** A JSON object, as rows are. */
export type JsonObject = { [key: string]: JsonValue };
/** Any JSON value. */
export type JsonValue = string | number | boolean | null | JsonValue[] | JsonObject;

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

/** One row record. A keyless row has no key; a delete has a key and no row. */
export interface WalRow {
  /** Batch seq the row was put in. */
  seq: number;
  /** Shard-wide row offset: firstRowOffset + index in the object. */
  offset: number;
  key?: string;
  delete?: true;
  row?: JsonObject;
}

/** A decoded WAL object. */
export interface WalObject {
  header: WalHeader;
  rows: WalRow[];
}
