/**
 * One tick: find the shards with pending data (sparse index, O(active
 * shards)), flush each once (oldest pending first, by the protocol) with the
 * concurrency the plan derives (`tick-plan.ts`), and fan the rest out to
 * workers past what one invocation can do within the interval. Idle shards
 * cost nothing: they are not in the index. Every tick emits the age of the
 * oldest pending batch it saw (`pending-age.ts`), flushed or not.
 */
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { SETTINGS } from '../config.js';
import { type FlushDeps, type FlushOutcome, flushShard } from '../flush/flush-shard.js';
import { runReported, type TimedOutcome } from '../flush/report.js';
import { listPendingShards } from '../memtable/pending-index.js';
import { Metric } from '../observability/metric-names.js';
import { logger, metrics } from '../observability/telemetry.js';
import type { RebuildTakeover } from '../recovery/takeover.js';
import { claimAhead, processClaimLead, sleepUntil, type TickSlot } from './claim-lead.js';
import { mapWithConcurrency } from './concurrency.js';
import { oldestAgeMs, pendingAgeAfter, SETTLED } from './pending-age.js';
import { FlushTimeEstimate, fanOutLists, lateLists, planTick, type TickPlan } from './tick-plan.js';

/** What a tick needs. */
export interface TickDeps {
  flush: FlushDeps;
  /** The flush interval, the tick's time budget; undefined: no budget (every shard here). */
  intervalMs?: number | undefined;
  /** Override of the derived flushes in flight (`SHARDWAL_FLUSH_CONCURRENCY`). */
  concurrency?: number | undefined;
  /** Override of the derived shards flushed here (`SHARDWAL_MAX_SHARDS_PER_TICK`). */
  maxShardsPerTick?: number | undefined;
  /**
   * Flush workers that run at once (`SHARDWAL_FLUSH_WORKERS`): the most lists
   * a tick hands over (P6 in `tick-plan.ts`). Default: the setting's default.
   */
  flushWorkers?: number | undefined;
  /**
   * Hands shards to workers, one message per list (P5 in `tick-plan.ts`);
   * absent → flush all here. A rejection means some lists may not have been
   * handed over: those shards stay pending, and the next tick lists them again.
   */
  fanOut?: (lists: string[][]) => Promise<void>;
  /** Flush time learned across ticks; one per process by default. */
  flushTime?: FlushTimeEstimate;
  /** The grid slot this tick stands for: given, the tick claims ahead of it (K1 in `claim-lead.ts`). */
  slot?: TickSlot | undefined;
  /** Takes over a lapsed rebuild fence a refused claim reported (T6 in `lib/recovery/takeover.ts`). */
  takeOver?: RebuildTakeover | undefined;
}

/** Summary of one tick. */
export interface TickSummary {
  activeShards: number;
  fannedOut: number;
  outcomes: FlushOutcome[];
  failed: number;
  /** The plan the tick ran with. */
  plan: TickPlan;
  /** Age of the oldest pending batch among the shards flushed here (0 when none). */
  oldestPendingAgeMs: number;
}

/** Marks a shard handed to workers when the tick's budget ran out (P2 in `tick-plan.ts`). */
const HANDED_OFF = Symbol('handed-off');

/** Learned across the ticks of one process (warm Lambda invocations included). */
const processFlushTime = new FlushTimeEstimate();

/** Flushes `shard` once, reporting the outcome and its time; never throws. */
function flushTimed(deps: FlushDeps, shard: string): Promise<TimedOutcome> {
  return runReported(shard, deps.now, () => flushShard(deps, shard));
}

/** Flushes `shard` once, reporting the outcome; never throws. */
export async function flushAndReport(
  deps: FlushDeps,
  shard: string,
): Promise<FlushOutcome | undefined> {
  return (await flushTimed(deps, shard)).outcome;
}

