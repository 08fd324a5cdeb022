/**
 * Reads the framing written by `framing.ts`, from a whole buffer
 * (`readFrameSync`) or a stream (`readFrame`). Both yield the header and
 * then each record as a parsed line, and check the same rules in the same
 * order, so they report the same first violation:
 *
 * 1. gzip must decode, and nothing may follow the last gzip member.
 * 2. Each line must be UTF-8 JSON holding an object; line 1 the header, whose
 *    `magic` is checked, then `v` (an unknown version is an
 *    `UnknownFormatVersionError`, before any other header field is looked at).
 * 3. A record tag outside the format's set is an `UnknownRecordTagError`.
 * 4. The trailer's CRC and record count must match what was read, and no
 *    byte may follow it; a missing trailer means the object is truncated.
 *
 * A streaming consumer sees records before the trailer is verified: treat them
 * as provisional until the iteration ends without an error.
 */
import { pipeline, Readable } from 'node:stream';
import { createGunzip, gunzipSync } from 'node:zlib';
import { CorruptDataError } from '../errors.js';
import { type FramedLine, FrameParser, LineSplitter } from './frame-parser.js';
import type { FrameFormat } from './framing.js';

export type { FramedLine } from './frame-parser.js';

/** Reads a whole framed object held in memory. */
export function* readFrameSync(
  objectKey: string,
  bytes: Uint8Array,
  format: FrameFormat,
): Generator<FramedLine, void, undefined> {
  let text: Buffer;
  let consumed: number;
  try {
    // `info: true` exposes how many compressed bytes zlib consumed: it silently ignores trailing zeros.
    const result = gunzipSync(bytes, { info: true }) as unknown as GunzipInfo;
    text = result.buffer;
    consumed = result.engine.bytesWritten;
  } catch (error) {
    throw gzipError(objectKey, error);
  }
  checkConsumed(objectKey, consumed, bytes.byteLength);
  const parser = new FrameParser(objectKey, format);
  const splitter = new LineSplitter();
  for (const line of splitter.push(text)) {
    const framed = parser.line(line);
    if (framed) yield framed;
  }
  parser.end(splitter.pendingBytes);
}

/** Reads a framed object from a stream of compressed chunks (e.g. an S3 body). Source errors pass through unchanged. */
export async function* readFrame(
  objectKey: string,
  chunks: AsyncIterable<Uint8Array>,
  format: FrameFormat,
): AsyncGenerator<FramedLine, void, undefined> {
  const parser = new FrameParser(objectKey, format);
  const splitter = new LineSplitter();
  for await (const chunk of gunzipChunks(objectKey, chunks)) {
    for (const line of splitter.push(chunk)) {
      const framed = parser.line(line);
      if (framed) yield framed;
    }
  }
  parser.end(splitter.pendingBytes);
}

/**
 * Handles one framed line, given also its bytes (without the `\n`; valid only
 * during the call: copy what is kept). May return a promise for the scan to await.
 */
export type LineHandler = (line: FramedLine, bytes: Buffer) => Promise<void> | undefined | void;

/**
 * `readFrame` with a callback instead of an async generator, for the hot paths
 * of export and replay: a generator hands every line through an async yield,
 * which costs more than parsing the line; here each decompressed chunk's lines
 * are handled synchronously and the loop awaits only per chunk, or when
 * `onLine` returns a promise (backpressure). Same rules, order and errors.
 */
export async function scanFrame(
  objectKey: string,
  chunks: AsyncIterable<Uint8Array>,
  format: FrameFormat,
  onLine: LineHandler,
): Promise<void> {
  const parser = new FrameParser(objectKey, format);
  const splitter = new LineSplitter();
  for await (const chunk of gunzipChunks(objectKey, chunks, 256 * 1024)) {
    for (const bytes of splitter.push(chunk)) {
      const line = parser.line(bytes);
      if (!line) continue;
      const wait = onLine(line, bytes);
      if (wait) await wait;
    }
  }
  parser.end(splitter.pendingBytes);
}

/**
 * Decompresses a stream of gzip chunks (rule 1). Only zlib's own errors mean
 * damaged bytes (`CorruptDataError`); a failing source passes through.
 */
async function* gunzipChunks(
  objectKey: string,
  chunks: AsyncIterable<Uint8Array>,
  chunkSize?: number,
): AsyncGenerator<Buffer, void, undefined> {
  let compressedBytes = 0;
  let sourceError: unknown;
  async function* counted(): AsyncGenerator<Uint8Array> {
    try {
      for await (const chunk of chunks) {
        compressedBytes += chunk.byteLength;
        yield chunk;
      }
    } catch (error) {
      sourceError = error;
      throw error;
    }
  }
  const gunzip = createGunzip(chunkSize === undefined ? {} : { chunkSize });
  let gunzipError: unknown;
  gunzip.once('error', (error) => {
    gunzipError = error;
  });
  pipeline(Readable.from(counted()), gunzip, () => {}); // errors surface through the iteration below
  try {
    yield* gunzip as AsyncIterable<Buffer>;
  } catch (error) {
    if (error === gunzipError && error !== sourceError) throw gzipError(objectKey, error);
    throw error;
  } finally {
    gunzip.destroy();
  }
  checkConsumed(objectKey, gunzip.bytesWritten, compressedBytes);
}

interface GunzipInfo {
  buffer: Buffer;
  engine: { bytesWritten: number };
}

function gzipError(objectKey: string, cause: unknown): CorruptDataError {
  const detail = cause instanceof Error ? cause.message : String(cause);
  return new CorruptDataError(
    objectKey,
    `not a valid gzip stream (truncated or damaged): ${detail}`,
    {
      cause,
    },
  );
}

function checkConsumed(objectKey: string, consumed: number, total: number): void {
  if (consumed !== total) {
    throw new CorruptDataError(
      objectKey,
      `${total - consumed} bytes follow the end of the gzip stream`,
    );
  }
}
