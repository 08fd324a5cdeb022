/**
 * The service's own metrics, as the handlers emit them: Powertools EMF in
 * namespace `shardwal` with the dimensions `service=shardwal` and
 * `stage=<stage>` (`lib/observability/telemetry.ts` adds the stage from
 * `SHARDWAL_STAGE`, which `functions.ts` sets). The stage keeps two stages in
 * one account apart on every alarm and graph.
 */
import { Duration } from 'aws-cdk-lib';
import { Metric as CwMetric, type MetricOptions } from 'aws-cdk-lib/aws-cloudwatch';
import { METRICS_NAMESPACE, type MetricName } from '../../lib/observability/metric-names.js';
import { SERVICE_NAME, STAGE_DIMENSION } from '../../lib/observability/telemetry.js';

/** Metrics the stack derives from log lines (metric filters), beside the emitted ones. */
export const LOG_METRICS = {
  /** Error lines of the export function: a shard's export failed or threw. */
  exportErrorLogs: 'ExportErrorLogs',
  /** Error lines of the table committer: a table's run failed, a catalog pointer was not moved, a lag was not measured. */
  tableErrorLogs: 'TableErrorLogs',
} as const;
export type LogMetricName = (typeof LOG_METRICS)[keyof typeof LOG_METRICS];

/** The dimensions every shardwal metric of `stage` carries. */
export function serviceDimensions(stage: string): Record<string, string> {
  return { service: SERVICE_NAME, [STAGE_DIMENSION]: stage };
}

/** Builds shardwal metrics of one stage; `options` sets statistic, period, label. */
export function serviceMetrics(stage: string) {
  return (name: MetricName | LogMetricName, options: MetricOptions = {}): CwMetric =>
    new CwMetric({
      namespace: METRICS_NAMESPACE,
      metricName: name,
      dimensionsMap: serviceDimensions(stage),
      period: Duration.minutes(1),
      ...options,
    });
}

/** A function building one stage's metrics (`serviceMetrics(stage)`). */
export type ServiceMetric = ReturnType<typeof serviceMetrics>;