/** Runs one tick. */
export async function runTick(deps: TickDeps): Promise<TickSummary> {
  const { now, table } = deps.flush;
  const flushTime = deps.flushTime ?? processFlushTime;
  const planFor = (activeShards: number) =>
    planTick({
      activeShards,
      intervalMs: deps.intervalMs,
      flushMs: flushTime.ms,
      canFanOut: deps.fanOut !== undefined,
      maxWalObjectBytes: deps.flush.maxWalObjectBytes,
      concurrency: deps.concurrency,
      maxShardsPerTick: deps.maxShardsPerTick,
      workers: deps.flushWorkers ?? SETTINGS.flushWorkers.default,
    });
  const lead = deps.slot?.lead ?? processClaimLead;
  // The slot, while it is still ahead of this tick.
  const slot = deps.slot && now() < deps.slot.atMs ? deps.slot : undefined;
  // K1: ahead of its slot, a busy tick claims its first wave and resolves at the slot (K5).
  const ahead =
    slot && lead.busy
      ? await claimAhead(deps.flush, slot, (listed) => {
          const first = planFor(listed);
          return { wave: Math.min(first.here, first.concurrency), flushBytes: first.flushBytes };
        })
      : undefined;
  if (slot && !ahead) await sleepUntil(slot, now);
  // The tick's time runs from its slot, or from its start when it starts late.
  const started = slot ? slot.atMs : now();
  const shards = ahead ? ahead.shards : await listPendingShards(table);
  lead.sawShards(shards.length);
  const plan = planFor(shards.length);
  const here = shards.slice(0, plan.here);
  const elsewhere = shards.slice(plan.here);
  const lists = fanOutLists(elsewhere, plan.perMessage);
  const flushDeps = { ...deps.flush, maxWalObjectBytes: plan.flushBytes };
  // P2: a tick that can fan out starts no flush past the first wave that would
  // end beyond its budget; those shards go to workers.
  const handOffAt =
    deps.fanOut && plan.budgetMs !== undefined
      ? started + Math.max(0, plan.budgetMs - flushTime.ms)
      : Number.POSITIVE_INFINITY;
  // The first shard past the budget (P2): it and every later one (none started) go to workers
  // at once, while the flushes already running finish.
  let lateFrom: number | undefined;
  let lateHandOff: Promise<void> = Promise.resolve();
  const flushTimes: number[] = [];
  const ages: number[] = [];
  let begun = 0;
  const [results] = await Promise.all([
    mapWithConcurrency(
      here.map((shard, index) => ({ shard, index })),
      plan.concurrency,
      async ({ shard, index }) => {
        if (lateFrom === undefined && begun >= plan.concurrency && now() >= handOffAt) {
          lateFrom = index;
          lateHandOff = handOff(deps.fanOut, lateLists(plan, here.slice(index), lists.length));
        }
        if (lateFrom !== undefined) return HANDED_OFF;
        begun++;
        const { outcome, ms } = await (ahead?.flushes.get(shard) ?? flushTimed(flushDeps, shard));
        await takeOverLapsed(deps.takeOver, outcome);
        flushTimes.push(ms);
        if (outcome?.status === 'flushed') ages.push(outcome.lagMs);
        return outcome;
      },
    ),
    handOff(deps.fanOut, lists),
  ]);
  await lateHandOff;
  flushTime.observe(flushTimes);
  const ran = results.filter((result) => result !== HANDED_OFF);
  const unsettled = here.filter((_, i) => {
    const result = results[i];
    return result !== HANDED_OFF && (result === undefined || !SETTLED.has(result.status));
  });
  ages.push(...(await unsettledAges(deps.flush, unsettled, plan.concurrency)));
  const outcomes = ran.filter((outcome): outcome is FlushOutcome => outcome !== undefined);
  const oldestPendingAgeMs = oldestAgeMs(ages);
  metrics.addMetric(Metric.activeShards, MetricUnit.Count, shards.length);
  metrics.addMetric(Metric.oldestPendingAgeMs, MetricUnit.Milliseconds, oldestPendingAgeMs);
  metrics.addMetric(Metric.tickDurationMs, MetricUnit.Milliseconds, now() - started);
  const fannedOut = elsewhere.length + (lateFrom === undefined ? 0 : here.length - lateFrom);
  if (fannedOut > 0) metrics.addMetric(Metric.shardsFannedOut, MetricUnit.Count, fannedOut);
  return {
    activeShards: shards.length,
    fannedOut,
    outcomes,
    failed: ran.length - outcomes.length,
    plan,
    oldestPendingAgeMs,
  };
}

/**
 * The tick's hook for an abandoned rebuild: a claim refused by a rebuild's
 * poison carries its fence; `takeOver` does nothing while its lease is live.
 * Never throws: a failed takeover is retried by the next tick.
 */
export async function takeOverLapsed(
  takeOver: RebuildTakeover | undefined,
  outcome: FlushOutcome | undefined,
): Promise<void> {
  if (!takeOver || outcome?.status !== 'poisoned' || !outcome.rebuild) return;
  try {
    await takeOver(outcome.shard, outcome.rebuild);
  } catch (error) {
    logger.error('taking over an abandoned rebuild failed; the next tick retries', {
      shard: outcome.shard,
      error: error as Error,
    });
  }
}

/**
 * Hands `lists` to workers, one message each (P5, P6). A failed hand-off must
 * not cost this tick its own shards: it is logged, and the shards it did not
 * hand over stay pending (nothing here clears a marker), so the next tick
 * lists them again.
 */
async function handOff(fanOut: TickDeps['fanOut'], lists: string[][]): Promise<void> {
  if (!fanOut || lists.length === 0) return;
  try {
    await fanOut(lists);
  } catch (error) {
    logger.error('fan-out failed; the shards not handed over wait for the next tick', {
      shards: lists.reduce((sum, list) => sum + list.length, 0),
      error: error as Error,
    });
  }
}

/** Ages of the oldest pending batch of shards whose flush did not commit; a failed read counts nothing. */
async function unsettledAges(
  deps: FlushDeps,
  shards: readonly string[],
  concurrency: number,
): Promise<number[]> {
  return mapWithConcurrency(shards, concurrency, (shard) =>
    pendingAgeAfter(deps.table, deps.now, shard, undefined, (error) =>
      logger.warn('could not date the oldest pending batch', { shard, error: error as Error }),
    ),
  );
}
