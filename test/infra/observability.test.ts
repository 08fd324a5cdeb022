import type { IConstruct } from 'constructs';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  minTicksPerInvocation,
  oldestPendingThresholdMs,
} from '../../infra/constructs/alarm-thresholds.js';
import { logicalIdOf } from '../../infra/constructs/nag.js';
import { DEFAULT_HANDLERS, functionId, type Synthesized, synth } from './support.js';

let s: Synthesized;
let withEmail: Synthesized;
let withTopic: Synthesized;
const PAGER = 'arn:aws:sns:eu-west-1:111122223333:pager';
beforeAll(() => {
  s = synth({ flushIntervalMs: '10000' });
  withEmail = synth({ alarmEmail: 'oncall@example.com', flushIntervalMs: 120_000 });
  withTopic = synth({ alarmTopicArn: PAGER });
});

type AlarmProps = Record<string, unknown> & {
  Dimensions?: { Name: string; Value: unknown }[];
  Metrics?: { Id: string; Expression?: string; MetricStat?: Record<string, unknown> }[];
};
const alarms = (x: Synthesized) =>
  Object.values(x.template.findResources('AWS::CloudWatch::Alarm')).map(
    (a) => a.Properties as AlarmProps,
  );
const alarm = (x: Synthesized, id: string): AlarmProps =>
  x.template.toJSON().Resources[logicalIdOf(x.service.alarms.node.findChild(id) as IConstruct)]
    .Properties;
const stageDims = (stage = 'default') => [
  { Name: 'service', Value: 'shardwal' },
  { Name: 'stage', Value: stage },
];
const topicRef = (x: Synthesized) => ({ Ref: logicalIdOf(x.service.alarms.topic) });
const queueName = (q: IConstruct) => ({
  Name: 'QueueName',
  Value: { 'Fn::GetAtt': [logicalIdOf(q), 'QueueName'] },
});
/** The metric stats of a metric-math alarm, by id. */
const statsOf = (a: AlarmProps) =>
  Object.fromEntries(
    (a.Metrics ?? []).filter((m) => m.MetricStat).map((m) => [m.Id, m.MetricStat]),
  );
const expressionOf = (a: AlarmProps) => a.Metrics?.find((m) => m.Expression)?.Expression;

