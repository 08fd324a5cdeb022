/**
 * A fault-injecting decorator for simulation tests. Each request draws one
 * fault, from a per-operation script first, then from seeded probabilities:
 *
 * - `'fail'`: throw `UnavailableError` before the request reaches the store;
 * - `'lostAck'`: perform the request, then throw `UnavailableError` anyway (the
 *   write happened, the caller saw an error: what a timed-out S3 PUT looks like);
 * - `'pass'`: perform it.
 *
 * A streamed create draws from `putIfAbsent`'s script and probabilities: it
 * is the same request to the caller. A `'fail'` strikes before the body is
 * read (the caller's stream is never consumed, as when S3 refuses the
 * upload's first request); a `'lostAck'` after the object was created.
 *
 * Deterministic: given the same script, seed and sequence of calls, the same
 * requests fail. Each unscripted request of an operation with a non-zero
 * probability makes exactly one `random()` draw.
 */
import type { Readable } from 'node:stream';
import { ConfigError, UnavailableError } from '../errors.js';
import type { ListOptions, ObjectStore, PutIfAbsentResult } from './object-store.js';
import type { StoreOperation } from './store-operation.js';

/** What happens to one request. */
export type FaultAction = 'fail' | 'lostAck' | 'pass';

/** Settings of `FaultyObjectStore`. */
export interface FaultyObjectStoreOptions {
  /** Seeded source in [0, 1); required when any probability is above 0. */
  random?: () => number;
  /** Probability per operation that a request fails before it runs. */
  failProbability?: Partial<Record<StoreOperation, number>>;
  /** Probability that a `putIfAbsent` runs and its acknowledgement is lost. */
  lostAckProbability?: number;
  /** Scripted actions per operation, consumed in order before any probability applies. */
  script?: Partial<Record<StoreOperation, FaultAction[]>>;
}

/** Wraps any `ObjectStore`, injecting scripted or seeded random faults. */
export class FaultyObjectStore implements ObjectStore {
  readonly #inner: ObjectStore;
  readonly #random: (() => number) | undefined;
  readonly #failProbability: Partial<Record<StoreOperation, number>>;
  readonly #lostAckProbability: number;
  readonly #script = new Map<StoreOperation, FaultAction[]>();

  constructor(inner: ObjectStore, options: FaultyObjectStoreOptions = {}) {
    this.#inner = inner;
    this.#random = options.random;
    this.#failProbability = options.failProbability ?? {};
    this.#lostAckProbability = options.lostAckProbability ?? 0;
    const probabilities = [
      ...Object.entries(this.#failProbability).map(
        ([op, p]) => [`failProbability.${op}`, p] as const,
      ),
      ['lostAckProbability', this.#lostAckProbability] as const,
    ];
    for (const [setting, p] of probabilities) {
      if (!(p !== undefined && p >= 0 && p <= 1)) {
        throw new ConfigError(setting, p, 'expected 0..1');
      }
      if (p > 0 && this.#random === undefined) {
        throw new ConfigError(setting, p, 'needs a seeded `random` to stay deterministic');
      }
    }
    for (const [op, actions] of Object.entries(options.script ?? {})) {
      this.enqueue(op as StoreOperation, ...(actions ?? []));
    }
  }

  /** Appends scripted actions for `operation`, e.g. to fail a request between two protocol steps. */
  enqueue(operation: StoreOperation, ...actions: FaultAction[]): void {
    this.#script.set(operation, [...(this.#script.get(operation) ?? []), ...actions]);
  }

  /** May fail before, or lose the ack after, the write. */
  putIfAbsent(key: string, body: Uint8Array): Promise<PutIfAbsentResult> {
    return this.#run('putIfAbsent', key, () => this.#inner.putIfAbsent(key, body));
  }

  /** May fail before reading the body, or lose the ack after the write. */
  putStreamIfAbsent(key: string, body: AsyncIterable<Uint8Array>): Promise<PutIfAbsentResult> {
    return this.#run('putIfAbsent', key, () => this.#inner.putStreamIfAbsent(key, body));
  }

  /** May fail; a `'lostAck'` read discards its result. */
  get(key: string): Promise<Uint8Array | undefined> {
    return this.#run('get', key, () => this.#inner.get(key));
  }

  /** May fail; a `'lostAck'` destroys the opened stream. */
  getStream(key: string): Promise<Readable | undefined> {
    return this.#run(
      'getStream',
      key,
      () => this.#inner.getStream(key),
      (stream) => stream?.destroy(),
    );
  }

  /** The fault is drawn at the call; it strikes at the first step of iteration. */
  list(prefix: string, options?: ListOptions): AsyncIterable<string> {
    const action = this.#draw('list');
    const inner = this.#inner;
    return (async function* () {
      if (action === 'fail') throw injected('list', prefix, action);
      // A lost-ack listing runs to the end (the requests happened) and yields nothing.
      for await (const key of inner.list(prefix, options)) {
        if (action === 'pass') yield key;
      }
      if (action === 'lostAck') throw injected('list', prefix, action);
    })();
  }

  /** May fail before, or lose the ack after, the delete. */
  delete(key: string): Promise<void> {
    return this.#run('delete', key, () => this.#inner.delete(key));
  }

  async #run<T>(
    operation: StoreOperation,
    key: string,
    perform: () => Promise<T>,
    discard?: (result: T) => void,
  ): Promise<T> {
    const action = this.#draw(operation);
    if (action === 'fail') throw injected(operation, key, action);
    const result = await perform();
    if (action === 'lostAck') {
      discard?.(result);
      throw injected(operation, key, action);
    }
    return result;
  }

  #draw(operation: StoreOperation): FaultAction {
    const scripted = this.#script.get(operation)?.shift();
    if (scripted !== undefined) return scripted;
    const fail = this.#failProbability[operation] ?? 0;
    const lostAck = operation === 'putIfAbsent' ? this.#lostAckProbability : 0;
    if (this.#random === undefined || fail + lostAck === 0) return 'pass';
    const r = this.#random();
    return r < fail ? 'fail' : r < fail + lostAck ? 'lostAck' : 'pass';
  }
}

function injected(operation: StoreOperation, key: string, action: FaultAction): UnavailableError {
  const what = action === 'fail' ? 'failed before it ran' : 'ran, but its acknowledgement was lost';
  return new UnavailableError(`injected fault: ${operation} ${key} ${what}`);
}
