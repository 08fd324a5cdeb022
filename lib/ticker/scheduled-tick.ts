/**
 * The scheduled flush-ticker invocation. EventBridge fires at most once a
 * minute; a sub-minute interval runs as ticks inside this invocation until the
 * next one is due (or the function's deadline nears), delayed-not-burst.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import type { Context } from 'aws-lambda';
import { Metric } from '../observability/metric-names.js';
import { logger, metrics } from '../observability/telemetry.js';
import type { Service } from '../runtime/service.js';
import { planSchedule } from './schedule-plan.js';
import { runTick } from './tick.js';
import { runTicksUntil } from './ticker.js';

/** Time kept free at the end of an invocation for one tick to finish. */
export const TICK_RESERVE_MS = 5_000;

/** Runs this invocation's ticks; returns how many ran. */
export async function runScheduledTicks(
  service: Service,
  context: Context,
): Promise<{ ticks: number }> {
  const intervalMs = service.config.flushIntervalMs;
  if (intervalMs === undefined) {
    logger.warn('flush ticker invoked with the ticker off; nothing to do');
    return { ticks: 0 };
  }
  const plan = planSchedule(intervalMs);
  const started = Date.now();
  const deadlineMs = Math.min(
    started + plan.rateMinutes * 60_000,
    started + context.getRemainingTimeInMillis() - TICK_RESERVE_MS,
  );
  const deps = service.tick(context.awsRequestId);
  const ticks = await runTicksUntil({
    intervalMs: plan.ticksPerInvocation > 1 ? plan.tickIntervalMs : Number.MAX_SAFE_INTEGER,
    deadlineMs,
    reserveMs: TICK_RESERVE_MS,
    now: Date.now,
    sleep: (ms) => sleep(ms),
    tick: async () => {
      const summary = await runTick(deps);
      logger.info('tick', {
        activeShards: summary.activeShards,
        fannedOut: summary.fannedOut,
        failed: summary.failed,
      });
      metrics.publishStoredMetrics();
    },
  });
  // Ticks run by this invocation; also what the end-of-invocation metrics flush publishes.
  metrics.addMetric(Metric.ticksPerInvocation, MetricUnit.Count, ticks);
  return { ticks };
}
