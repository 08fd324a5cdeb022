/**
 * The scheduled flush-ticker invocation. EventBridge fires at most once a
 * minute; a sub-minute interval runs as grid ticks inside this invocation
 * (`runTicksUntil`), covering the whole window it was scheduled for:
 * [scheduled time, scheduled time + rate). The next invocation owns the grid
 * from there, so windows tile with no gap at the boundary; a last tick that
 * runs into the next window overlaps its first, which the flush protocol
 * fences. A late or retried invocation ticks only in what is left of its own
 * window (at once for the slot it missed), never past it, so it never runs a
 * second loop beside the invocation of the next window.
 *
 * The scheduled time comes from the event's `scheduledTime` field (the
 * schedule passes `<aws.scheduler.scheduled-time>` there); without it (a
 * manual invocation), the window is the one holding the current time, with a
 * warning.
 *
 * Function timeout: the last tick starts before the window ends, so the
 * timeout must cover the window (60 s for sub-minute intervals) plus the
 * longest tick; a tick is not started with less than `TICK_RESERVE_MS` left.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import type { Context } from 'aws-lambda';
import { InvalidInputError } from '../errors.js';
import { Metric } from '../observability/metric-names.js';
import { logger, metrics } from '../observability/telemetry.js';
import type { Service } from '../runtime/service.js';
import { claimLeadMs } from './claim-lead.js';
import { gridFloor } from './grid.js';
import { MINUTE_MS, planSchedule } from './schedule-plan.js';
import { runTick, type TickDeps, type TickSummary } from './tick.js';
import { runTicksUntil } from './ticker.js';

/** Time kept free at the end of an invocation for its last tick to finish. */
const TICK_RESERVE_MS = 5_000;

/** Event field carrying the invocation's scheduled time (ISO 8601), set by the schedule's input. */
export const TICKER_SCHEDULED_TIME_FIELD = 'scheduledTime';

/** The window an invocation covers, and where its start came from. */
export interface TickWindow {
  fromMs: number;
  untilMs: number;
  source: 'event' | 'clock';
}

/**
 * The window of the invocation carrying `event`: from its scheduled time, one
 * schedule period long. A present but unreadable time is an error naming it.
 */
export function tickWindow(event: unknown, rateMinutes: number, nowMs: number): TickWindow {
  const periodMs = rateMinutes * MINUTE_MS;
  const fields = (typeof event === 'object' && event !== null ? event : {}) as Record<
    string,
    unknown
  >;
  const raw = fields[TICKER_SCHEDULED_TIME_FIELD];
  if (raw === undefined) {
    const fromMs = gridFloor(nowMs, periodMs);
    return { fromMs, untilMs: fromMs + periodMs, source: 'clock' };
  }
  const fromMs = typeof raw === 'string' ? Date.parse(raw) : Number.NaN;
  if (!Number.isFinite(fromMs)) {
    throw new InvalidInputError(
      TICKER_SCHEDULED_TIME_FIELD,
      `expected an ISO 8601 time, got ${JSON.stringify(raw)}`,
    );
  }
  return { fromMs, untilMs: fromMs + periodMs, source: 'event' };
}

/** Runs one tick, then logs its summary and publishes its metrics, as every scheduled tick does. */
export async function runLoggedTick(deps: TickDeps): Promise<TickSummary> {
  const summary = await runTick(deps);
  logger.info('tick', {
    activeShards: summary.activeShards,
    fannedOut: summary.fannedOut,
    failed: summary.failed,
    concurrency: summary.plan.concurrency,
    oldestPendingAgeMs: summary.oldestPendingAgeMs,
  });
  metrics.publishStoredMetrics();
  return summary;
}

/** Runs this invocation's ticks; returns how many ran. */
export async function runScheduledTicks(
  service: Service,
  context: Context,
  event: unknown = {},
): Promise<{ ticks: number }> {
  const intervalMs = service.config.flushIntervalMs;
  if (intervalMs === undefined) {
    logger.warn('flush ticker invoked with the ticker off; nothing to do');
    return { ticks: 0 };
  }
  const plan = planSchedule(intervalMs);
  const startedAt = Date.now();
  const window = tickWindow(event, plan.rateMinutes, startedAt);
  if (window.source === 'clock') {
    logger.warn(`no ${TICKER_SCHEDULED_TIME_FIELD} in the event; ticking the current window`, {
      fromMs: window.fromMs,
    });
  }
  const deps = service.tick(context.awsRequestId);
  // Sub-minute ticks claim ahead of their slots (K1 in `claim-lead.ts`).
  const tick = async (slotMs?: number) => {
    const slot = slotMs === undefined ? undefined : { atMs: slotMs, intervalMs };
    await runLoggedTick({ ...deps, slot });
  };
  const deadlineMs = startedAt + context.getRemainingTimeInMillis() - TICK_RESERVE_MS;
  let ticks = 0;
  if (intervalMs >= MINUTE_MS) {
    // Whole minutes: the schedule is the grid; one tick now, unless the window is gone.
    if (startedAt < window.untilMs) {
      await tick();
      ticks = 1;
    }
  } else {
    ticks = await runTicksUntil({
      intervalMs,
      fromMs: window.fromMs,
      untilMs: window.untilMs,
      deadlineMs,
      now: Date.now,
      sleep: (ms) => sleep(ms),
      tick,
      leadMs: () => claimLeadMs(intervalMs),
    });
  }
  if (ticks === 0) {
    logger.warn('invocation arrived after its window; the next one has the grid', {
      fromMs: window.fromMs,
      untilMs: window.untilMs,
      startedAt,
    });
  }
  // Ticks run by this invocation; also what the end-of-invocation metrics flush publishes.
  metrics.addMetric(Metric.ticksPerInvocation, MetricUnit.Count, ticks);
  return { ticks };
}
