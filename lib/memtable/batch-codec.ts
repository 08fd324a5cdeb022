/**
 * How a batch's rows are stored in DynamoDB: a gzip'd JSON array, split into
 * chunks under the 400 KB item limit. Write capacity is billed by item size,
 * so the payload is compressed.
 */
import { gunzipSync, gzipSync } from 'node:zlib';
import { CorruptDataError } from '../errors.js';
import type { JsonObject } from '../wal/format.js';

/** One row of a batch: keyless append, keyed upsert, or keyed delete. */
export interface BatchRow {
  key?: string;
  delete?: true;
  row?: JsonObject;
}

/** Largest payload chunk per item, leaving room for keys and attributes. */
export const MAX_CHUNK_BYTES = 350_000;

/** A batch serialized once: what the buffer accounts and what the items store. */
export interface EncodedBatch {
  rowCount: number;
  /** Uncompressed JSON bytes: the figure charged against the shard's buffer. */
  jsonBytes: number;
  /** Compressed payload, split to fit items. */
  chunks: Uint8Array[];
}

/** Serializes and compresses rows into payload chunks. */
export function encodeBatchRows(rows: readonly BatchRow[]): EncodedBatch {
  const json = Buffer.from(JSON.stringify(rows), 'utf8');
  const compressed = gzipSync(json, { level: 6 });
  const chunks: Uint8Array[] = [];
  for (let at = 0; at < compressed.length; at += MAX_CHUNK_BYTES) {
    chunks.push(compressed.subarray(at, at + MAX_CHUNK_BYTES));
  }
  return { rowCount: rows.length, jsonBytes: json.length, chunks };
}

/** Reassembles and decompresses payload chunks. */
export function decodeBatchRows(where: string, chunks: readonly Uint8Array[]): BatchRow[] {
  try {
    const parsed: unknown = JSON.parse(gunzipSync(Buffer.concat(chunks)).toString('utf8'));
    if (!Array.isArray(parsed)) throw new Error('payload is not an array');
    return parsed as BatchRow[];
  } catch (error) {
    throw new CorruptDataError(
      where,
      `batch payload does not decode: ${(error as Error).message}`,
      {
        cause: error,
      },
    );
  }
}
