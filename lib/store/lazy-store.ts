/**
 * A decorator that builds its store on first use: a function that seldom
 * reads or writes objects (the put path, which touches S3 only when a batch
 * spills; the status route, only for a seq old enough to be read from the
 * WAL) does not load the S3 client at its cold start
 * (`lib/runtime/object-store-from-env.ts`, imported dynamically; see
 * docs/deploy.md, "Function sizes").
 *
 * `load` runs once, at the first call of any operation; every call, that one
 * included, then goes to the store it resolved to. A `load` that fails fails
 * that call and every later one with the same error: a store that cannot be
 * built (a missing bundle chunk, a bad setting) stays loud.
 */
import type { Readable } from 'node:stream';
import type { ListOptions, ObjectStore, PutIfAbsentResult } from './object-store.js';

/** Wraps the store that `load` resolves to, calling `load` on first use only. */
export class LazyObjectStore implements ObjectStore {
  readonly #load: () => Promise<ObjectStore>;
  #inner: Promise<ObjectStore> | undefined;

  constructor(load: () => Promise<ObjectStore>) {
    this.#load = load;
  }

  /** The store, loaded by the first call. */
  #store(): Promise<ObjectStore> {
    this.#inner ??= this.#load();
    return this.#inner;
  }

  async putIfAbsent(key: string, body: Uint8Array): Promise<PutIfAbsentResult> {
    return (await this.#store()).putIfAbsent(key, body);
  }

  async putStreamIfAbsent(
    key: string,
    body: AsyncIterable<Uint8Array>,
  ): Promise<PutIfAbsentResult> {
    return (await this.#store()).putStreamIfAbsent(key, body);
  }

  async get(key: string): Promise<Uint8Array | undefined> {
    return (await this.#store()).get(key);
  }

  async getStream(key: string): Promise<Readable | undefined> {
    return (await this.#store()).getStream(key);
  }

  async *list(prefix: string, options?: ListOptions): AsyncIterable<string> {
    yield* (await this.#store()).list(prefix, options);
  }

  async delete(key: string): Promise<void> {
    return (await this.#store()).delete(key);
  }
}
