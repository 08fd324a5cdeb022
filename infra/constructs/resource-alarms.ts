/**
 * Alarms on the AWS resources around the service:
 *
 *   <queue>DlqDepth     an ingest put was refused for good (put-sqs sent it
 *                       with its reason) or held back for 7 days, or a flush
 *                       request failed 5 receives
 *   FailuresDepth       a scheduled invocation (ticker, export, verify) failed
 *                       or could not be delivered, or an alarm notification
 *                       could not be delivered
 *   Ingest(Fifo)QueueAge  the oldest ingest message is 5 minutes old: the SQS
 *                       consumers fall behind (throttled, failing, capped)
 *   <fn>Errors          a function invocation failed
 *   LambdaThrottles     an invocation of any function was throttled
 *   TableThrottles      DynamoDB throttled reads or writes on the table...
 *   PendingIndexThrottles  ...or on the pending index (GSI), which throttles
 *                       the table's writes in turn
 *   Api5xx              5% or more of API requests answered 5xx
 */
import { Duration } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import { MathExpression, Metric, Stats } from 'aws-cdk-lib/aws-cloudwatch';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { INGEST_MAX_RECEIVE_COUNT } from '../../lib/sqs/hold-back.js';
import { ALARM_LIMITS } from './alarm-thresholds.js';
import type { AddAlarm } from './alarms.js';
import type { Deployed } from './functions.js';
import { MAX_RECEIVE_COUNT, type Queues } from './queues.js';
import { TABLE_LAYOUT } from './storage.js';

/** What the resource alarms watch. */
export interface ResourceAlarmTargets {
  functions: Deployed<NodejsFunction>;
  queues: Queues;
  table: ITable;
  /** Undefined when the service has no HTTP API. */
  httpApi: HttpApi | undefined;
}

const FIVE_MINUTES = Duration.minutes(5);

/** Read plus write throttle events of the table, or of one of its indexes. */
function throttleEvents(table: ITable, indexName?: string): MathExpression {
  const event = (metricName: string) =>
    new Metric({
      namespace: 'AWS/DynamoDB',
      metricName,
      dimensionsMap: {
        TableName: table.tableName,
        ...(indexName ? { GlobalSecondaryIndexName: indexName } : {}),
      },
      statistic: Stats.SUM,
      period: FIVE_MINUTES,
    });
  return new MathExpression({
    expression: 'FILL(reads, 0) + FILL(writes, 0)',
    usingMetrics: { reads: event('ReadThrottleEvents'), writes: event('WriteThrottleEvents') },
    period: FIVE_MINUTES,
    label: 'throttle events',
  });
}

