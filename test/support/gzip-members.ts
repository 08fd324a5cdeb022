/** Test helper: the gzip members an object is made of. */
import { inflateRawSync } from 'node:zlib';

/** Byte lengths of the gzip members of `bytes` (each a 10-byte header, raw deflate, an 8-byte trailer). */
export function memberLengths(bytes: Buffer): number[] {
  const lengths: number[] = [];
  for (let at = 0; at < bytes.length; ) {
    if (bytes[at] !== 0x1f || bytes[at + 1] !== 0x8b || bytes[at + 3] !== 0) {
      throw new Error(`no plain gzip member header at byte ${at}`);
    }
    const { engine } = inflateRawSync(bytes.subarray(at + 10), { info: true }) as unknown as {
      engine: { bytesWritten: number };
    };
    const length = 10 + engine.bytesWritten + 8;
    lengths.push(length);
    at += length;
  }
  return lengths;
}
