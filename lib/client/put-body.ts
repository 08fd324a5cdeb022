/**
 * The put body around already-serialized rows, its exact size before it is
 * built (batches are cut by it), and the optional gzip `Content-Encoding`.
 *
 *   HTTP: {"rows":[<row>,<row>],"key":"<field>"}
 *   SQS:  {"shard":"<shard>","rows":[<row>,<row>],"key":"<field>"}
 */
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';

const gzipAsync = promisify(gzip);

/** The members around the rows: `shard` for SQS messages, `key` for keyed rows. */
export interface BodyFrame {
  shard?: string;
  keyField?: string;
}

/** The body text of `rowTexts` in `frame`. */
export function frameRows(frame: BodyFrame, rowTexts: readonly string[]): string {
  const shard = frame.shard === undefined ? '' : `"shard":${JSON.stringify(frame.shard)},`;
  const key = frame.keyField === undefined ? '' : `,"key":${JSON.stringify(frame.keyField)}`;
  return `{${shard}"rows":[${rowTexts.join(',')}]${key}}`;
}

/** UTF-8 bytes of the body with no rows; a body with rows adds each row's bytes and a comma between two. */
export function frameOverheadBytes(frame: BodyFrame): number {
  return Buffer.byteLength(frameRows(frame, []));
}

/** When to gzip a body. */
export interface GzipOptions {
  /** Bodies of at least this many bytes are sent gzipped. */
  minBytes: number;
  /** zlib level, 1 (fast) to 9 (small). */
  level: number;
}

/**
 * Defaults of `GzipOptions`. JSON rows shrink 5-10×; below a few KB the
 * saving is smaller than the CPU it costs on both sides.
 */
export const GZIP_DEFAULTS = { minBytes: 8 * 1024, level: 6 } as const;

/** A body ready to send. */
export interface EncodedBody {
  bytes: Uint8Array;
  /** `gzip` when compressed. */
  contentEncoding: 'gzip' | undefined;
  /** Bytes before compression. */
  rawBytes: number;
}

/** `text` as UTF-8, gzipped when `gzipOptions` say so. */
export async function encodeBody(
  text: string,
  gzipOptions: GzipOptions | false,
): Promise<EncodedBody> {
  const raw = Buffer.from(text, 'utf8');
  if (gzipOptions === false || raw.length < gzipOptions.minBytes) {
    return { bytes: raw, contentEncoding: undefined, rawBytes: raw.length };
  }
  const bytes = await gzipAsync(raw, { level: gzipOptions.level });
  return { bytes, contentEncoding: 'gzip', rawBytes: raw.length };
}