/** Adds the alarms on queues, functions, the table and the API. */
export function addResourceAlarms(add: AddAlarm, t: ResourceAlarmTargets): void {
  const ingestWhy = `each was refused for good by put-sqs (its ShardwalRefusalKind and ShardwalRefusal attributes say why: fix the producer, do not redrive as is) or held back for ${INGEST_MAX_RECEIVE_COUNT} receives (about 7 days) without landing`;
  const dlqs = [
    ['ingest', t.queues.ingestDlq, ingestWhy],
    ['ingestFifo', t.queues.ingestFifoDlq, ingestWhy],
    [
      'flush',
      t.queues.flushDlq,
      `each failed ${MAX_RECEIVE_COUNT} receives; inspect and redrive them`,
    ],
  ] as const;
  for (const [name, dlq, why] of dlqs) {
    if (!dlq) continue; // an ingest queue left out
    add(
      `${name}DlqDepth`,
      dlq.metricApproximateNumberOfMessagesVisible({
        statistic: Stats.MAXIMUM,
        period: FIVE_MINUTES,
      }),
      1,
      `Messages are waiting in the ${name} dead-letter queue: ${why}.`,
    );
  }
  add(
    'FailuresDepth',
    t.queues.failures.metricApproximateNumberOfMessagesVisible({
      statistic: Stats.MAXIMUM,
      period: FIVE_MINUTES,
    }),
    1,
    'A record is waiting in the failures queue: a ticker, export or verify invocation failed (it is not retried) or could not be delivered, or an alarm notification could not be delivered. Each message names the function or schedule and the error.',
  );
  for (const [id, queue] of [
    ['IngestQueueAge', t.queues.ingest],
    ['IngestFifoQueueAge', t.queues.ingestFifo],
  ] as const) {
    if (!queue) continue;
    add(
      id,
      queue.metricApproximateAgeOfOldestMessage({
        statistic: Stats.MAXIMUM,
        period: FIVE_MINUTES,
      }),
      ALARM_LIMITS.ingestQueueAgeSeconds,
      `The oldest message on the ${queue === t.queues.ingest ? 'ingest' : 'FIFO ingest'} queue has waited ${ALARM_LIMITS.ingestQueueAgeSeconds} s or more in two periods running: put-sqs falls behind the producers (throttled, failing, capped by ${queue === t.queues.ingest ? 'ingestStandardMaxConcurrency' : 'ingestFifoMaxConcurrency'}), or holds messages back (see IngestHeldBack).`,
      { evaluationPeriods: 2 },
    );
  }

  for (const [name, fn] of Object.entries(t.functions)) {
    add(
      `${name}Errors`,
      fn.metricErrors({ statistic: Stats.SUM, period: FIVE_MINUTES }),
      1,
      `The ${name} function failed invocations in the last five minutes (see its log group).`,
    );
  }
  const throttles = Object.values(t.functions).map((fn) =>
    fn.metricThrottles({ statistic: Stats.SUM, period: FIVE_MINUTES }),
  );
  add(
    'LambdaThrottles',
    new MathExpression({
      expression: `SUM([${throttles.map((_, i) => `FILL(t${i}, 0)`).join(', ')}])`,
      usingMetrics: Object.fromEntries(throttles.map((m, i) => [`t${i}`, m])),
      period: FIVE_MINUTES,
      label: 'throttled invocations',
    }),
    ALARM_LIMITS.lambdaThrottles,
    "Lambda throttled invocations of this service's functions: the account's concurrency is exhausted, or a function hit its reserved concurrency. See the dashboard's throttles graph for which one.",
  );

  add(
    'TableThrottles',
    throttleEvents(t.table),
    ALARM_LIMITS.dynamoThrottleEvents,
    'DynamoDB throttled the table in two 5-minute periods running: a shard takes more than its partition can (about 1,000 write units a second per shard), or the table hit its on-demand limit. Spread the load over more shards.',
    { evaluationPeriods: 2 },
  );
  add(
    'PendingIndexThrottles',
    throttleEvents(t.table, TABLE_LAYOUT.pendingIndex),
    ALARM_LIMITS.dynamoThrottleEvents,
    'DynamoDB throttled the pending index (GSI) in two 5-minute periods running; index throttling holds back the table writes that mark shards pending.',
    { evaluationPeriods: 2 },
  );

  const api = t.httpApi;
  if (api) {
    add(
      'Api5xx',
      new MathExpression({
        expression: `IF(requests >= ${ALARM_LIMITS.api5xxMinRequests}, 100 * FILL(errors, 0) / requests, 0)`,
        usingMetrics: {
          errors: api.metricServerError({ statistic: Stats.SUM, period: FIVE_MINUTES }),
          requests: api.metricCount({ statistic: Stats.SUM, period: FIVE_MINUTES }),
        },
        period: FIVE_MINUTES,
        label: '5xx %',
      }),
      ALARM_LIMITS.api5xxPercent,
      `${ALARM_LIMITS.api5xxPercent}% or more of the API's requests (over ${ALARM_LIMITS.api5xxMinRequests} a period) answered 5xx in two 5-minute periods running: put-http or status-http fail or time out, or shards are poisoned (503).`,
      { evaluationPeriods: 2 },
    );
  }
}
