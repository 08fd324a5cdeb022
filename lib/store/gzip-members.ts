/**
 * Compresses a stream of batches as independent gzip members, several at once
 * on libuv's thread pool, and yields them in order: their concatenation is
 * one gzip file (RFC 1952 allows any number of members; gunzip, zlib, DuckDB
 * and Athena read it as the concatenated text).
 *
 * One deflate stream is sequential: on a machine with two cores, a single
 * one cost an export as much time as reading the WAL did. Members of about a
 * megabyte lose a few hundredths of a percent of the ratio (deflate's window
 * is 32 KiB) and let every core compress.
 *
 * M1. Members leave in the order their batches arrived.
 * M2. At most `inFlight` members are held (compressing, or done and waiting
 *     for the consumer): `room()` makes the producer wait beyond that, so
 *     memory is bounded by `inFlight` batches whatever the object's size.
 * M3. A compression failure or an abandon ends `members()` with that error,
 *     so a store consuming it never completes the object.
 */
import { gzip, type ZlibOptions } from 'node:zlib';

/**
 * Output buffer of one compression step. zlib's default (16 KiB) takes a
 * main-thread callback per 16 KiB written; a member of a megabyte of lines
 * compresses to a few hundred KiB, so this takes one or two.
 */
const OUTPUT_CHUNK_BYTES = 256 * 1024;

/** Ordered, bounded parallel gzip of batches. */
export class GzipMembers {
  readonly #pending: Promise<Buffer>[] = [];
  #ended = false;
  #error: Error | undefined;
  #wakeConsumer: (() => void) | undefined;
  #wakeProducer: (() => void) | undefined;
  #produced = 0;

  constructor(
    private readonly level: number,
    private readonly inFlight: number,
  ) {}

  /**
   * Starts compressing `batch` (M1). zlib reads it until its member is made:
   * the returned promise resolves then, to the member (undefined when the
   * compression failed: `members()` surfaces that, M3), and only then may
   * the caller reuse `batch`.
   */
  push(batch: Buffer): Promise<Buffer | undefined> {
    const member = compress(batch, { level: this.level, chunkSize: OUTPUT_CHUNK_BYTES });
    this.#pending.push(member);
    this.#produced += 1;
    this.#wake('consumer');
    return member.catch(() => undefined);
  }

  /** Resolves once another member may be pushed (M2); rejects once the queue failed. */
  async room(): Promise<void> {
    while (this.#pending.length >= this.inFlight && this.#error === undefined) {
      await new Promise<void>((resolve) => {
        this.#wakeProducer = resolve;
      });
    }
    if (this.#error) throw this.#error;
  }

  /** No more batches: `members()` ends after the last one (an empty gzip member when there was none). */
  end(): void {
    if (this.#produced === 0) this.push(Buffer.alloc(0));
    this.#ended = true;
    this.#wake('consumer');
  }

  /** Ends `members()` with `error` and wakes a waiting producer with it (M3). */
  fail(error: Error): void {
    this.#error ??= error;
    this.#wake('consumer');
    this.#wake('producer');
  }

  /** The compressed members, in order. */
  async *members(): AsyncGenerator<Buffer> {
    for (;;) {
      if (this.#error) throw this.#error;
      const next = this.#pending[0];
      if (next === undefined) {
        if (this.#ended) return;
        await new Promise<void>((resolve) => {
          this.#wakeConsumer = resolve;
        });
        continue;
      }
      let member: Buffer;
      try {
        member = await next;
      } catch (error) {
        this.fail(error instanceof Error ? error : new Error(String(error)));
        throw this.#error;
      }
      if (this.#error) throw this.#error;
      this.#pending.shift();
      this.#wake('producer');
      yield member;
    }
  }

  #wake(who: 'consumer' | 'producer'): void {
    const wake = who === 'consumer' ? this.#wakeConsumer : this.#wakeProducer;
    if (who === 'consumer') this.#wakeConsumer = undefined;
    else this.#wakeProducer = undefined;
    wake?.();
  }
}

/** `zlib.gzip` as a promise, looked up at each call (a test harness may swap it). */
function compress(batch: Buffer, options: ZlibOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    gzip(batch, options, (error, result) => (error ? reject(error) : resolve(result)));
  });
}
