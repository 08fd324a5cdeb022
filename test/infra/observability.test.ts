import { beforeAll, describe, expect, it } from 'vitest';
import { flushLagThresholdMs } from '../../infra/constructs/alarms.js';
import { HANDLERS, type HandlerName } from '../../infra/constructs/functions.js';
import { logicalIdOf } from '../../infra/constructs/nag.js';
import { functionId, type Synthesized, synth } from './support.js';

let s: Synthesized;
let withEmail: Synthesized;
beforeAll(() => {
  s = synth({ flushIntervalMs: '10000' });
  withEmail = synth({ alarmEmail: 'oncall@example.com', flushIntervalMs: 120_000 });
});

type AlarmProps = Record<string, unknown> & { Dimensions?: { Name: string; Value: unknown }[] };
const alarms = (x: Synthesized) =>
  Object.values(x.template.findResources('AWS::CloudWatch::Alarm')).map(
    (a) => a.Properties as AlarmProps,
  );
const alarmOn = (x: Synthesized, metricName: string, namespace = 'shardwal') =>
  alarms(x).filter((a) => a.MetricName === metricName && a.Namespace === namespace);
const topicRef = (x: Synthesized) => ({ Ref: logicalIdOf(x.stack.alarms.topic) });

describe('Alarms', () => {
  it('alarms on flush lag above five intervals plus a minute', () => {
    expect(flushLagThresholdMs(10_000)).toBe(110_000);
    const [lag] = alarmOn(s, 'FlushLagMs');
    expect(lag).toMatchObject({
      Statistic: 'Maximum',
      Threshold: 110_000,
      ComparisonOperator: 'GreaterThanThreshold',
      Dimensions: [{ Name: 'service', Value: 'shardwal' }],
      Period: 60,
      TreatMissingData: 'notBreaching',
    });
    // A 2-minute interval: the period follows the schedule rate.
    expect(alarmOn(withEmail, 'FlushLagMs')[0]).toMatchObject({ Threshold: 660_000, Period: 120 });
  });

  it('alarms on any poisoned shard, as a gauge and as an event count', () => {
    expect(alarmOn(s, 'PoisonedShards')[0]).toMatchObject({
      Statistic: 'Maximum',
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      Dimensions: [{ Name: 'service', Value: 'shardwal' }],
    });
    expect(alarmOn(s, 'ShardsPoisoned')[0]).toMatchObject({
      Statistic: 'Sum',
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    });
  });

  it('alarms on a message in either dead-letter queue', () => {
    const dlqAlarms = alarmOn(s, 'ApproximateNumberOfMessagesVisible', 'AWS/SQS');
    const queues = dlqAlarms.map((a) => JSON.stringify(a.Dimensions));
    expect(dlqAlarms).toHaveLength(2);
    for (const dlq of [s.stack.queues.ingestDlq, s.stack.queues.flushDlq]) {
      expect(queues.some((q) => q.includes(logicalIdOf(dlq)))).toBe(true);
    }
    for (const a of dlqAlarms)
      expect(a).toMatchObject({
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      });
  });

  it('alarms on errors of every function', () => {
    const errorAlarms = alarmOn(s, 'Errors', 'AWS/Lambda');
    const fns = errorAlarms
      .map((a) => (a.Dimensions?.[0]?.Value as { Ref?: string } | undefined)?.Ref)
      .sort();
    expect(fns).toEqual(
      (Object.keys(HANDLERS) as HandlerName[]).map((n) => functionId(s, n)).sort(),
    );
  });

  it('alarms on the FlushErrors metric when flushes fail for 15 minutes', () => {
    expect(s.template.findResources('AWS::Logs::MetricFilter')).toEqual({});
    expect(alarmOn(s, 'FlushErrors')[0]).toMatchObject({
      Namespace: 'shardwal',
      Statistic: 'Sum',
      Threshold: 1,
      EvaluationPeriods: 3,
      Period: 300,
      TreatMissingData: 'notBreaching',
    });
  });

  it('alarms when the ticker stops invoking, treating silence as breaching', () => {
    const stopped = alarmOn(s, 'Invocations', 'AWS/Lambda');
    expect(stopped).toHaveLength(1);
    expect(stopped[0]).toMatchObject({
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: functionId(s, 'flushTick') } }],
      ComparisonOperator: 'LessThanThreshold',
      Threshold: 1,
      TreatMissingData: 'breaching',
    });
  });

  it('notifies the topic on alarm and on recovery, from every alarm', () => {
    for (const a of alarms(s)) {
      expect(a.AlarmActions).toEqual([topicRef(s)]);
      expect(a.OKActions).toEqual([topicRef(s)]);
    }
  });

  it('subscribes the alarm email only when one is given', () => {
    s.template.resourceCountIs('AWS::SNS::Subscription', 0);
    withEmail.template.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'oncall@example.com',
      TopicArn: topicRef(withEmail),
    });
  });
});

describe('ServiceDashboard', () => {
  it('charts rows in, bytes in, flush latency p50/p99, WAL objects per tick, active shards and lag', () => {
    const [dashboard] = Object.values(s.template.findResources('AWS::CloudWatch::Dashboard'));
    const body = JSON.stringify(dashboard!.Properties.DashboardBody);
    for (const metric of [
      'PutRows',
      'PutBytes',
      'FlushLatencyMs',
      'WalObjectsWritten',
      'ActiveShards',
      'FlushLagMs',
    ]) {
      expect(body).toContain(`\\"shardwal\\",\\"${metric}\\",\\"service\\",\\"shardwal\\"`);
    }
    expect(body).toContain('objects / ticks');
    expect(body).toContain('\\"stat\\":\\"p50\\"');
    expect(body).toContain('\\"stat\\":\\"p99\\"');
  });
});
