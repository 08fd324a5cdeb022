/**
 * `readFrame` (lib/wal/frame-reader.ts) with a callback instead of an async
 * generator, for the hot paths of export and replay. The generator hands
 * every line through an async yield (a few microtask hops per line, per
 * layer), which costs more than parsing the line; here each decompressed
 * chunk's lines are handled synchronously and the loop awaits only per chunk,
 * or when `onLine` asks it to (a returned promise: backpressure).
 *
 * The rules, their order and the errors are readFrame's: the same
 * `LineSplitter` and `FrameParser` check every line, and gzip damage and
 * bytes after the last gzip member are the same `CorruptDataError`s (the
 * tests hold both readers to one set of cases). This could live beside
 * readFrame; it is here to leave the WAL codec's files untouched.
 */
import { pipeline, Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { CorruptDataError } from '../errors.js';
import { type FramedLine, FrameParser, LineSplitter } from '../wal/frame-parser.js';
import type { FrameFormat } from '../wal/framing.js';

/**
 * Handles one framed line, given also its bytes (without the `\n`; valid only
 * during the call: copy what is kept). May return a promise for the scan to await.
 */
export type LineHandler = (line: FramedLine, bytes: Buffer) => Promise<void> | undefined | void;

/** Scans a framed object from its compressed chunks, calling `onLine` for the header and each record. */
export async function scanFrame(
  objectKey: string,
  chunks: AsyncIterable<Uint8Array>,
  format: FrameFormat,
  onLine: LineHandler,
): Promise<void> {
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
  const gunzip = createGunzip({ chunkSize: 256 * 1024 });
  let gunzipError: unknown;
  gunzip.once('error', (error) => {
    gunzipError = error;
  });
  pipeline(Readable.from(counted()), gunzip, () => {}); // errors surface through the iteration below
  const parser = new FrameParser(objectKey, format);
  const splitter = new LineSplitter();
  try {
    for await (const chunk of gunzip as AsyncIterable<Buffer>) {
      for (const bytes of splitter.push(chunk)) {
        const line = parser.line(bytes);
        if (!line) continue;
        const wait = onLine(line, bytes);
        if (wait) await wait;
      }
    }
  } catch (error) {
    if (error === gunzipError && error !== sourceError) throw gzipError(objectKey, error);
    throw error;
  } finally {
    gunzip.destroy();
  }
  if (gunzip.bytesWritten !== compressedBytes) {
    throw new CorruptDataError(
      objectKey,
      `${compressedBytes - gunzip.bytesWritten} bytes follow the end of the gzip stream`,
    );
  }
  parser.end(splitter.pendingBytes);
}

function gzipError(objectKey: string, cause: unknown): CorruptDataError {
  const detail = cause instanceof Error ? cause.message : String(cause);
  return new CorruptDataError(
    objectKey,
    `not a valid gzip stream (truncated or damaged): ${detail}`,
    { cause },
  );
}
