/**
 * A decorator that counts object store requests per operation. The cost
 * model is stated in requests ("no S3 call on the put path", "at most one WAL
 * PUT per active shard per tick"); tests and the benchmark prove it by
 * wrapping the real store in this and reading `counts()`.
 *
 * A streamed create (`putStreamIfAbsent`) counts as one `putIfAbsent`: both
 * create one object (on S3 a long stream is a multipart upload, billed as
 * its create, part and complete requests; docs/recovery.md gives the count).
 */
import type { Readable } from 'node:stream';
import type { ListOptions, ObjectStore, PutIfAbsentResult } from './object-store.js';
import type { StoreOperation } from './store-operation.js';

/** Requests per operation. */
export type StoreRequestCounts = Record<StoreOperation, number>;

/** Called once per request, before it is sent; `key` is the prefix for `list`. */
export type StoreRequestListener = (operation: StoreOperation, key: string) => void;

function zeroCounts(): StoreRequestCounts {
  return { putIfAbsent: 0, get: 0, getStream: 0, list: 0, delete: 0 };
}

/** Wraps any `ObjectStore`, counting each call (failed ones too: they are billed). */
export class InstrumentedObjectStore implements ObjectStore {
  readonly #inner: ObjectStore;
  readonly #onRequest: StoreRequestListener | undefined;
  #counts = zeroCounts();

  constructor(inner: ObjectStore, options: { onRequest?: StoreRequestListener } = {}) {
    this.#inner = inner;
    this.#onRequest = options.onRequest;
  }

  /** A snapshot of the counts since construction or the last `reset()`. */
  counts(): StoreRequestCounts {
    return { ...this.#counts };
  }

  /** Zeroes every count. */
  reset(): void {
    this.#counts = zeroCounts();
  }

  /** Counted as `putIfAbsent`. */
  putIfAbsent(key: string, body: Uint8Array): Promise<PutIfAbsentResult> {
    this.#record('putIfAbsent', key);
    return this.#inner.putIfAbsent(key, body);
  }

  /** Counted as one `putIfAbsent` (one object created). */
  putStreamIfAbsent(key: string, body: AsyncIterable<Uint8Array>): Promise<PutIfAbsentResult> {
    this.#record('putIfAbsent', key);
    return this.#inner.putStreamIfAbsent(key, body);
  }

  /** Counted as `get`. */
  get(key: string): Promise<Uint8Array | undefined> {
    this.#record('get', key);
    return this.#inner.get(key);
  }

  /** Counted as `getStream`. */
  getStream(key: string): Promise<Readable | undefined> {
    this.#record('getStream', key);
    return this.#inner.getStream(key);
  }

  /** Counted once per call, however many pages the listing spans. */
  list(prefix: string, options?: ListOptions): AsyncIterable<string> {
    this.#record('list', prefix);
    return this.#inner.list(prefix, options);
  }

  /** Counted as `delete`. */
  delete(key: string): Promise<void> {
    this.#record('delete', key);
    return this.#inner.delete(key);
  }

  #record(operation: StoreOperation, key: string): void {
    this.#counts[operation] += 1;
    this.#onRequest?.(operation, key);
  }
}
