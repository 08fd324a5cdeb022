/**
 * Strict UTF-8 for request bodies (RFC 3629): ill-formed bytes are refused
 * with the offset of the first bad sequence, never replaced with U+FFFD (a
 * replaced char would be a changed row). A leading byte order mark is kept as
 * U+FEFF; `parseExact`'s `bom` option decides whether it is skipped, so the
 * HTTP path (bytes) and the SQS path (text) follow one policy.
 *
 * Validation is `buffer.isUtf8` (simdutf in Node 20), then Node's decoder;
 * measured a little faster than `TextDecoder` with `fatal: true`
 * (bench/json-scan.ts). The byte-by-byte walk runs only to explain a failure.
 */
import { isUtf8 } from 'node:buffer';
import { InternalError } from '../errors.js';
import { InvalidUtf8Error } from './errors.js';

/** Where and why `bytes` are not UTF-8, or undefined when they are. */
export function findInvalidUtf8(bytes: Uint8Array): { offset: number; detail: string } | undefined {
  const length = bytes.length;
  let i = 0;
  while (i < length) {
    const lead = bytes[i]!;
    if (lead < 0x80) {
      i++;
      continue;
    }
    let size: number;
    let min: number;
    let point: number;
    if (lead >= 0xc2 && lead <= 0xdf) [size, min, point] = [2, 0x80, lead & 0x1f];
    else if (lead >= 0xe0 && lead <= 0xef) [size, min, point] = [3, 0x800, lead & 0x0f];
    else if (lead >= 0xf0 && lead <= 0xf4) [size, min, point] = [4, 0x10000, lead & 0x07];
    else if (lead >= 0x80 && lead <= 0xbf) {
      return { offset: i, detail: `unexpected continuation byte 0x${hex(lead)}` };
    } else {
      return { offset: i, detail: `byte 0x${hex(lead)} never appears in UTF-8` };
    }
    for (let k = 1; k < size; k++) {
      const next = bytes[i + k];
      if (next === undefined) return { offset: i, detail: 'truncated sequence at end of input' };
      if ((next & 0xc0) !== 0x80) {
        return {
          offset: i,
          detail: `expected a continuation byte at ${i + k}, got 0x${hex(next)}`,
        };
      }
      point = (point << 6) | (next & 0x3f);
    }
    if (point < min) return { offset: i, detail: `overlong encoding of U+${hex(point, 4)}` };
    if (point >= 0xd800 && point <= 0xdfff) {
      return { offset: i, detail: `encoded surrogate U+${hex(point, 4)}` };
    }
    if (point > 0x10ffff)
      return { offset: i, detail: `code point U+${hex(point, 4)} above U+10FFFF` };
    i += size;
  }
  return undefined;
}

function hex(value: number, width = 2): string {
  return value.toString(16).toUpperCase().padStart(width, '0');
}

/**
 * Decodes `bytes` as strict UTF-8. Throws InvalidUtf8Error naming `field` and
 * the offset of the first ill-formed byte.
 */
export function decodeUtf8Strict(bytes: Uint8Array, field = 'body'): string {
  if (!isUtf8(bytes)) {
    const found = findInvalidUtf8(bytes);
    // The two validators implement one spec; disagreeing is a bug, not bad input.
    if (found === undefined)
      throw new InternalError(`${field}: isUtf8 refused bytes the walk accepts`);
    throw new InvalidUtf8Error(field, found.offset, found.detail);
  }
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
}
