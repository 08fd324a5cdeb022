/**
 * A flusher the test drives one protocol step at a time: it stops at every
 * fault point until told to go on (or to crash there). Only the driver's
 * chosen actor ever runs, so an interleaving of several flushers, puts and
 * clock moves is replayed exactly from a seed.
 */
import { type FaultPoint, SimulatedCrash } from '../../lib/flush/fault-points.js';
import { type FlushDeps, type FlushOutcome, flushShard } from '../../lib/flush/flush-shard.js';
import type { ObjectStore } from '../../lib/store/object-store.js';

/** How a stepped flusher ended. */
export type SteppedResult = { outcome: FlushOutcome } | { error: unknown };

/** One flush of one shard, advanced by `step`. */
export class SteppedFlusher {
  /** Fault points reached so far, in order. */
  readonly passed: FaultPoint[] = [];
  result: SteppedResult | undefined;
  #resume: { go: () => void; crash: () => void } | undefined;
  #signal: () => void = () => undefined;

  constructor(
    private readonly deps: FlushDeps,
    readonly shard: string,
  ) {}

  /** Starts the flush; resolves once it stops at its first point or ends. */
  async start(): Promise<void> {
    const stopped = this.#nextStop();
    flushShard(
      {
        ...this.deps,
        faults: (point) =>
          new Promise<void>((go, fail) => {
            this.passed.push(point);
            this.#resume = { go, crash: () => fail(new SimulatedCrash(point)) };
            this.#signal();
          }),
      },
      this.shard,
    ).then(
      (outcome) => this.#end({ outcome }),
      (error: unknown) => this.#end({ error }),
    );
    await stopped;
  }

  /** True once the flush returned or threw. */
  get done(): boolean {
    return this.result !== undefined;
  }

  /** Lets the flush run to its next point (or crash at the current one); resolves when it stops. */
  async step(crash = false): Promise<void> {
    const resume = this.#resume;
    if (!resume) return;
    this.#resume = undefined;
    const stopped = this.#nextStop();
    if (crash) resume.crash();
    else resume.go();
    await stopped;
  }

  /** Steps until the flush ends. */
  async finish(): Promise<SteppedResult> {
    while (!this.done) await this.step();
    return this.result!;
  }

  #nextStop(): Promise<void> {
    return new Promise((resolve) => {
      this.#signal = resolve;
    });
  }

  #end(result: SteppedResult): void {
    this.result = result;
    this.#signal();
  }
}

/** An object store whose backend can be swapped (faulty while racing, clean while draining). */
export class SwitchableStore implements ObjectStore {
  constructor(public target: ObjectStore) {}

  putIfAbsent(key: string, body: Uint8Array) {
    return this.target.putIfAbsent(key, body);
  }

  putStreamIfAbsent(key: string, body: AsyncIterable<Uint8Array>) {
    return this.target.putStreamIfAbsent(key, body);
  }

  get(key: string) {
    return this.target.get(key);
  }

  getStream(key: string) {
    return this.target.getStream(key);
  }

  list(prefix: string, options?: { startAfter?: string }) {
    return this.target.list(prefix, options);
  }

  delete(key: string) {
    return this.target.delete(key);
  }
}

export { seededRandom } from '../../lib/seeded-random.js';
