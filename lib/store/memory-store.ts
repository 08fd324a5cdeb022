/**
 * An in-memory `ObjectStore` for unit tests and simulations. It keeps the
 * port's contract exactly (see `object-store.ts`), so a test that passes here
 * exercises the same guarantees the S3 and filesystem adapters give.
 */
import { Readable } from 'node:stream';
import type { ListOptions, ObjectStore, PutIfAbsentResult } from './object-store.js';

/** An `ObjectStore` held in a `Map`; nothing survives the process. */
export class MemoryObjectStore implements ObjectStore {
  readonly #objects = new Map<string, Uint8Array>();

  /** Number of stored objects. */
  get size(): number {
    return this.#objects.size;
  }

  /** Every stored key, ascending. */
  keys(): string[] {
    return [...this.#objects.keys()].sort();
  }

  /** Create-if-absent; atomic because the check and the set run in one synchronous step. */
  async putIfAbsent(key: string, body: Uint8Array): Promise<PutIfAbsentResult> {
    if (this.#objects.has(key)) return 'exists';
    // Copy so a caller reusing its buffer cannot rewrite a committed object.
    this.#objects.set(key, Uint8Array.from(body));
    return 'created';
  }

  /**
   * Collects the stream, then creates-if-absent in one synchronous step (the
   * stream is read whole first: a memory store holds every object anyway).
   */
  async putStreamIfAbsent(
    key: string,
    body: AsyncIterable<Uint8Array>,
  ): Promise<PutIfAbsentResult> {
    const chunks: Uint8Array[] = [];
    for await (const chunk of body) chunks.push(Uint8Array.from(chunk));
    if (this.#objects.has(key)) return 'exists';
    this.#objects.set(key, Buffer.concat(chunks));
    return 'created';
  }

  /** A copy of the object, so callers cannot mutate what is stored. */
  async get(key: string): Promise<Uint8Array | undefined> {
    const stored = this.#objects.get(key);
    return stored === undefined ? undefined : Uint8Array.from(stored);
  }

  /** The object as a byte stream of one chunk. */
  async getStream(key: string): Promise<Readable | undefined> {
    const stored = this.#objects.get(key);
    if (stored === undefined) return undefined;
    return Readable.from([Buffer.from(stored)], { objectMode: false });
  }

  /** Keys under `prefix`, ascending, strictly after `startAfter` when given. */
  async *list(prefix: string, options: ListOptions = {}): AsyncIterable<string> {
    const { startAfter } = options;
    // Snapshot first: a concurrent put during iteration must not reorder the listing.
    const keys = this.keys().filter(
      (key) => key.startsWith(prefix) && (startAfter === undefined || key > startAfter),
    );
    yield* keys;
  }

  /** Removes the object; absent is fine. */
  async delete(key: string): Promise<void> {
    this.#objects.delete(key);
  }
}
