/**
 * How much of a tick one invocation does itself, and with how many flushes in
 * flight, derived from the interval and the number of active shards unless
 * `SHARDWAL_FLUSH_CONCURRENCY` / `SHARDWAL_MAX_SHARDS_PER_TICK` override it.
 *
 * A flush is a handful of dependent round trips (read, claim, resolve, S3
 * PUT, commit, clear), so its wall time is mostly waiting: enough of them in
 * flight fill the interval. Past a point the invocation's CPU is the limit
 * (each request is signed, serialized and parsed), which shows up as a longer
 * measured flush time at the same concurrency; the share flushed here then
 * shrinks to what fits the budget and the rest is fanned out to workers.
 *
 * P1. A tick flushes its shards all at once, up to `maxConcurrency`: a
 *     durable put waits for the commit that follows the tick, so the commits
 *     should land one flush after it, not spread over the interval.
 * P2. It keeps for itself what fits `budgetShare` of the interval at that
 *     concurrency, from the flush time measured by earlier ticks
 *     (`FlushTimeEstimate`), and fans out the rest. A tick whose estimate
 *     was too rosy (a cold start) also hands over the shards whose flush
 *     could no longer end within the budget, once its first wave is under way
 *     (`runTick`).
 * P3. Memory stays bounded as if `baseConcurrency` full WAL objects were in
 *     flight: with more flushes at once, each takes a proportionally smaller
 *     byte cap (a bigger backlog drains over more ticks, one PUT each).
 * P4. Without fan-out every active shard is flushed here, however long it takes.
 * P5. The rest is handed over as lists, one message per worker, each list
 *     what one worker flushes within the budget at the same width and flush
 *     time (`perMessage`), the lists of one tick balanced to within one shard.
 *     A tick's hand-off is then a few requests (`sqsFanOut` sends up to ten
 *     lists a request, all requests at once), not one message per shard: it
 *     stays a few round trips whatever the number of active shards.
 * P6. A tick hands over at most `workers` lists: the flush workers that run
 *     at once (`SHARDWAL_FLUSH_WORKERS`, the workers' reserved concurrency and
 *     their event source's cap, set by the stack from the same setting). A
 *     list past them would wait in the queue for a worker to finish. When the
 *     lists of P5 would outnumber the workers, the lists grow instead
 *     (`listSize`), and each worker then takes longer than the budget. A tick
 *     that may hand shards over late (P2: it keeps more than its first wave)
 *     keeps lists for that hand-off (one, unless it keeps over 1,500 shards
 *     past its first wave). Lists stop growing at `maxShardsPerMessage`
 *     names (SQS's message size): past `workers` full lists the tick sends
 *     more lists than there are workers, and those wait in the queue. Either
 *     way every shard the tick does not keep is on exactly one list.
 */
import type { ShardwalConfig } from '../config.js';

/** Tunables of the derived plan. */
export const TICK_SIZING = {
  /** Share of the interval a tick plans its own flushes into (P2). */
  budgetShare: 0.6,
  /** Flush wall time assumed until one is measured: ~6 DynamoDB round trips and one S3 PUT. */
  initialFlushMs: 150,
  /** Weight of the newest tick's mean flush time in the estimate. */
  estimateWeight: 0.5,
  /** Most flushes in flight: the SDK's HTTP agent keeps 50 sockets per client, more only queue. */
  maxConcurrency: 48,
  /** Flushes in flight where nothing else applies (flush requests), and the memory unit of P3. */
  baseConcurrency: 8,
  /** Smallest byte cap per flush under P3 (a flush always takes at least one batch anyway). */
  minFlushBytes: 1024 * 1024,
  /**
   * Most shards one fan-out message names (P5): 1,500 names of at most 64
   * characters stay under 100 KiB, well within SQS's 256 KiB message limit.
   */
  maxShardsPerMessage: 1_500,
} as const;

/** What a tick's plan is made from. */
export interface TickPlanInput {
  activeShards: number;
  /** The flush interval; undefined plans as if there were no time budget (P3 applies). */
  intervalMs: number | undefined;
  /** Estimated wall time of one flush. */
  flushMs: number;
  /** Whether shards can be handed to workers. */
  canFanOut: boolean;
  maxWalObjectBytes: number;
  /** Override: flushes in flight (`SHARDWAL_FLUSH_CONCURRENCY`). */
  concurrency?: number | undefined;
  /** Override: shards flushed here before fanning out (`SHARDWAL_MAX_SHARDS_PER_TICK`). */
  maxShardsPerTick?: number | undefined;
  /** Flush workers that run at once (`SHARDWAL_FLUSH_WORKERS`): the most lists a tick hands over (P6). */
  workers: number;
}

/** One tick's plan. */
export interface TickPlan {
  /** Flushes in flight at once. */
  concurrency: number;
  /** Active shards this invocation flushes; the rest are fanned out. */
  here: number;
  /** Byte cap of one flush's WAL object (P3). */
  flushBytes: number;
  /** Time the tick gives its own flushes (P2); undefined: no budget. */
  budgetMs: number | undefined;
  /**
   * Most shards one fan-out message names: what one worker flushes within the
   * budget (P5), or more, so that the lists do not outnumber the workers (P6).
   */
  perMessage: number;
  /** Flush workers that run at once: the most lists the tick hands over (P6). */
  workers: number;
}

