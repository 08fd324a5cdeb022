/**
 * Thresholds and periods of the alarms, derived from the settings they watch.
 * Pure functions, so the docs' table and the tests can state the same numbers.
 */
import type { SchedulePlan } from '../../lib/ticker/schedule-plan.js';

/**
 * Oldest pending batch age that alarms: five flush intervals, plus the gap
 * seal, since batches behind a crashed put's gap legitimately wait for it
 * to be sealed void.
 */
export function oldestPendingThresholdMs(intervalMs: number, gapSealMs: number): number {
  return 5 * intervalMs + gapSealMs;
}

/** Period of the alarms on per-tick metrics: the schedule's rate, at least a minute. */
export function tickAlarmPeriodMinutes(plan: SchedulePlan): number {
  return Math.max(1, plan.rateMinutes);
}

/**
 * Fewest ticks an invocation may run before it alarms: 80% of the planned
 * ticks (ticks that overrun the interval delay the next ones, so a loop
 * whose ticks take longer than the interval runs fewer), and at least one.
 */
export function minTicksPerInvocation(plan: SchedulePlan): number {
  return Math.max(1, Math.floor(0.8 * plan.ticksPerInvocation));
}

/** Period of the verify-findings alarm: the verify schedule's, within Metrics Insights' 3-hour window. */
export function verifyAlarmPeriodMinutes(verifyEveryMinutes: number): number {
  return Math.min(verifyEveryMinutes, 180);
}

/** Commit intervals a table may lag its WAL before the table-lag alarm. */
export const TABLE_LAG_INTERVALS = 5;

/** Table lag (age of the oldest uncommitted WAL object) that alarms: `TABLE_LAG_INTERVALS` commit intervals. */
export function tableLagThresholdMs(commitMs: number): number {
  return TABLE_LAG_INTERVALS * commitMs;
}

/**
 * Period of the table alarms: two commit periods (so every period holds a
 * run's figure, and silence means the committer stopped), at least 5
 * minutes, at most a day (CloudWatch's longest evaluation).
 */
export function tableAlarmPeriodMinutes(commitEveryMinutes: number): number {
  return Math.min(1440, Math.max(5, 2 * commitEveryMinutes));
}

/** Share of the WAL retention an uncommitted WAL object may reach before the retention-floor alarm. */
const TABLE_FLOOR_RETENTION_SHARE = 0.8;

/**
 * Table lag at which the table is about to hold WAL history back: 80% of
 * the WAL retention (past it, retention would retire positions the table has
 * not committed, so the table's floor keeps them: `lib/table/floor.ts`), and
 * never below the table-lag threshold.
 */
export function tableFloorThresholdMs(walRetentionMs: number, commitMs: number): number {
  return Math.max(
    tableLagThresholdMs(commitMs),
    Math.floor(TABLE_FLOOR_RETENTION_SHARE * walRetentionMs),
  );
}

/** Fixed limits of the resource alarms. */
export const ALARM_LIMITS = {
  /** Oldest ingest message, in seconds, for two 5-minute periods: consumers are behind. */
  ingestQueueAgeSeconds: 300,
  /** Age of an SQS put when it was held back again: it has waited this long for a retry to land. */
  ingestHeldBackAgeMs: 15 * 60_000,
  /** Period of the held-back alarm: hold-backs are at most 15 min apart, so an hour always sees one. */
  ingestHeldBackPeriodMinutes: 60,
  /** 5xx responses, as a percentage of requests, for two 5-minute periods... */
  api5xxPercent: 5,
  /** ...counted only over this many requests, so one failed request of three does not page. */
  api5xxMinRequests: 10,
  /** DynamoDB throttle events per 5 minutes, in two periods running. */
  dynamoThrottleEvents: 1,
  /** Throttled invocations (all functions) per 5 minutes. */
  lambdaThrottles: 1,
} as const;
