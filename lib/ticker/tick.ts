/**
 * One tick: find the shards with pending data (sparse index, O(active
 * shards)), flush each once (oldest pending first, by the protocol) with
 * bounded concurrency, and fan the rest out to workers past what one
 * invocation should do. Idle shards cost nothing: they are not in the index.
 */
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { type FlushDeps, type FlushOutcome, flushShard } from '../flush/flush-shard.js';
import { reportFlush, reportFlushError } from '../flush/report.js';
import { listPendingShards } from '../memtable/pending-index.js';
import { Metric } from '../observability/metric-names.js';
import { logger, metrics } from '../observability/telemetry.js';
import { mapWithConcurrency } from './concurrency.js';

/** What a tick needs. */
export interface TickDeps {
  flush: FlushDeps;
  concurrency: number;
  maxShardsPerTick: number;
  /** Hands shards to workers (one message per shard); absent → flush all here. */
  fanOut?: (shards: string[]) => Promise<void>;
}

/** Summary of one tick. */
export interface TickSummary {
  activeShards: number;
  fannedOut: number;
  outcomes: FlushOutcome[];
  failed: number;
}

/** Flushes `shard` once, reporting the outcome; never throws. */
export async function flushAndReport(
  deps: FlushDeps,
  shard: string,
): Promise<FlushOutcome | undefined> {
  const started = deps.now();
  try {
    const outcome = await flushShard(deps, shard);
    reportFlush(outcome, deps.now() - started);
    return outcome;
  } catch (error) {
    reportFlushError(shard, error);
    return undefined;
  }
}

/** Runs one tick. */
export async function runTick(deps: TickDeps): Promise<TickSummary> {
  const started = deps.flush.now();
  const shards = await listPendingShards(deps.flush.table);
  const here = deps.fanOut ? shards.slice(0, deps.maxShardsPerTick) : shards;
  const elsewhere = deps.fanOut ? shards.slice(deps.maxShardsPerTick) : [];
  if (elsewhere.length > 0) {
    // A failed hand-off must not cost this tick its own shards; the rest stay pending.
    await deps.fanOut!(elsewhere).catch((error: unknown) => {
      logger.error('fan-out failed; those shards wait for the next tick', {
        shards: elsewhere.length,
        error: error as Error,
      });
    });
  }
  const results = await mapWithConcurrency(here, deps.concurrency, (shard) =>
    flushAndReport(deps.flush, shard),
  );
  const outcomes = results.filter((outcome): outcome is FlushOutcome => outcome !== undefined);
  metrics.addMetric(Metric.activeShards, MetricUnit.Count, shards.length);
  metrics.addMetric(Metric.tickDurationMs, MetricUnit.Milliseconds, deps.flush.now() - started);
  if (elsewhere.length > 0)
    metrics.addMetric(Metric.shardsFannedOut, MetricUnit.Count, elsewhere.length);
  return {
    activeShards: shards.length,
    fannedOut: elsewhere.length,
    outcomes,
    failed: results.length - outcomes.length,
  };
}
