/**
 * One dashboard per stage: what comes in, how flushes go, how the functions
 * keep up, and what is alarming.
 */
import { Duration } from 'aws-cdk-lib';
import {
  type Alarm,
  AlarmStatusWidget,
  Dashboard,
  GraphWidget,
  type IMetric,
  MathExpression,
  Stats,
} from 'aws-cdk-lib/aws-cloudwatch';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { Metric } from '../../lib/observability/metric-names.js';
import type { Deployed } from './functions.js';
import type { ServiceMetric } from './service-metrics.js';

/** Props of `ServiceDashboard`. */
export interface ServiceDashboardProps {
  /** Builds the stage's own metrics. */
  metric: ServiceMetric;
  functions: Deployed<NodejsFunction>;
  deadLetterQueues: Record<string, Queue>;
  alarms: Alarm[];
}

const graph = (title: string, left: IMetric[], right: IMetric[] = []) =>
  new GraphWidget({ title, left, right, width: 8, height: 6 });

/** The shardwal dashboard. */
export class ServiceDashboard extends Construct {
  readonly dashboard: Dashboard;

  constructor(scope: Construct, id: string, props: ServiceDashboardProps) {
    super(scope, id);
    const serviceMetric = props.metric;
    this.dashboard = new Dashboard(this, 'Dashboard', { defaultInterval: Duration.hours(3) });
    this.dashboard.addWidgets(
      graph('Rows in', [serviceMetric(Metric.putRows, { statistic: Stats.SUM, label: 'rows' })]),
      graph('Bytes in', [serviceMetric(Metric.putBytes, { statistic: Stats.SUM, label: 'bytes' })]),
      graph('Puts rejected', [
        serviceMetric(Metric.putRejected, { statistic: Stats.SUM, label: 'rejected' }),
      ]),
    );
    this.dashboard.addWidgets(
      graph('Flush latency (ms)', [
        serviceMetric(Metric.flushLatencyMs, { statistic: Stats.p(50), label: 'p50' }),
        serviceMetric(Metric.flushLatencyMs, { statistic: Stats.p(99), label: 'p99' }),
      ]),
      graph('WAL objects per tick', [
        // WalObjectsWritten counts 1 per object; TickDurationMs has one sample per tick.
        new MathExpression({
          expression: 'objects / ticks',
          usingMetrics: {
            objects: serviceMetric(Metric.walObjectsWritten, { statistic: Stats.SUM }),
            ticks: serviceMetric(Metric.tickDurationMs, { statistic: Stats.SAMPLE_COUNT }),
          },
          label: 'per tick',
          period: Duration.minutes(1),
        }),
        serviceMetric(Metric.walObjectsWritten, { statistic: Stats.SUM, label: 'per minute' }),
      ]),
      graph(
        'Active shards / flush lag',
        [serviceMetric(Metric.activeShards, { statistic: Stats.MAXIMUM, label: 'active shards' })],
        [serviceMetric(Metric.flushLagMs, { statistic: Stats.MAXIMUM, label: 'flush lag (ms)' })],
      ),
    );
    this.dashboard.addWidgets(
      graph(
        'Oldest pending batch (ms)',
        [
          serviceMetric(Metric.oldestPendingAgeMs, {
            statistic: Stats.MAXIMUM,
            label: 'oldest pending (ms)',
          }),
        ],
        [
          serviceMetric(Metric.ticksPerInvocation, {
            statistic: Stats.MINIMUM,
            label: 'ticks per invocation (min)',
          }),
        ],
      ),
      graph(
        'Function throttles',
        Object.entries(props.functions).map(([name, fn]) =>
          fn.metricThrottles({ statistic: Stats.SUM, label: name }),
        ),
      ),
      graph(
        'Function concurrency',
        Object.entries(props.functions).map(([name, fn]) =>
          fn.metric('ConcurrentExecutions', { statistic: Stats.MAXIMUM, label: name }),
        ),
      ),
    );
    this.dashboard.addWidgets(
      graph(
        'Function errors',
        Object.entries(props.functions).map(([name, fn]) =>
          fn.metricErrors({ statistic: Stats.SUM, label: name }),
        ),
      ),
      graph(
        'Dead-letter queues',
        Object.entries(props.deadLetterQueues).map(([name, q]) =>
          q.metricApproximateNumberOfMessagesVisible({ statistic: Stats.MAXIMUM, label: name }),
        ),
      ),
      new AlarmStatusWidget({ title: 'Alarms', alarms: props.alarms, width: 8, height: 6 }),
    );
  }
}
