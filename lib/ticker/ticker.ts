/**
 * The flush-interval ticker as a timer loop (the local stack, and ticks inside
 * one scheduled Lambda invocation).
 *
 * Semantics:
 * T1. The first tick fires one interval after `start()`.
 * T2. Missed ticks are delayed, not burst: the next tick is due one interval
 *     after the previous tick *ends*, however long it ran.
 * T3. Flush requests (size trigger, shutdown) are served before ticks: every
 *     wake-up drains queued requests first, and a request wakes an idle loop
 *     at once rather than waiting for the next tick.
 * T4. Only one tick or request batch runs at a time.
 * T5. `stop()` lets the running work finish, then runs a final tick and the
 *     queued requests, so nothing acked is left buffered.
 * A tick that throws is reported to `onError` and the loop goes on: a failed
 * tick is retried by the next one, never an unhandled rejection.
 */

import { SETTINGS } from '../config.js';
import { ConfigError, UnavailableError } from '../errors.js';
import { logger } from '../observability/telemetry.js';

/** What the ticker drives. */
export interface TickerOptions {
  intervalMs: number;
  /** One tick over every active shard. */
  tick: () => Promise<void>;
  /** Flush the given shards now (requests). */
  flushShards: (shards: string[]) => Promise<void>;
  now?: () => number;
  /** Called with the error of a failed tick; logs it by default. */
  onError?: (error: unknown) => void;
}

interface Waiter {
  resolve: () => void;
  reject: (error: unknown) => void;
}

/** A ticker with a request queue; see the semantics above. */
export class FlushTicker {
  readonly #options: TickerOptions;
  readonly #now: () => number;
  readonly #requests = new Map<string, Waiter[]>();
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #nextTickAt = 0;
  #stopped = true;
  #finished = false;

  constructor(options: TickerOptions) {
    if (!Number.isInteger(options.intervalMs) || options.intervalMs <= 0) {
      throw new ConfigError(
        SETTINGS.flushIntervalMs.env,
        options.intervalMs,
        'expected a whole number of at least 1',
      );
    }
    this.#options = options;
    this.#now = options.now ?? Date.now;
  }

  /** Starts ticking (T1). */
  start(): void {
    this.#stopped = false;
    this.#nextTickAt = this.#now() + this.#options.intervalMs;
    this.#schedule();
  }

  /** Queues a flush of `shard`; resolves once it has run (T3). */
  requestFlush(shard: string): Promise<void> {
    if (this.#finished)
      return Promise.reject(new UnavailableError(`flush ticker stopped; ${shard} was not flushed`));
    return new Promise((resolve, reject) => {
      const waiters = this.#requests.get(shard) ?? [];
      waiters.push({ resolve, reject });
      this.#requests.set(shard, waiters);
      if (!this.#running && !this.#stopped) this.#schedule();
    });
  }

  /** Stops the loop after a final tick and the queued requests (T5). */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#running;
    await this.#drainRequests();
    try {
      await this.#options.tick(); // the final tick's failure is the caller's to see
    } finally {
      await this.#drainRequests();
      this.#finished = true;
    }
  }

  #schedule(): void {
    if (this.#stopped) return;
    if (this.#timer) clearTimeout(this.#timer);
    const delay = this.#requests.size > 0 ? 0 : Math.max(0, this.#nextTickAt - this.#now());
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#running = this.#wake().finally(() => {
        this.#running = undefined;
        this.#schedule();
      });
    }, delay);
  }

  async #wake(): Promise<void> {
    await this.#drainRequests();
    if (this.#stopped || this.#now() < this.#nextTickAt) return;
    try {
      await this.#options.tick();
    } catch (error) {
      (this.#options.onError ?? reportTickError)(error);
    } finally {
      this.#nextTickAt = this.#now() + this.#options.intervalMs; // T2
    }
    await this.#drainRequests();
  }

  async #drainRequests(): Promise<void> {
    while (this.#requests.size > 0) {
      const batch = new Map(this.#requests);
      this.#requests.clear();
      try {
        await this.#options.flushShards([...batch.keys()]);
        for (const waiters of batch.values()) for (const waiter of waiters) waiter.resolve();
      } catch (error) {
        for (const waiters of batch.values()) for (const waiter of waiters) waiter.reject(error);
      }
    }
  }
}

function reportTickError(error: unknown): void {
  logger.error('flush tick failed; the next tick retries', { error: error as Error });
}

/** Inputs of `runTicksUntil`. */
export interface TickLoopOptions {
  intervalMs: number;
  /** Wall-clock time by which the last tick must have started and had `reserveMs` left. */
  deadlineMs: number;
  /** Time kept free at the end for one tick to finish. */
  reserveMs: number;
  tick: () => Promise<void>;
  now: () => number;
  sleep: (ms: number) => Promise<void>;
}

/**
 * Ticks inside one scheduled invocation: at once, then one interval after each
 * tick ends (T2), while a tick can still start with `reserveMs` to spare.
 * Returns the number of ticks run.
 */
export async function runTicksUntil(options: TickLoopOptions): Promise<number> {
  let ticks = 0;
  for (;;) {
    await options.tick();
    ticks++;
    const nextAt = options.now() + options.intervalMs;
    if (nextAt + options.reserveMs > options.deadlineMs) return ticks;
    await options.sleep(nextAt - options.now());
  }
}