/** Plans one tick (P1-P6). */
export function planTick(input: TickPlanInput): TickPlan {
  const { activeShards, flushMs } = input;
  const budgetMs =
    input.intervalMs === undefined ? undefined : input.intervalMs * TICK_SIZING.budgetShare;
  const widest =
    input.concurrency ??
    (budgetMs === undefined ? TICK_SIZING.baseConcurrency : TICK_SIZING.maxConcurrency);
  // At least one shard here, so a tick always makes progress of its own.
  const fitsInBudget =
    budgetMs === undefined
      ? activeShards
      : Math.max(1, Math.floor((widest * budgetMs) / Math.max(1, flushMs)));
  const here = !input.canFanOut
    ? activeShards
    : Math.min(activeShards, input.maxShardsPerTick ?? fitsInBudget);
  const concurrency = input.concurrency ?? clamp(here, 1, widest);
  // P5: a worker flushes as wide as a tick may (`flushMessage`), within the same budget.
  const inBudget =
    budgetMs === undefined
      ? TICK_SIZING.maxShardsPerMessage
      : Math.floor((TICK_SIZING.maxConcurrency * budgetMs) / Math.max(1, flushMs));
  // P6: a tick may hand over late (P2) what it keeps past its first wave; lists are kept for that.
  const mayHandOffLater =
    input.canFanOut && budgetMs !== undefined ? Math.max(0, here - concurrency) : 0;
  const keptForLater = Math.ceil(mayHandOffLater / TICK_SIZING.maxShardsPerMessage);
  const workers = Math.max(1, input.workers);
  const perMessage = listSize(activeShards - here, workers - keptForLater, inBudget);
  const flushBytes =
    input.concurrency === undefined
      ? flushBytesAt(input.maxWalObjectBytes, concurrency)
      : // An operator who set the concurrency sized memory for it.
        input.maxWalObjectBytes;
  return { concurrency, here, flushBytes, budgetMs, perMessage, workers };
}

/**
 * Shards a list names when `shards` are handed to at most `lists` workers
 * (P6): at least `atLeast` (what one worker flushes within the budget, P5),
 * as many as spread them over `lists`, and never more than
 * `maxShardsPerMessage` (past that the lists outnumber the workers).
 */
function listSize(shards: number, lists: number, atLeast: number): number {
  const spread = Math.ceil(shards / Math.max(1, lists));
  return clamp(Math.max(atLeast, spread), 1, TICK_SIZING.maxShardsPerMessage);
}

/**
 * The byte cap of one flush among `concurrency` at once (P3): the memory of
 * `baseConcurrency` full WAL objects, shared.
 */
export function flushBytesAt(maxWalObjectBytes: number, concurrency: number): number {
  if (concurrency <= TICK_SIZING.baseConcurrency) return maxWalObjectBytes;
  const share = Math.floor((maxWalObjectBytes * TICK_SIZING.baseConcurrency) / concurrency);
  return Math.max(Math.min(maxWalObjectBytes, TICK_SIZING.minFlushBytes), share);
}

/** Splits `shards` into the fewest lists of at most `perMessage`, balanced to within one (P5). */
export function fanOutLists(shards: readonly string[], perMessage: number): string[][] {
  const count = Math.ceil(shards.length / Math.max(1, perMessage));
  const lists: string[][] = [];
  for (let i = 0, at = 0; i < count; i++) {
    const size = Math.ceil((shards.length - at) / (count - i));
    lists.push(shards.slice(at, at + size));
    at += size;
  }
  return lists;
}

/**
 * The lists of a late hand-off (P2) of `late` shards, after the tick handed
 * over `handed` lists: they take the workers the plan kept for them (P6).
 */
export function lateLists(plan: TickPlan, late: readonly string[], handed: number): string[][] {
  return fanOutLists(late, listSize(late.length, plan.workers - handed, plan.perMessage));
}

function clamp(value: number, low: number, high: number): number {
  return Math.min(high, Math.max(low, value));
}

/**
 * Flushes in flight outside a tick's plan (flush requests), and the count the
 * flusher's memory is sized for (P2): the override, else `baseConcurrency`.
 */
export function fixedFlushConcurrency(config: Pick<ShardwalConfig, 'flushConcurrency'>): number {
  return config.flushConcurrency ?? TICK_SIZING.baseConcurrency;
}

/** A running estimate of one flush's wall time, learned tick by tick. */
export class FlushTimeEstimate {
  #ms: number;

  constructor(initialMs: number = TICK_SIZING.initialFlushMs) {
    this.#ms = initialMs;
  }

  /** The current estimate. */
  get ms(): number {
    return this.#ms;
  }

  /** Folds in the flush times of one tick; a tick with no flush leaves it alone. */
  observe(flushMs: readonly number[]): void {
    if (flushMs.length === 0) return;
    const mean = flushMs.reduce((sum, ms) => sum + ms, 0) / flushMs.length;
    const weight = TICK_SIZING.estimateWeight;
    this.#ms = weight * mean + (1 - weight) * this.#ms;
  }
}
