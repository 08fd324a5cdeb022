/**
 * Alarms on the service's own metrics (all carry the stage):
 *
 *   OldestPendingAge   the oldest buffered batch has waited 5 intervals + the
 *                      gap seal; silence counts as breaching, so a dead ticker
 *                      (which emits the gauge on every tick) alarms too
 *   TickerStopped      the flush tick function was not invoked
 *   TicksPerInvocation an invocation ran under 80% of its planned ticks
 *   FlushErrors        flushes failed for 15 minutes running (a failing flush
 *                      is caught and retried next tick, so it fails no
 *                      invocation; the `FlushErrors` metric counts it)
 *   PoisonedShards     a flush met (or left) its shard poisoned
 *   IngestHeldBack     an SQS put has been held back (a retryable refusal,
 *                      `lib/sqs/hold-back.ts`) for 15 minutes or more
 *   ShardsPoisoned     a flush poisoned a shard
 *   ExportErrors       the export logged an error (a shard's export failed or
 *                      threw: the run goes on with the next shard, so the
 *                      invocation does not fail)
 *   VerifyFindings     the scheduled verify found something wrong
 */
import { Duration } from 'aws-cdk-lib';
import {
  ComparisonOperator,
  MathExpression,
  Stats,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { FilterPattern, MetricFilter } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { METRICS_NAMESPACE, Metric } from '../../lib/observability/metric-names.js';
import { STAGE_DIMENSION } from '../../lib/observability/telemetry.js';
import type { DeploySettings } from '../settings.js';
import {
  ALARM_LIMITS,
  minTicksPerInvocation,
  oldestPendingThresholdMs,
  tickAlarmPeriodMinutes,
  verifyAlarmPeriodMinutes,
} from './alarm-thresholds.js';
import type { AddAlarm } from './alarms.js';
import type { Functions } from './functions.js';
import { LOG_METRICS, type ServiceMetric } from './service-metrics.js';

/** What the service alarms watch. */
export interface ServiceAlarmTargets {
  stage: string;
  metric: ServiceMetric;
  settings: DeploySettings;
  functions: Functions;
}

/** Adds the alarms on the service's metrics; `scope` holds the log metric filter. */
export function addServiceAlarms(scope: Construct, add: AddAlarm, t: ServiceAlarmTargets): void {
  const { service, ticker } = t.settings;
  const fiveMinutes = Duration.minutes(5);
  const tickPeriod = Duration.minutes(tickAlarmPeriodMinutes(ticker));

  const pendingMs = oldestPendingThresholdMs(service.flushIntervalMs, service.gapSealMs);
  add(
    'OldestPendingAge',
    t.metric(Metric.oldestPendingAgeMs, { statistic: Stats.MAXIMUM, period: tickPeriod }),
    pendingMs,
    `The oldest buffered batch has waited over ${pendingMs} ms (5 flush intervals + the gap seal) in two periods running, or the ticker emitted no gauge at all: flushes are behind or the ticker is dead. Durable puts time out.`,
    {
      comparison: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 2,
      missing: TreatMissingData.BREACHING,
    },
  );
  const stoppedPeriod = Duration.minutes(Math.max(5, 2 * ticker.rateMinutes));
  add(
    'TickerStopped',
    t.functions.byName.flushTick.metricInvocations({
      statistic: Stats.SUM,
      period: stoppedPeriod,
    }),
    1,
    'The flush ticker did not run: nothing reaches the WAL except size-triggered flushes, and durable puts time out.',
    { comparison: ComparisonOperator.LESS_THAN_THRESHOLD, missing: TreatMissingData.BREACHING },
  );
  const minTicks = minTicksPerInvocation(ticker);
  add(
    'TicksPerInvocation',
    t.metric(Metric.ticksPerInvocation, {
      statistic: Stats.MINIMUM,
      period: Duration.minutes(Math.max(5, ticker.rateMinutes)),
    }),
    minTicks,
    `A ticker invocation ran fewer than ${minTicks} ticks (80% of ${ticker.ticksPerInvocation}) in two periods running: ticks take longer than the ${ticker.tickIntervalMs} ms interval (too many active shards for the flush concurrency) or invocations end early.`,
    { comparison: ComparisonOperator.LESS_THAN_THRESHOLD, evaluationPeriods: 2 },
  );
  add(
    'FlushErrors',
    t.metric(Metric.flushErrors, { statistic: Stats.SUM, period: fiveMinutes }),
    1,
    'Flushes failed in three consecutive 5-minute periods: they keep failing (S3, DynamoDB, permissions) and are only being retried. See the flushTick/flushWorker logs.',
    { evaluationPeriods: 3 },
  );
  add(
    'PoisonedShards',
    t.metric(Metric.poisonedShards, { statistic: Stats.MAXIMUM, period: fiveMinutes }),
    1,
    'A shard is poisoned (its record and S3 diverged, or an append failed terminally); puts to it get 503 until it is rebuilt (docs/deploy.md).',
  );
  // Only SQS puts are held back: no SQS ingest, no alarm.
  if (t.functions.byName.putSqs) {
    add(
      'IngestHeldBack',
      t.metric(Metric.ingestHeldBackAgeMs, {
        statistic: Stats.MAXIMUM,
        period: Duration.minutes(ALARM_LIMITS.ingestHeldBackPeriodMinutes),
      }),
      ALARM_LIMITS.ingestHeldBackAgeMs,
      `An SQS put has been held back for ${ALARM_LIMITS.ingestHeldBackAgeMs / 60_000} minutes or more: its shard stays poisoned or over its buffer limit, or a dependency keeps failing. It keeps coming back every 15 minutes for up to 7 days, then goes to the dead-letter queue; the put-sqs log line "message not buffered; held back for a retry" names the shard's error.`,
    );
  }
  add(
    'ShardsPoisoned',
    t.metric(Metric.shardsPoisoned, { statistic: Stats.SUM, period: fiveMinutes }),
    1,
    'A flush poisoned a shard in the last five minutes.',
  );

  // The export catches a shard's failure and moves on, logging it at ERROR:
  // the log line is the only trace, so it is counted into a metric here.
  new MetricFilter(scope, 'ExportErrorLogs', {
    logGroup: t.functions.logGroups.export,
    filterPattern: FilterPattern.stringValue('$.level', '=', 'ERROR'),
    metricNamespace: METRICS_NAMESPACE,
    metricName: LOG_METRICS.exportErrorLogs,
    metricValue: '1',
    dimensions: { service: '$.service', [STAGE_DIMENSION]: `$.${STAGE_DIMENSION}` },
  });
  add(
    'ExportErrors',
    t.metric(LOG_METRICS.exportErrorLogs, { statistic: Stats.SUM, period: fiveMinutes }),
    1,
    'The export logged an error: a shard\'s export failed or threw ("export failed", "export threw"). Its WAL is not folded or retired until it succeeds; read the export log group.',
  );

  // Each finding is one metric with a `kind` dimension; a Metrics Insights
  // query sums every kind (a metric-math alarm takes at most 10 metrics).
  const verifyPeriod = Duration.minutes(verifyAlarmPeriodMinutes(t.settings.verifyEveryMinutes));
  add(
    'VerifyFindings',
    new MathExpression({
      expression: `SELECT SUM(${Metric.verifyFindings}) FROM SCHEMA("${METRICS_NAMESPACE}", kind, service, ${STAGE_DIMENSION}) WHERE ${STAGE_DIMENSION} = '${t.stage}'`,
      period: verifyPeriod,
      label: 'verify findings',
    }),
    1,
    'The scheduled verify found something wrong (a WAL gap or corrupt object, a record that disagrees with S3, a poisoned shard). Each finding is a log line "verify finding" in the recover log group, naming the shard and the kind; docs/deploy.md says what to do.',
  );
}
