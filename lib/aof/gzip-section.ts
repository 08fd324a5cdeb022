/**
 * One gzip member of a framed object, compressed as lines arrive and held as
 * compressed chunks. Lines are batched into ~256 KiB writes; compression runs
 * on libuv's thread pool, so the caller keeps parsing while zlib works, and
 * the write buffer is deep enough that a write rarely waits.
 *
 * Keeps the CRC-32 and byte count of the uncompressed lines it was given
 * through `line` (not through `raw`), which is what the framing's trailer needs.
 */
import { once } from 'node:events';
import { createGzip, crc32, type Gzip, type ZlibOptions } from 'node:zlib';

/** Bytes of lines gathered before one write to zlib. */
const WRITE_BATCH_BYTES = 256 * 1024;
/** Bytes zlib may hold unprocessed before a write waits for it. */
const WRITE_BUFFER_BYTES = 4 * 1024 * 1024;

/** A gzip member under construction. */
export class GzipSection {
  readonly #gzip: Gzip;
  readonly #chunks: Buffer[] = [];
  #batch: Buffer[] = [];
  #batchBytes = 0;
  #error: Error | undefined;
  /** CRC-32 of the lines given to `line`. */
  crc = 0;
  /** Uncompressed bytes given to `line`. */
  bytes = 0;
  /** Compressed bytes produced so far. */
  compressedBytes = 0;

  constructor(level: number) {
    // zlib streams pass stream options through to Transform; @types/node omits them.
    const options: ZlibOptions & { writableHighWaterMark: number } = {
      level,
      chunkSize: 64 * 1024,
      writableHighWaterMark: WRITE_BUFFER_BYTES,
    };
    this.#gzip = createGzip(options);
    this.#gzip.on('data', (chunk: Buffer) => {
      this.#chunks.push(chunk);
      this.compressedBytes += chunk.length;
    });
    this.#gzip.on('error', (error) => {
      this.#error = error;
    });
  }

  /** Adds one framed line (with its `\n`), counted in the CRC. Returns a promise only when it must wait. */
  line(bytes: Buffer): Promise<void> | undefined {
    this.crc = crc32(bytes, this.crc);
    this.bytes += bytes.length;
    return this.raw(bytes);
  }

  /** Adds bytes that the CRC must not cover (the trailer). */
  raw(bytes: Buffer): Promise<void> | undefined {
    this.#batch.push(bytes);
    this.#batchBytes += bytes.length;
    return this.#batchBytes >= WRITE_BATCH_BYTES ? this.#flushBatch() : undefined;
  }

  /** Finishes the member; resolves to its compressed chunks. */
  async end(): Promise<Buffer[]> {
    await this.#flushBatch();
    const done = once(this.#gzip, 'end');
    this.#gzip.end();
    await done;
    if (this.#error) throw this.#error;
    return this.#chunks;
  }

  /** Releases zlib's resources without finishing. */
  destroy(): void {
    this.#gzip.destroy();
  }

  async #flushBatch(): Promise<void> {
    if (this.#error) throw this.#error;
    if (this.#batchBytes === 0) return;
    const buffer = this.#batch.length === 1 ? this.#batch[0]! : Buffer.concat(this.#batch);
    this.#batch = [];
    this.#batchBytes = 0;
    if (!this.#gzip.write(buffer)) await once(this.#gzip, 'drain');
  }
}
