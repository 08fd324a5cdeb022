/**
 * Alarms that mean an operator should look, all notifying one SNS topic:
 *
 *   FlushLag        the oldest buffered batch waits far longer than the interval
 *   FlushErrors     flushes failed for 15 minutes running (a failing flush is
 *                   caught and retried next tick, so it neither fails the
 *                   invocation nor emits a lag metric; `FlushErrors` counts it)
 *   TickerStopped   no flush tick ran: durable puts would wait forever
 *   PoisonedShards  a flush met (or left) its shard poisoned / ShardsPoisoned: a shard
 *                   was poisoned (both: any datapoint ≥ 1)
 *   <queue>DlqDepth messages were dead-lettered
 *   <fn>Errors      a function invocation failed
 */
import { Duration } from 'aws-cdk-lib';
import {
  Alarm,
  ComparisonOperator,
  type IMetric,
  Stats,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { Metric } from '../../lib/observability/metric-names.js';
import type { SchedulePlan } from '../../lib/ticker/schedule-plan.js';
import type { HandlerName } from './functions.js';
import { MAX_RECEIVE_COUNT } from './queues.js';
import { serviceMetric } from './service-metrics.js';

/** Flush lag that alarms: five intervals plus a minute of slack for a slow tick. */
export function flushLagThresholdMs(intervalMs: number): number {
  return 5 * intervalMs + 60_000;
}

/** Props of `Alarms`. */
export interface AlarmsProps {
  intervalMs: number;
  ticker: SchedulePlan;
  functions: Record<HandlerName, NodejsFunction>;
  deadLetterQueues: Record<string, Queue>;
  alarmEmail: string | undefined;
}

/** The alarm topic and the alarms. */
export class Alarms extends Construct {
  readonly topic: Topic;
  readonly all: Alarm[] = [];

  constructor(scope: Construct, id: string, props: AlarmsProps) {
    super(scope, id);
    this.topic = new Topic(this, 'Topic', { displayName: 'shardwal alarms', enforceSSL: true });
    if (props.alarmEmail) this.topic.addSubscription(new EmailSubscription(props.alarmEmail));
    const action = new SnsAction(this.topic);
    const alarm = (
      alarmId: string,
      metric: IMetric,
      threshold: number,
      description: string,
      extra: {
        comparison?: ComparisonOperator;
        missing?: TreatMissingData;
        evaluationPeriods?: number;
      } = {},
    ) => {
      const created = new Alarm(this, alarmId, {
        metric,
        threshold,
        alarmDescription: description,
        comparisonOperator:
          extra.comparison ?? ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: extra.evaluationPeriods ?? 1,
        // Most of these metrics are only emitted when something happens.
        treatMissingData: extra.missing ?? TreatMissingData.NOT_BREACHING,
      });
      created.addAlarmAction(action);
      created.addOkAction(action);
      this.all.push(created);
      return created;
    };

    const tickPeriod = Duration.minutes(Math.max(1, props.ticker.rateMinutes));
    const lagMs = flushLagThresholdMs(props.intervalMs);
    alarm(
      'FlushLag',
      serviceMetric(Metric.flushLagMs, { statistic: Stats.MAXIMUM, period: tickPeriod }),
      lagMs,
      `The oldest buffered batch has waited ${lagMs} ms (5 flush intervals + 60 s) or more in two consecutive periods: flushes are falling behind (failing flushes show as FlushErrors).`,
      { comparison: ComparisonOperator.GREATER_THAN_THRESHOLD, evaluationPeriods: 2 },
    );
    alarm(
      'FlushErrors',
      serviceMetric(Metric.flushErrors, { statistic: Stats.SUM, period: Duration.minutes(5) }),
      1,
      'Flushes failed in three consecutive 5-minute periods: they keep failing (S3, DynamoDB, permissions) and are only being retried. See the flushTick/flushWorker logs.',
      { evaluationPeriods: 3 },
    );
    const stoppedPeriod = Duration.minutes(Math.max(5, 2 * props.ticker.rateMinutes));
    alarm(
      'TickerStopped',
      props.functions.flushTick.metricInvocations({ statistic: Stats.SUM, period: stoppedPeriod }),
      1,
      'The flush ticker did not run: nothing reaches the WAL except size-triggered flushes, and durable puts time out.',
      { comparison: ComparisonOperator.LESS_THAN_THRESHOLD, missing: TreatMissingData.BREACHING },
    );
    const fiveMinutes = Duration.minutes(5);
    alarm(
      'PoisonedShards',
      serviceMetric(Metric.poisonedShards, { statistic: Stats.MAXIMUM, period: fiveMinutes }),
      1,
      'A shard is poisoned (its record and S3 diverged, or an append failed terminally); puts to it get 503 until it is rebuilt (docs/deploy.md).',
    );
    alarm(
      'ShardsPoisoned',
      serviceMetric(Metric.shardsPoisoned, { statistic: Stats.SUM, period: fiveMinutes }),
      1,
      'A flush poisoned a shard in the last five minutes.',
    );
    for (const [name, dlq] of Object.entries(props.deadLetterQueues)) {
      alarm(
        `${name}DlqDepth`,
        dlq.metricApproximateNumberOfMessagesVisible({
          statistic: Stats.MAXIMUM,
          period: fiveMinutes,
        }),
        1,
        `Messages are waiting in the ${name} dead-letter queue: each failed ${MAX_RECEIVE_COUNT} receives; inspect and redrive them.`,
      );
    }
    for (const [name, fn] of Object.entries(props.functions)) {
      alarm(
        `${name}Errors`,
        fn.metricErrors({ statistic: Stats.SUM, period: fiveMinutes }),
        1,
        `The ${name} function failed invocations in the last five minutes (see its log group).`,
      );
    }
  }
}
