/**
 * Alarms of the Iceberg table committer (with the `tables` setting; the
 * operator's view is in docs/tables.md). `TableLagMs` is the age of the
 * oldest WAL object a table has not committed, the largest over the
 * tables, one figure per committer run (`lib/table/run-tables.ts`):
 *
 *   TableLag           a table is more than 5 commit intervals behind its
 *                      WAL, or the committer emitted no figure for a whole
 *                      period (it stopped running): silence breaches
 *   TableRetentionFloor a table's oldest uncommitted WAL object reached 80%
 *                      of the WAL retention: retention is about to reach
 *                      positions the table has not committed, and the
 *                      table's floor will hold that WAL (and its storage)
 *                      back until the committer catches up
 *   TableErrors        the committer logged errors in two periods running (a
 *                      table's run failed, a Glue pointer was not moved, a
 *                      lag not measured): the run goes on, so the
 *                      invocation does not fail; one transient failure the
 *                      next run repairs does not page
 */
import { Duration } from 'aws-cdk-lib';
import { ComparisonOperator, Stats, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { FilterPattern, type ILogGroup, MetricFilter } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { METRICS_NAMESPACE, Metric } from '../../lib/observability/metric-names.js';
import { STAGE_DIMENSION } from '../../lib/observability/telemetry.js';
import {
  TABLE_LAG_INTERVALS,
  tableAlarmPeriodMinutes,
  tableFloorThresholdMs,
  tableLagThresholdMs,
} from './alarm-thresholds.js';
import type { AddAlarm } from './alarms.js';
import { LOG_METRICS, type ServiceMetric } from './service-metrics.js';

/** What the table alarms watch. */
export interface TableAlarmTargets {
  metric: ServiceMetric;
  commitMs: number;
  commitEveryMinutes: number;
  walRetentionMs: number;
  /** The committer's log group (its error lines are counted). */
  logGroup: ILogGroup;
}

/** Adds the table alarms; `scope` holds the log metric filter. */
export function addTableAlarms(scope: Construct, add: AddAlarm, t: TableAlarmTargets): void {
  const period = Duration.minutes(tableAlarmPeriodMinutes(t.commitEveryMinutes));
  const lagMs = tableLagThresholdMs(t.commitMs);
  add(
    'TableLag',
    t.metric(Metric.tableLagMs, { statistic: Stats.MAXIMUM, period }),
    lagMs,
    `A table has not committed a WAL object older than ${lagMs} ms (${TABLE_LAG_INTERVALS} commit intervals of ${t.commitMs} ms), or the committer reported no lag for a whole period (it stopped running). Rows reach the table late; a backfill alarms until it caught up. \`shardwal table <name>\` shows each shard's lag; the committer's log says why.`,
    {
      comparison: ComparisonOperator.GREATER_THAN_THRESHOLD,
      missing: TreatMissingData.BREACHING,
    },
  );
  const floorMs = tableFloorThresholdMs(t.walRetentionMs, t.commitMs);
  add(
    'TableRetentionFloor',
    t.metric(Metric.tableLagMs, { statistic: Stats.MAXIMUM, period }),
    floorMs,
    `A table's oldest uncommitted WAL object is older than ${floorMs} ms (80% of the WAL retention of ${t.walRetentionMs} ms): WAL retention is about to reach positions the table has not committed, and the table then holds that WAL back (it is never retired before the table commits it; docs/tables.md). Fix the committer; the WAL's storage grows until it catches up.`,
    { comparison: ComparisonOperator.GREATER_THAN_THRESHOLD },
  );
  new MetricFilter(scope, 'TableErrorLogs', {
    logGroup: t.logGroup,
    filterPattern: FilterPattern.stringValue('$.level', '=', 'ERROR'),
    metricNamespace: METRICS_NAMESPACE,
    metricName: LOG_METRICS.tableErrorLogs,
    metricValue: '1',
    dimensions: { service: '$.service', [STAGE_DIMENSION]: `$.${STAGE_DIMENSION}` },
  });
  add(
    'TableErrors',
    t.metric(LOG_METRICS.tableErrorLogs, { statistic: Stats.SUM, period }),
    1,
    'The table committer logged errors in two periods running: a table\'s run failed ("table job failed"), a Glue pointer was not moved ("catalog pointer not moved"; the Iceberg commit stands and the next run moves it), or a lag was not measured. Read the committer\'s log group.',
    { evaluationPeriods: 2 },
  );
}
