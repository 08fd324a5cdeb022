/**
 * One gzip member of a framed object, compressed as lines arrive and held as
 * compressed chunks. Lines are copied into a 256 KiB batch buffer (no
 * allocation per line) that goes to zlib whole; compression runs on libuv's
 * thread pool, so the caller keeps parsing while zlib works, and the write
 * buffer is deep enough that a write rarely waits.
 *
 * Keeps the CRC-32 and byte count of the lines it was given through `line`
 * and `text` (not `raw`), which is what the framing's trailer needs.
 */
import { once } from 'node:events';
import { crc32, createGzip, type Gzip, type ZlibOptions } from 'node:zlib';

/** Bytes of lines gathered before one write to zlib. */
const BATCH_BYTES = 256 * 1024;
/** Bytes zlib may hold unprocessed before a write waits for it. */
const WRITE_BUFFER_BYTES = 4 * 1024 * 1024;
const NEWLINE = 0x0a;

/** A gzip member under construction. */
export class GzipSection {
  readonly #gzip: Gzip;
  readonly #chunks: Buffer[] = [];
  #batch = Buffer.allocUnsafe(BATCH_BYTES);
  #used = 0;
  #error: Error | undefined;
  /** CRC-32 of the lines given to `line` and `text`. */
  crc = 0;
  /** Uncompressed bytes given to `line` and `text`. */
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

  /** Adds `text` and a `\n` as one framed line. Returns a promise only when the caller must wait. */
  text(text: string): Promise<void> | undefined {
    const length = Buffer.byteLength(text) + 1;
    const wait = this.#room(length);
    if (wait) return wait.then(() => this.text(text));
    this.#batch.write(text, this.#used, 'utf8');
    this.#batch[this.#used + length - 1] = NEWLINE;
    this.#count(length);
    return undefined;
  }

  /** Adds `line` (without its `\n`) and a `\n` as one framed line, copying the bytes. */
  line(line: Uint8Array): Promise<void> | undefined {
    const length = line.length + 1;
    const wait = this.#room(length);
    if (wait) return wait.then(() => this.line(line));
    this.#batch.set(line, this.#used);
    this.#batch[this.#used + line.length] = NEWLINE;
    this.#count(length);
    return undefined;
  }

  /** Adds bytes that the CRC must not cover (the trailer). */
  async raw(bytes: Uint8Array): Promise<void> {
    await this.#flush();
    await this.#write(Buffer.from(bytes));
  }

  /** Finishes the member; resolves to its compressed chunks. */
  async end(): Promise<Buffer[]> {
    await this.#flush();
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

  #count(length: number): void {
    this.crc = crc32(this.#batch.subarray(this.#used, this.#used + length), this.crc);
    this.bytes += length;
    this.#used += length;
  }

  /** Makes room for `length` bytes in the batch; a promise when zlib must catch up first. */
  #room(length: number): Promise<void> | undefined {
    if (this.#error) throw this.#error;
    if (this.#used + length <= this.#batch.length) return undefined;
    if (length > BATCH_BYTES && this.#used === 0) {
      this.#batch = Buffer.allocUnsafe(length); // one line larger than a batch
      return undefined;
    }
    return this.#flush();
  }

  async #flush(): Promise<void> {
    if (this.#error) throw this.#error;
    if (this.#used === 0) return;
    const full = this.#batch.subarray(0, this.#used);
    // zlib holds the written buffer until it has compressed it: never reuse it.
    this.#batch = Buffer.allocUnsafe(BATCH_BYTES);
    this.#used = 0;
    await this.#write(full);
  }

  async #write(buffer: Buffer): Promise<void> {
    if (!this.#gzip.write(buffer)) await once(this.#gzip, 'drain');
  }
}
