/**
 * What operators see of each flush: one structured log line and the metrics
 * of the outcome.
 */
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { Metric } from '../observability/metric-names.js';
import { logger, metrics } from '../observability/telemetry.js';
import type { FlushOutcome } from './flush-shard.js';

/** Logs and counts one flush outcome; `latencyMs` is the protocol's wall time. */
export function reportFlush(outcome: FlushOutcome, latencyMs: number): void {
  switch (outcome.status) {
    case 'flushed':
      logger.info('flushed', { ...outcome, latencyMs });
      metrics.addMetric(Metric.flushLatencyMs, MetricUnit.Milliseconds, latencyMs);
      metrics.addMetric(Metric.walObjectsWritten, MetricUnit.Count, 1);
      metrics.addMetric(Metric.walBytes, MetricUnit.Bytes, outcome.walBytes);
      metrics.addMetric(Metric.walRows, MetricUnit.Count, outcome.rows);
      metrics.addMetric(Metric.flushLagMs, MetricUnit.Milliseconds, outcome.lagMs);
      if (outcome.adopted) metrics.addMetric(Metric.walObjectsAdopted, MetricUnit.Count, 1);
      if (outcome.sealed.length > 0) {
        logger.warn('sealed gaps as void', { shard: outcome.shard, seqs: outcome.sealed });
        metrics.addMetric(Metric.gapsSealed, MetricUnit.Count, outcome.sealed.length);
      }
      return;
    case 'fenced':
      logger.warn('flush fenced by a newer flusher', { ...outcome });
      metrics.addMetric(Metric.flushFenced, MetricUnit.Count, 1);
      return;
    case 'poisoned':
      logger.error(
        outcome.detected ? 'shard poisoned' : 'shard is poisoned; recovery must rebuild it',
        {
          ...outcome,
        },
      );
      // PoisonedShards: poisoned shards seen by this tick (a gauge-like count per tick);
      // ShardsPoisoned: poison transitions this flush caused.
      metrics.addMetric(Metric.poisonedShards, MetricUnit.Count, 1);
      if (outcome.detected) metrics.addMetric(Metric.shardsPoisoned, MetricUnit.Count, 1);
      return;
    case 'waiting-on-gap':
      logger.info('waiting on an unwritten batch', { ...outcome });
      return;
    default:
      logger.debug('flush skipped', { ...outcome });
  }
}

/** Logs a flush that threw (transient store or table failure); the next tick retries. */
export function reportFlushError(shard: string, error: unknown): void {
  logger.error('flush failed; the next tick retries', { shard, error: error as Error });
  metrics.addMetric(Metric.flushErrors, MetricUnit.Count, 1);
}

/** A flush's outcome (undefined: it threw, and was reported) and its wall time. */
export interface TimedOutcome {
  outcome: FlushOutcome | undefined;
  ms: number;
}

/**
 * Runs `work` (a whole flush, or the steps after a claim that took `priorMs`),
 * reporting its outcome with its wall time; never throws.
 */
export async function runReported(
  shard: string,
  now: () => number,
  work: () => Promise<FlushOutcome>,
  priorMs = 0,
): Promise<TimedOutcome> {
  const started = now();
  try {
    const outcome = await work();
    const ms = priorMs + now() - started;
    reportFlush(outcome, ms);
    return { outcome, ms };
  } catch (error) {
    reportFlushError(shard, error);
    return { outcome: undefined, ms: priorMs + now() - started };
  }
}
