/**
 * The object store port. shardwal needs four things from an object store,
 * and every adapter (S3, filesystem, memory) and decorator (instrumented,
 * fault-injecting) implements exactly these:
 *
 * 1. `putIfAbsent` is atomic create-if-absent: of any number of concurrent
 *    calls for one key, exactly one returns `'created'`; every other returns
 *    `'exists'` and the stored bytes are the winner's, whole. (S3:
 *    `If-None-Match: *`, a 412 is `'exists'`, a 409 is retried.)
 * 1a. `putStreamIfAbsent` is the same create-if-absent for a body that
 *    arrives as a stream (large exports): the adapter holds a bounded part
 *    of it at a time, publishes the object only once the stream ended (no
 *    reader ever sees part of it), and answers `'exists'` without replacing
 *    anything when the key is taken by then. A stream that fails abandons
 *    the write: nothing is published and the stream's error propagates.
 *    (S3: a multipart upload completed with `If-None-Match: *`, aborted on
 *    failure and on 412; filesystem: a temp file linked into place.)
 * 2. `get` returns the whole object or `undefined` when absent.
 * 3. `list` yields keys under a prefix in ascending lexicographic order,
 *    optionally strictly after `startAfter`.
 * 4. `delete` is idempotent.
 *
 * Adapters translate their SDK's or platform's errors into `UnavailableError`
 * (retryable) or `InternalError`; nothing else leaks.
 *
 * Adapters: `S3ObjectStore` (production), `FsObjectStore` (local stack),
 * `MemoryObjectStore` (tests). Decorators: `InstrumentedObjectStore` (request
 * counts for the cost model), `FaultyObjectStore` (simulation).
 * `test/store/contract.ts` holds the suite every adapter must pass.
 */
import type { Readable } from 'node:stream';

/** Outcome of a create-if-absent write. */
export type PutIfAbsentResult = 'created' | 'exists';

/** Options of `list`. */
export interface ListOptions {
  /** Only keys strictly greater than this one. */
  startAfter?: string;
}

/** The object store port. */
export interface ObjectStore {
  /** Writes `body` at `key` only if no object exists there. */
  putIfAbsent(key: string, body: Uint8Array): Promise<PutIfAbsentResult>;
  /** Writes the bytes `body` yields at `key` only if no object exists there once it ended (1a). */
  putStreamIfAbsent(key: string, body: AsyncIterable<Uint8Array>): Promise<PutIfAbsentResult>;
  /** Reads the whole object, or undefined when absent. */
  get(key: string): Promise<Uint8Array | undefined>;
  /** Opens the object as a stream (bounded memory for large exports), or undefined when absent. */
  getStream(key: string): Promise<Readable | undefined>;
  /** Keys under `prefix`, ascending. */
  list(prefix: string, options?: ListOptions): AsyncIterable<string>;
  /** Removes the object; succeeds when it is already absent. */
  delete(key: string): Promise<void>;
}