describe('Alarms', () => {
  describe('oldest pending age', () => {
    it('derives its threshold from five intervals plus the gap seal', () => {
      expect(oldestPendingThresholdMs(10_000, 6_000)).toBe(56_000);
      expect(oldestPendingThresholdMs(1_000, 30_000)).toBe(35_000);
    });

    it('alarms on the stage gauge, and on silence: a dead ticker emits no gauge', () => {
      const gapSealMs = s.service.settings.service.gapSealMs;
      expect(alarm(s, 'OldestPendingAge')).toMatchObject({
        Namespace: 'shardwal',
        MetricName: 'OldestPendingAgeMs',
        Dimensions: stageDims(),
        Statistic: 'Maximum',
        Threshold: oldestPendingThresholdMs(10_000, gapSealMs),
        ComparisonOperator: 'GreaterThanThreshold',
        EvaluationPeriods: 2,
        Period: 60,
        TreatMissingData: 'breaching',
      });
      // A 2-minute interval: the period follows the schedule rate.
      expect(alarm(withEmail, 'OldestPendingAge')).toMatchObject({ Period: 120 });
    });
  });

  describe('ticker', () => {
    it('alarms when an invocation runs under 80% of its planned ticks', () => {
      expect(
        minTicksPerInvocation({ rateMinutes: 1, ticksPerInvocation: 60, tickIntervalMs: 1000 }),
      ).toBe(48);
      expect(
        minTicksPerInvocation({ rateMinutes: 5, ticksPerInvocation: 1, tickIntervalMs: 300_000 }),
      ).toBe(1);
      // 10 s interval: 6 ticks planned, alarm under 4.
      expect(alarm(s, 'TicksPerInvocation')).toMatchObject({
        MetricName: 'TicksPerInvocation',
        Dimensions: stageDims(),
        Statistic: 'Minimum',
        Threshold: 4,
        ComparisonOperator: 'LessThanThreshold',
        EvaluationPeriods: 2,
      });
    });

    it('alarms when the ticker stops invoking, treating silence as breaching', () => {
      expect(alarm(s, 'TickerStopped')).toMatchObject({
        Namespace: 'AWS/Lambda',
        MetricName: 'Invocations',
        Dimensions: [{ Name: 'FunctionName', Value: { Ref: functionId(s, 'flushTick') } }],
        ComparisonOperator: 'LessThanThreshold',
        Threshold: 1,
        TreatMissingData: 'breaching',
      });
    });
  });

  describe('service metrics', () => {
    it('alarms on any poisoned shard, as a gauge and as an event count', () => {
      expect(alarm(s, 'PoisonedShards')).toMatchObject({
        MetricName: 'PoisonedShards',
        Statistic: 'Maximum',
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        Dimensions: stageDims(),
      });
      expect(alarm(s, 'ShardsPoisoned')).toMatchObject({
        MetricName: 'ShardsPoisoned',
        Statistic: 'Sum',
        Threshold: 1,
      });
    });

    it('alarms on the FlushErrors metric when flushes fail for 15 minutes', () => {
      expect(alarm(s, 'FlushErrors')).toMatchObject({
        Namespace: 'shardwal',
        Dimensions: stageDims(),
        Statistic: 'Sum',
        Threshold: 1,
        EvaluationPeriods: 3,
        Period: 300,
        TreatMissingData: 'notBreaching',
      });
    });

    it('counts error lines of the export log group, per stage, and alarms on one', () => {
      const filters = Object.values(s.template.findResources('AWS::Logs::MetricFilter'));
      expect(filters).toHaveLength(1);
      expect(filters[0]!.Properties).toEqual({
        LogGroupName: { Ref: logicalIdOf(s.service.functions.logGroups.export) },
        FilterPattern: '{ $.level = "ERROR" }',
        MetricTransformations: [
          {
            MetricNamespace: 'shardwal',
            MetricName: 'ExportErrorLogs',
            MetricValue: '1',
            Dimensions: [
              { Key: 'service', Value: '$.service' },
              { Key: 'stage', Value: '$.stage' },
            ],
          },
        ],
      });
      expect(alarm(s, 'ExportErrors')).toMatchObject({
        MetricName: 'ExportErrorLogs',
        Dimensions: stageDims(),
        Statistic: 'Sum',
        Threshold: 1,
      });
    });

    it('sums verify findings of every kind of this stage with a Metrics Insights query', () => {
      const verify = alarm(s, 'VerifyFindings');
      expect(verify.Metrics).toEqual([
        {
          Id: expect.any(String),
          Expression:
            'SELECT SUM(VerifyFindings) FROM SCHEMA("shardwal", kind, service, stage) WHERE stage = \'default\'',
          Label: 'verify findings',
          Period: 3600,
          ReturnData: true,
        },
      ]);
      expect(verify).toMatchObject({ Threshold: 1, TreatMissingData: 'notBreaching' });
    });
  });

  describe('resources', () => {
    it('alarms on a message in either dead-letter queue or the failures queue', () => {
      for (const [id, q] of [
        ['ingestDlqDepth', s.service.queues.ingestDlq!],
        ['flushDlqDepth', s.service.queues.flushDlq],
        ['FailuresDepth', s.service.queues.failures],
      ] as const) {
        expect(alarm(s, id)).toMatchObject({
          Namespace: 'AWS/SQS',
          MetricName: 'ApproximateNumberOfMessagesVisible',
          Dimensions: [queueName(q)],
          Threshold: 1,
          ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        });
      }
    });

    it('alarms when the oldest ingest message has waited 5 minutes, twice running', () => {
      expect(alarm(s, 'IngestQueueAge')).toMatchObject({
        MetricName: 'ApproximateAgeOfOldestMessage',
        Dimensions: [queueName(s.service.queues.ingest!)],
        Statistic: 'Maximum',
        Threshold: 300,
        EvaluationPeriods: 2,
      });
    });

    it('alarms on errors of every function', () => {
      const fns = alarms(s)
        .filter((a) => a.MetricName === 'Errors' && a.Namespace === 'AWS/Lambda')
        .map((a) => (a.Dimensions?.[0]?.Value as { Ref?: string } | undefined)?.Ref)
        .sort();
      expect(fns).toEqual(DEFAULT_HANDLERS.map((n) => functionId(s, n)).sort());
    });

    it('alarms on throttles of any of the seven functions, summed', () => {
      const throttles = alarm(s, 'LambdaThrottles');
      const stats = Object.values(statsOf(throttles));
      expect(stats).toHaveLength(7);
      expect(
        stats.map((m) => (m as { Metric: { Dimensions: { Value: { Ref: string } }[] } }).Metric),
      ).toEqual(
        expect.arrayContaining(
          DEFAULT_HANDLERS.map((n) =>
            expect.objectContaining({
              MetricName: 'Throttles',
              Dimensions: [{ Name: 'FunctionName', Value: { Ref: functionId(s, n) } }],
            }),
          ),
        ),
      );
      expect(expressionOf(throttles)).toMatch(/^SUM\(\[FILL\(t0, 0\),.*FILL\(t6, 0\)\]\)$/);
    });

    it('alarms on DynamoDB throttling of the table and of the pending index', () => {
      const table = { Name: 'TableName', Value: { Ref: logicalIdOf(s.service.storage.table) } };
      const tableStats = Object.values(statsOf(alarm(s, 'TableThrottles'))) as {
        Metric: { MetricName: string; Dimensions: unknown[] };
      }[];
      expect(tableStats.map((m) => m.Metric.MetricName).sort()).toEqual([
        'ReadThrottleEvents',
        'WriteThrottleEvents',
      ]);
      for (const m of tableStats) expect(m.Metric.Dimensions).toEqual([table]);
      const indexStats = Object.values(statsOf(alarm(s, 'PendingIndexThrottles'))) as {
        Metric: { Dimensions: unknown[] };
      }[];
      for (const m of indexStats) {
        expect(m.Metric.Dimensions).toEqual(
          expect.arrayContaining([table, { Name: 'GlobalSecondaryIndexName', Value: 'pending' }]),
        );
      }
      expect(alarm(s, 'TableThrottles')).toMatchObject({ EvaluationPeriods: 2, Threshold: 1 });
    });

    it('alarms when 5% of API requests answer 5xx, once there are 10 requests', () => {
      const api5xx = alarm(s, 'Api5xx');
      expect(expressionOf(api5xx)).toBe('IF(requests >= 10, 100 * FILL(errors, 0) / requests, 0)');
      const stats = statsOf(api5xx) as Record<string, { Metric: Record<string, unknown> }>;
      expect(stats.errors?.Metric).toMatchObject({
        Namespace: 'AWS/ApiGateway',
        MetricName: '5xx',
      });
      expect(stats.requests?.Metric).toMatchObject({ MetricName: 'Count' });
      expect(stats.errors?.Metric.Dimensions).toEqual([
        { Name: 'ApiId', Value: { Ref: logicalIdOf(s.service.api!.httpApi) } },
      ]);
      expect(api5xx).toMatchObject({ Threshold: 5, EvaluationPeriods: 2 });
    });
  });

  describe('destination', () => {
    it('notifies the topic on alarm and on recovery, from every alarm', () => {
      for (const a of alarms(s)) {
        expect(a.AlarmActions).toEqual([topicRef(s)]);
        expect(a.OKActions).toEqual([topicRef(s)]);
      }
    });

    it('subscribes the alarm email only when one is given, with undeliverable mail kept', () => {
      s.template.resourceCountIs('AWS::SNS::Subscription', 0);
      withEmail.template.hasResourceProperties('AWS::SNS::Subscription', {
        Protocol: 'email',
        Endpoint: 'oncall@example.com',
        TopicArn: topicRef(withEmail),
        RedrivePolicy: {
          deadLetterTargetArn: {
            'Fn::GetAtt': [logicalIdOf(withEmail.service.queues.failures), 'Arn'],
          },
        },
      });
    });

    it('notifies an existing topic given by ARN and creates none', () => {
      withTopic.template.resourceCountIs('AWS::SNS::Topic', 0);
      for (const a of alarms(withTopic)) expect(a.AlarmActions).toEqual([PAGER]);
      expect(withTopic.template.toJSON().Outputs.AlarmTopicArn.Value).toBe(PAGER);
    });
  });
});

describe('ServiceDashboard', () => {
  it('charts the stage metrics: rows, bytes, latency, WAL objects per tick, lag, oldest pending, ticks', () => {
    const [dashboard] = Object.values(s.template.findResources('AWS::CloudWatch::Dashboard'));
    const body = JSON.stringify(dashboard!.Properties.DashboardBody);
    for (const metric of [
      'PutRows',
      'PutBytes',
      'FlushLatencyMs',
      'WalObjectsWritten',
      'ActiveShards',
      'FlushLagMs',
      'OldestPendingAgeMs',
      'TicksPerInvocation',
    ]) {
      expect(body).toContain(
        `\\"shardwal\\",\\"${metric}\\",\\"service\\",\\"shardwal\\",\\"stage\\",\\"default\\"`,
      );
    }
    expect(body).toContain('objects / ticks');
    expect(body).toContain('\\"stat\\":\\"p50\\"');
    expect(body).toContain('\\"stat\\":\\"p99\\"');
    expect(body).toContain('Throttles');
  });
});
