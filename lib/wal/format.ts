/**
 * WAL object format v1: the types and constants. The byte layout is specified
 * in docs/wal-format.md; `encode.ts` writes it and `decode.ts` reads it.
 */

import type { Row } from '../rows/row.js';

/** First field of every WAL object's header line. */
export const WAL_MAGIC = 'shardwal-wal';

/**
 * The format version this code writes. v2 stores rows and keys exactly
 * (`lib/rows`): `row` is the row's text as sent and `k` a key id, a JSON
 * string or number. v1 stored `JSON.stringify` of parsed rows and every key
 * as a string; it is still read, its keys as string keys.
 */
export const WAL_FORMAT_VERSION = 2;

/** Versions this code reads. */
export const WAL_READABLE_VERSIONS = [1, 2] as const;

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
export interface WalRow extends Row {
  /** Batch seq the row was put in. */
  seq: number;
  /** Shard-wide row offset: firstRowOffset + index in the object. */
  offset: number;
  /** When the row's batch was buffered, where the format records it (readers fall back to the header's `createdAtMs`). */
  ingestedAtMs?: number;
}

/** A decoded WAL object. */
export interface WalObject {
  header: WalHeader;
  rows: WalRow[];
}
