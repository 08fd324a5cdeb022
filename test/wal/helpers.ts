/** Builders and byte surgery shared by the WAL tests. */
import { crc32, gunzipSync, gzipSync } from 'node:zlib';
import { walKey } from '../../lib/paths.js';
import { readWal } from '../../lib/wal/decode.js';
import type { JsonObject, WalHeader, WalObject, WalRow } from '../../lib/wal/format.js';

/** One batch: its rows (`key` a plain string key, `row` an object), or 'void' for a sealed gap. */
export type BatchSpec = 'void' | Array<{ key?: string; delete?: true; row?: JsonObject }>;

/** Key the tests store objects under (shard s1, position 7, matching `walObject`'s default header). */
export const KEY = walKey('s1', 7);

/** A valid WAL object whose batches take consecutive seqs from `firstSeq`. */
export function walObject(
  batches: BatchSpec[],
  header: Partial<
    Pick<WalHeader, 'shard' | 'position' | 'epoch' | 'firstSeq' | 'firstRowOffset'>
  > = {},
): WalObject {
  const firstSeq = header.firstSeq ?? 10;
  const firstRowOffset = header.firstRowOffset ?? 100;
  const rows: WalRow[] = [];
  batches.forEach((batch, i) => {
    if (batch === 'void') return;
    for (const spec of batch) {
      const row: WalRow = { seq: firstSeq + i, offset: firstRowOffset + rows.length };
      if (spec.key !== undefined) row.key = JSON.stringify(spec.key);
      if (spec.delete) row.delete = true;
      if (spec.row !== undefined) row.text = JSON.stringify(spec.row);
      rows.push(row);
    }
  });
  return {
    header: {
      shard: header.shard ?? 's1',
      position: header.position ?? 7,
      epoch: header.epoch ?? 3,
      firstSeq,
      lastSeq: firstSeq + batches.length - 1,
      firstRowOffset,
      rowCount: rows.length,
      voidSeqs: batches.flatMap((batch, i) => (batch === 'void' ? [firstSeq + i] : [])),
      createdAtMs: 1_700_000_000_000,
    },
    rows,
  };
}

/** The uncompressed text of a gzip'd object. */
export function gunzipText(bytes: Uint8Array): string {
  return gunzipSync(bytes).toString('utf8');
}

/** The lines of an encoded object without its trailer (and without the final newline). */
export function bodyLines(bytes: Uint8Array): string[] {
  return gunzipText(bytes).split('\n').slice(0, -2);
}

/**
 * Gzips `lines` behind a correct trailer, computed here from the spec (not by
 * the framing code), so a test can reach a rule that sits behind the checksum.
 */
export function reframe(lines: string[]): Uint8Array {
  const body = Buffer.from(lines.map((line) => `${line}\n`).join(''), 'utf8');
  const trailer = `{"t":"e","rows":${lines.length - 1},"crc32":${crc32(body)}}\n`;
  return gzipSync(Buffer.concat([body, Buffer.from(trailer)]));
}

/** Re-gzips the object's text after `edit`, leaving the trailer as it was. */
export function editText(bytes: Uint8Array, edit: (text: string) => string): Uint8Array {
  return gzipSync(Buffer.from(edit(gunzipText(bytes)), 'utf8'));
}

/** `bytes` as an async stream of `size`-byte chunks. */
export async function* chunks(bytes: Uint8Array, size: number): AsyncGenerator<Uint8Array> {
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
}

/** Reads an object through the streaming reader into the shape `decodeWal` returns. */
export async function readWalObject(
  key: string,
  bytes: Uint8Array,
  chunkSize = 64,
): Promise<WalObject> {
  let header: WalHeader | undefined;
  const rows: WalRow[] = [];
  for await (const entry of readWal(key, chunks(bytes, chunkSize))) {
    if (entry.kind === 'header') header = entry.header;
    else rows.push(entry.row);
  }
  return { header: header!, rows };
}

/** The error `fn` throws (or rejects with); fails the test when it does not. */
export async function caught(fn: () => unknown): Promise<Error> {
  try {
    await fn();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected an error, none was thrown');
}
