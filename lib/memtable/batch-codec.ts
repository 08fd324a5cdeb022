/**
 * How a batch's rows are stored in DynamoDB: gzip'd row lines, split into
 * chunks under the 400 KB item limit. Write capacity is billed by item size,
 * so the payload is compressed.
 *
 * Encoding `lines-v2` (the head item's `enc`): one line per row, in put
 * order, shaped like a WAL row line without seq and offset:
 *   {"t":"r","k":<key id>,"d":1}            a keyed delete
 *   {"t":"r","k":<key id>,"row":<text>}     a keyed upsert
 *   {"t":"r","row":<text>}                  a keyless row
 * The row text and key id are written verbatim and read back by slicing
 * (`lib/rows`), so a batch holds its rows exactly as sent. Items written
 * before it (no `enc`) hold a gzip'd JSON array of parsed rows; they are still
 * read, their keys as string keys.
 */
import { gunzipSync, gzipSync } from 'node:zlib';
import { CorruptDataError } from '../errors.js';
import { keyIdOfLegacy } from '../rows/key-id.js';
import { RawJson, stringifyLine } from '../rows/raw-json.js';
import type { Row } from '../rows/row.js';
import { readRowLine } from '../rows/row-line.js';

/** One row of a batch: keyless append, keyed upsert, or keyed delete. */
export type BatchRow = Row;

/** Largest payload chunk per item, leaving room for keys and attributes. */
export const MAX_CHUNK_BYTES = 350_000;

/**
 * gzip level of a batch payload, chosen by measured cost (`npm run
 * bench:codec -- 100 gzip`, 100-row puts of 1 KB event rows, prices of
 * `bench/cost/billing/prices.ts`): level 1 saves ~0.8 ms of CPU per put but writes
 * 26 % more write units ($15.05 per million puts against $11.97 at level 6);
 * level 9 writes 1.5 % fewer units for ~0.4 ms more ($11.80). A write unit
 * costs about 500 times a millisecond of the put function's CPU, so the
 * densest gzip level wins. These bytes are compressed once: the flusher
 * writes them into the WAL as they are (WAL v3), and the export reads them.
 */
export const BATCH_GZIP_LEVEL = 9;

/** The encoding this code writes (the head item's `enc`). */
export const BATCH_ENCODING = 'lines-v2';

/** A batch serialized once: what the buffer accounts and what the items store. */
export interface EncodedBatch {
  rowCount: number;
  /** Uncompressed bytes: the figure charged against the shard's buffer. */
  jsonBytes: number;
  /** The uncompressed payload itself (what an idempotency fingerprint covers). */
  json: Uint8Array;
  /** The compressed payload whole: what a spilled batch stores in S3 (`spill.ts`). */
  compressed: Uint8Array;
  /** The compressed payload split to fit items: what a batch kept in DynamoDB stores. */
  chunks: Uint8Array[];
}

/** The payload line of one row. */
function rowLine(row: Row): string {
  return stringifyLine({
    t: 'r',
    k: row.key === undefined ? undefined : new RawJson(row.key),
    d: row.delete ? 1 : undefined,
    row: row.text === undefined || row.delete ? undefined : new RawJson(row.text),
  });
}

/** Serializes and compresses rows into payload chunks. */
export function encodeBatchRows(rows: readonly Row[]): EncodedBatch {
  let text = '';
  for (const row of rows) text += `${rowLine(row)}\n`;
  const json = Buffer.from(text, 'utf8');
  const compressed = gzipSync(json, { level: BATCH_GZIP_LEVEL });
  const chunks: Uint8Array[] = [];
  for (let at = 0; at < compressed.length; at += MAX_CHUNK_BYTES) {
    chunks.push(compressed.subarray(at, at + MAX_CHUNK_BYTES));
  }
  return { rowCount: rows.length, jsonBytes: json.length, json, compressed, chunks };
}

/** Reassembles and decompresses payload chunks written with `encoding` (undefined: legacy). */
export function decodeBatchRows(
  where: string,
  chunks: readonly Uint8Array[],
  encoding: string | undefined,
): Row[] {
  try {
    const text = gunzipSync(Buffer.concat(chunks)).toString('utf8');
    if (encoding === BATCH_ENCODING) return decodeLines(text);
    if (encoding === undefined) return decodeLegacy(text);
    throw new Error(`unknown batch encoding ${JSON.stringify(encoding)}`);
  } catch (error) {
    throw new CorruptDataError(
      where,
      `batch payload does not decode: ${(error as Error).message}`,
      { cause: error },
    );
  }
}

function decodeLines(text: string): Row[] {
  const rows: Row[] = [];
  let start = 0;
  for (let end = text.indexOf('\n'); end !== -1; end = text.indexOf('\n', start)) {
    const line = readRowLine(text.slice(start, end));
    if (line?.fields.t !== 'r') throw new Error(`line ${rows.length + 1} is not a row line`);
    const row: Row = {};
    if (line.keyText !== undefined) row.key = line.keyText;
    if (line.fields.d === 1) row.delete = true;
    else if (line.rowText !== undefined) row.text = line.rowText;
    rows.push(row);
    start = end + 1;
  }
  if (start !== text.length) throw new Error('payload does not end with a newline');
  return rows;
}

function decodeLegacy(text: string): Row[] {
  const parsed: unknown = JSON.parse(text);
  if (!Array.isArray(parsed)) throw new Error('payload is not an array');
  return parsed.map((item: { key?: string; delete?: true; row?: object }) => {
    const row: Row = {};
    if (item.key !== undefined) row.key = keyIdOfLegacy(item.key);
    if (item.delete) row.delete = true;
    if (item.row !== undefined) row.text = JSON.stringify(item.row);
    return row;
  });
}
