/**
 * The flush-interval ticker as a timer loop (the local stack, and ticks inside
 * one scheduled Lambda invocation), on the wall-clock grid (`grid.ts`).
 *
 * Semantics:
 * T1. Ticks fall on the grid: the first at the first multiple of the interval
 *     since the epoch after `start()`, then one per grid slot (G1).
 * T2. Missed ticks are delayed, not burst: when a tick overruns, the next one
 *     fires as soon as it ends, then ticks return to the grid (G2); ticks are
 *     never queued up back to back.
 * T3. Flush requests (size trigger, shutdown) are served before ticks: every
 *     wake-up drains queued requests first, and a request wakes an idle loop
 *     at once rather than waiting for the next tick.
 * T4. Only one tick or request batch runs at a time.
 * T5. `stop()` lets the running work finish, then runs a final tick and the
 *     queued requests, so nothing acked is left buffered.
 * T6. A tick may start `leadMs()` before its slot, to claim ahead of it
 *     (K1 in `claim-lead.ts`); it still stands for that slot.
 * T7. The wall clock names slots; it never times a wait. Waits run on Node's
 *     timers, which keep monotonic time, and none is longer than one
 *     interval: a wall clock that steps back re-anchors the next slot on the
 *     grid it now shows (the next tick fires within one interval, never
 *     after the step has been waited out), and one that steps forward
 *     collapses the slots it skipped into one tick (T2), never a burst.
 * A tick that throws is reported to `onError` and the loop goes on: a failed
 * tick is retried by the next one, never an unhandled rejection.
 */

import { SETTINGS } from '../config.js';
import { ConfigError, UnavailableError } from '../errors.js';
import { logger } from '../observability/telemetry.js';
import { gridCeil, gridFloor, nextGridTick, nextTickAt, slotOf } from './grid.js';

/** What the ticker drives. */
export interface TickerOptions {
  intervalMs: number;
  /** One tick over every active shard, standing for the grid slot `slotMs`. */
  tick: (slotMs: number) => Promise<void>;
  /** How long before its slot a tick starts (K1 in `claim-lead.ts`); 0 by default. */
  leadMs?: () => number;
  /** Flush the given shards now (requests). */
  flushShards: (shards: string[]) => Promise<void>;
  now?: () => number;
  /** Called with the error of a failed tick; logs it by default. */
  onError?: (error: unknown) => void;
}

/** Longest delay a Node timer takes (about 24.8 days); a longer wait re-arms. */
const MAX_TIMER_MS = 2 ** 31 - 1;

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
  /** The grid slot the next tick stands for, and when it fires (T1, T2). */
  #dueSlot = 0;
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
    this.#dueSlot = nextGridTick(this.#now(), this.#options.intervalMs);
    this.#nextTickAt = this.#dueSlot;
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
      // The final tick's failure is the caller's to see.
      await this.#options.tick(gridFloor(this.#now(), this.#options.intervalMs));
    } finally {
      await this.#drainRequests();
      this.#finished = true;
    }
  }

  #schedule(): void {
    if (this.#stopped) return;
    if (this.#timer) clearTimeout(this.#timer);
    const now = this.#now();
    this.#reanchor(now);
    // Without requests, the timer is the next tick's: when it fires, that tick is due (T7).
    const forTick = this.#requests.size === 0;
    const delay = forTick
      ? Math.min(MAX_TIMER_MS, this.#options.intervalMs, Math.max(0, this.#startAt() - now))
      : 0;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#running = this.#wake(forTick).finally(() => {
        this.#running = undefined;
        this.#schedule();
      });
    }, delay);
  }

  async #wake(tickTimer: boolean): Promise<void> {
    const { intervalMs } = this.#options;
    let timerDue = tickTimer;
    // Loops while the next tick is already due (T2: it fires as soon as the last ends).
    for (;;) {
      await this.#drainRequests();
      if (timerDue && this.#startAt() - this.#now() > intervalMs) {
        // T7: the tick's timer fired, but the wall clock stepped back while it ran:
        // the tick is due all the same, for the latest slot whose start (less the lead) has passed
        // on the clock as it reads now.
        this.#dueSlot = gridFloor(this.#now() + (this.#options.leadMs?.() ?? 0), intervalMs);
        this.#nextTickAt = this.#dueSlot;
      }
      timerDue = false;
      this.#reanchor(this.#now());
      if (this.#stopped || this.#now() < this.#startAt()) return;
      const slot = slotOf(this.#dueSlot, this.#now(), intervalMs);
      try {
        await this.#options.tick(slot);
      } catch (error) {
        (this.#options.onError ?? reportTickError)(error);
      } finally {
        const next = nextTickAt(slot, this.#now(), intervalMs);
        this.#dueSlot = next.slotMs;
        this.#nextTickAt = next.atMs;
      }
    }
  }

  /**
   * T7: when the next start lies more than an interval ahead of `nowMs`, no
   * grid explains it: the wall clock stepped back. The next tick then stands
   * for the first slot after `nowMs` on the grid the clock shows now.
   */
  #reanchor(nowMs: number): void {
    if (this.#startAt() - nowMs <= this.#options.intervalMs) return;
    this.#dueSlot = nextGridTick(nowMs, this.#options.intervalMs);
    this.#nextTickAt = this.#dueSlot;
  }

  /** When the next tick starts: its time, less the lead (T6), never before the last tick ended. */
  #startAt(): number {
    const lead = this.#options.leadMs?.() ?? 0;
    return this.#nextTickAt > this.#dueSlot ? this.#nextTickAt : this.#dueSlot - lead;
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
  /** The loop runs the grid ticks whose slots fall in [fromMs, untilMs): its window. */
  fromMs: number;
  untilMs: number;
  /** No tick starts at or after this (the invocation's own deadline, less a tick's reserve). */
  deadlineMs: number;
  /** One tick, standing for the grid slot `slotMs`. */
  tick: (slotMs: number) => Promise<void>;
  /** How long before its slot a tick starts (T6); 0 by default. */
  leadMs?: () => number;
  now: () => number;
  sleep: (ms: number) => Promise<void>;
}

/**
 * Ticks inside one scheduled invocation: every grid slot of the window (T1),
 * delayed-not-burst (T2). A loop that starts late ticks at once for the
 * latest slot it missed; one whose tick overruns the window's end starts no
 * other (the next window's invocation has the grid from there). Returns the
 * number of ticks run.
 */
export async function runTicksUntil(options: TickLoopOptions): Promise<number> {
  const { intervalMs, untilMs } = options;
  const stopAt = Math.min(untilMs, options.deadlineMs);
  let due = gridCeil(options.fromMs, intervalMs);
  let ticks = 0;
  while (due < untilMs) {
    const wait = due - (options.leadMs?.() ?? 0) - options.now();
    if (wait > 0) await options.sleep(wait);
    const startedAt = options.now();
    if (startedAt >= stopAt) break;
    const slot = slotOf(due, startedAt, intervalMs);
    await options.tick(slot);
    ticks++;
    due = nextTickAt(slot, options.now(), intervalMs).slotMs;
  }
  return ticks;
}
