/**
 * Reads the framing written by `framing.ts`, from a whole buffer
 * (`readFrameSync`) or a stream (`readFrame`). Both yield the header and
 * then each record as a parsed line, and check the same rules in the same
 * order, so they report the same first violation (as do `scanFrameSync` and
 * `scanFrameRecords`, which read canonical records without the generic parse):
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
import type { Writable } from 'node:stream';
import { createGunzip, gunzipSync, type ZlibOptions } from 'node:zlib';
import { CorruptDataError, InternalError } from '../errors.js';
import {
  type FramedLine,
  FrameParser,
  FrameScanner,
  type FrameSink,
  LineSplitter,
} from './frame-parser.js';
import type { FrameFormat } from './framing.js';

export type { FramedLine, FrameSink } from './frame-parser.js';

/** Reads a whole framed object held in memory. */
export function* readFrameSync(
  objectKey: string,
  bytes: Uint8Array,
  format: FrameFormat,
): Generator<FramedLine, void, undefined> {
  const text = gunzipWhole(objectKey, bytes);
  const parser = new FrameParser(objectKey, format);
  const splitter = new LineSplitter();
  for (const line of splitter.push(text)) {
    const framed = parser.line(line);
    if (framed) yield framed;
  }
  parser.end(splitter.pendingBytes);
}

/**
 * `scanFrameRecords` of a whole object held in memory, on this thread (a
 * reader that holds the object: the tail): same rules, order and errors,
 * and canonical records skip the generic parse. The sink must not ask to
 * wait.
 */
export function scanFrameSync<R>(
  objectKey: string,
  bytes: Uint8Array,
  format: FrameFormat,
  sink: FrameSink<R>,
): void {
  const scanner = new FrameScanner(objectKey, format, sink);
  if (scanner.push(gunzipWhole(objectKey, bytes))) {
    throw new InternalError(`${objectKey}: a synchronous scan's sink asked it to wait`);
  }
  scanner.end();
}

/**
 * Output room zlib gets for a whole object, per compressed byte: more than
 * the JSON lines here compress by (9-10×), so the text comes out in one
 * buffer. With zlib's default (16 KiB) a WAL object of 300 KB comes out in
 * about 18 buffers that `gunzipSync` then copies into one, a quarter of
 * its CPU. Text that compresses better only takes a few buffers more.
 */
const OUTPUT_PER_INPUT_BYTE = 16;
const MIN_OUTPUT_CHUNK = 64 * 1024;
/** At most this much is allocated ahead of the text (the flusher cuts objects at 32 MiB of rows). */
const MAX_OUTPUT_CHUNK = 8 * 1024 * 1024;

