/**
 * The service's own metrics, as the handlers emit them: Powertools EMF in
 * namespace `shardwal` with the default dimension `service=shardwal`.
 */
import { Duration } from 'aws-cdk-lib';
import { Metric as CwMetric, type MetricOptions } from 'aws-cdk-lib/aws-cloudwatch';
import { METRICS_NAMESPACE, type MetricName } from '../../lib/observability/metric-names.js';
import { SERVICE_NAME } from './functions.js';

/** A shardwal metric; `options` sets statistic, period, label. */
export function serviceMetric(name: MetricName, options: MetricOptions = {}): CwMetric {
  return new CwMetric({
    namespace: METRICS_NAMESPACE,
    metricName: name,
    dimensionsMap: { service: SERVICE_NAME },
    period: Duration.minutes(1),
    ...options,
  });
}
