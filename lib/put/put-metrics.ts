/**
 * The metrics of one put, counted the same way by every transport (the HTTP
 * route and the SQS handler): a put that buffered its batch counts one batch,
 * its rows and its bytes; a repeat of an idempotency key buffered nothing, so
 * it counts nothing.
 */
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { Metric } from '../observability/metric-names.js';
import { metrics } from '../observability/telemetry.js';
import type { PutResult } from './put-rows.js';

/** Adds `result`'s batch, rows and bytes to the put metrics (none for a repeat). */
export function countPut(result: PutResult): void {
  if (result.repeated) return;
  metrics.addMetric(Metric.putBatches, MetricUnit.Count, 1);
  metrics.addMetric(Metric.putRows, MetricUnit.Count, result.ack.rows);
  metrics.addMetric(Metric.putBytes, MetricUnit.Bytes, result.bytes);
}