/** The decompressed text of a whole gzip object (rule 1). */
function gunzipWhole(objectKey: string, bytes: Uint8Array): Buffer {
  let text: Buffer;
  let consumed: number;
  const chunkSize = Math.min(
    MAX_OUTPUT_CHUNK,
    Math.max(MIN_OUTPUT_CHUNK, bytes.byteLength * OUTPUT_PER_INPUT_BYTE),
  );
  try {
    // `info: true` exposes how many compressed bytes zlib consumed: it silently ignores trailing zeros.
    const result = gunzipSync(bytes, { info: true, chunkSize }) as unknown as GunzipInfo;
    text = result.buffer;
    consumed = result.engine.bytesWritten;
  } catch (error) {
    throw gzipError(objectKey, error);
  }
  checkConsumed(objectKey, consumed, bytes.byteLength);
  return text;
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

/** Bytes of decompressed text a scan takes at a time. */
const SCAN_CHUNK_BYTES = 256 * 1024;

/**
 * Decompressed chunks zlib may hold before a scan takes them. With the
 * stream's default (16 KB, less than a chunk) zlib stops after every chunk
 * until the scan has parsed it, so decompressing and parsing take turns;
 * with room for a few it decompresses while the scan parses.
 */
const READ_AHEAD_CHUNKS = 4;

/**
 * `readFrame` with a callback instead of an async generator, for the hot paths
 * of export and replay: a generator hands every line through an async yield,
 * which costs more than parsing the line; here each decompressed chunk's lines
 * are handled synchronously (`FrameScanner`) and the loop awaits only per
 * chunk, or when `onLine` returns a promise (backpressure). Same rules, order
 * and errors.
 */
export async function scanFrame(
  objectKey: string,
  chunks: AsyncIterable<Uint8Array>,
  format: FrameFormat,
  onLine: LineHandler,
): Promise<void> {
  await scanFrameRecords(objectKey, chunks, format, {
    line: onLine,
    record: () => undefined,
  });
}

/**
 * `scanFrame` for a format with a canonical reader (`FrameSink`): record
 * lines in the writer's exact form reach `sink.record` already read, every
 * other line `sink.line` as `scanFrame` would hand it. Same rules, order and
 * errors. `chunks` are the object's compressed bytes, or a `FrameReadAhead`
 * already decompressing them; `chunkSize` (decompressed bytes per step) is
 * for tests.
 */
export async function scanFrameRecords<R>(
  objectKey: string,
  chunks: AsyncIterable<Uint8Array> | FrameReadAhead,
  format: FrameFormat,
  sink: FrameSink<R>,
  chunkSize = SCAN_CHUNK_BYTES,
): Promise<void> {
  const decompressed =
    chunks instanceof FrameReadAhead ? chunks.chunks() : gunzipChunks(objectKey, chunks, chunkSize);
  const scanner = new FrameScanner(objectKey, format, sink);
  for await (const chunk of decompressed) {
    const wait = scanner.push(chunk);
    if (wait) await wait;
  }
  scanner.end();
}

/**
 * A framed object whose decompression starts now, before its scan: replay
 * and export open the next WAL object while they scan the current one, so
 * zlib (on libuv's thread pool) decompresses it meanwhile instead of making
 * the scan wait for it object after object. Bounded: zlib stops once it
 * holds `READ_AHEAD_CHUNKS` chunks the scan has not taken. Scan it once with
 * `scanFrameRecords`, or `close` it; its source is the caller's to destroy.
 */
export class FrameReadAhead {
  readonly #chunks: AsyncGenerator<Buffer, void, undefined>;
  readonly #first: Promise<IteratorResult<Buffer, void>>;
  #taken = false;

  constructor(
    readonly objectKey: string,
    compressed: AsyncIterable<Uint8Array>,
    chunkSize = SCAN_CHUNK_BYTES,
  ) {
    this.#chunks = gunzipChunks(objectKey, compressed, chunkSize);
    this.#first = this.#chunks.next();
    // An error reaches the scan that takes the chunks; an object never scanned drops it.
    this.#first.catch(() => undefined);
  }

  /** The decompressed chunks, for one scan. */
  async *chunks(): AsyncGenerator<Buffer, void, undefined> {
    if (this.#taken) throw new InternalError(`${this.objectKey}: a read-ahead is scanned once`);
    this.#taken = true;
    const first = await this.#first;
    if (first.done) return;
    yield first.value;
    yield* this.#chunks;
  }

  /** Stops decompressing an object that will not be scanned (destroy its source first). */
  async close(): Promise<void> {
    if (this.#taken) return;
    this.#taken = true;
    await this.#first.catch(() => undefined);
    await this.#chunks.return(undefined);
  }
}

/**
 * Decompresses a stream of gzip chunks (rule 1). Only zlib's own errors mean
 * damaged bytes (`CorruptDataError`); a failing source passes through.
 *
 * The source is written into zlib by a plain loop (waiting for 'drain')
 * rather than through `pipeline(Readable.from(...))`: replay and export read
 * every WAL object this way, and over 150 objects of 2,000 rows the adapter
 * took about 1.7x the time of this loop (which is on a par with `readFile` +
 * `gunzipSync` of the same objects).
 */
async function* gunzipChunks(
  objectKey: string,
  chunks: AsyncIterable<Uint8Array>,
  chunkSize?: number,
): AsyncGenerator<Buffer, void, undefined> {
  // zlib streams pass stream options through to Transform; @types/node omits them.
  const options: ZlibOptions & { readableHighWaterMark?: number } =
    chunkSize === undefined
      ? {}
      : { chunkSize, readableHighWaterMark: READ_AHEAD_CHUNKS * chunkSize };
  const gunzip = createGunzip(options);
  let compressedBytes = 0;
  let sourceError: unknown;
  let gunzipError: unknown;
  gunzip.on('error', (error) => {
    gunzipError ??= error;
  });
  // Never rejects: a source error destroys the stream with it, and surfaces through the iteration below.
  const feed = async (): Promise<void> => {
    try {
      for await (const chunk of chunks) {
        if (gunzip.destroyed) return;
        compressedBytes += chunk.byteLength;
        if (!gunzip.write(chunk) && !gunzip.destroyed) await drained(gunzip);
      }
      if (!gunzip.destroyed) gunzip.end();
    } catch (error) {
      sourceError = error;
      gunzip.destroy(error instanceof Error ? error : new Error(String(error)));
    }
  };
  void feed();
  try {
    yield* gunzip as AsyncIterable<Buffer>;
  } catch (error) {
    if (sourceError !== undefined) throw sourceError;
    if (error === gunzipError) throw gzipError(objectKey, error);
    throw error;
  } finally {
    gunzip.destroy();
  }
  checkConsumed(objectKey, gunzip.bytesWritten, compressedBytes);
}

/** Resolves once `stream` wants more input, or is closed (the feeder then stops). */
function drained(stream: Writable): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      stream.off('drain', done);
      stream.off('close', done);
      resolve();
    };
    stream.on('drain', done);
    stream.on('close', done);
  });
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
