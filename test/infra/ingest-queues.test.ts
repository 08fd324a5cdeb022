/**
 * The SQS ingest side of the stack: the FIFO ingest queue beside the
 * standard one, what put-sqs may do with them, the alarms on held-back and
 * dead-lettered puts, and the export schedule's input.
 */
import type { IConstruct } from 'constructs';
import { beforeAll, describe, expect, it } from 'vitest';
import { logicalIdOf } from '../../infra/constructs/nag.js';
import { parseExportEvent } from '../../lib/export/export-event.js';
import { HOLD_BACK } from '../../lib/sqs/hold-back.js';
import { actionsOf, type Statement, type Synthesized, statementsOf, synth } from './support.js';

let s: Synthesized;
beforeAll(() => {
  s = synth({});
});

const resource = (c: IConstruct) => s.template.toJSON().Resources[logicalIdOf(c)];
const alarm = (id: string) =>
  resource(s.service.alarms.node.findChild(id) as IConstruct).Properties;

/** Resolves the intrinsics of a schedule input the way CloudFormation and Scheduler would. */
function resolveInput(input: unknown): string {
  if (typeof input === 'string') return input;
  const join = (input as { 'Fn::Join': [string, unknown[]] })['Fn::Join'];
  return join[1]
    .map((part) => {
      if (typeof part === 'string') return part;
      const ref = (part as { Ref: string }).Ref;
      return ref === 'AWS::AccountId' ? '123456789012' : ref === 'AWS::Region' ? 'us-east-1' : ref;
    })
    .join(join[0]);
}

describe('ShardwalService', () => {
  describe('FIFO ingest queue', () => {
    it('is FIFO, per-group (= per-shard) throughput and deduplication, no content-based deduplication', () => {
      expect(resource(s.service.queues.ingestFifo!).Properties).toMatchObject({
        FifoQueue: true,
        ContentBasedDeduplication: false,
        DeduplicationScope: 'messageGroup',
        FifoThroughputLimit: 'perMessageGroupId',
        MessageRetentionPeriod: HOLD_BACK.retentionSeconds,
        SqsManagedSseEnabled: true,
      });
      expect(resource(s.service.queues.ingestFifoDlq!).Properties).toMatchObject({
        FifoQueue: true,
      });
      expect(resource(s.service.queues.ingestFifo!).DeletionPolicy).toBe('Retain');
      expect(resource(s.service.queues.ingestFifoDlq!).DeletionPolicy).toBe('Retain');
    });

    it('is an output beside the standard queue', () => {
      expect(s.template.toJSON().Outputs.IngestFifoQueueUrl.Value).toEqual({
        Ref: logicalIdOf(s.service.queues.ingestFifo!),
      });
    });

    it('lets producers send to both ingest queues, and nothing else of SQS', () => {
      const policy = s.template.toJSON().Resources[logicalIdOf(s.service.producers.policy!)];
      const statements = policy!.Properties.PolicyDocument.Statement as Statement[];
      const send = statements.find((st) => actionsOf([st]).includes('sqs:SendMessage'))!;
      expect(send.Resource).toEqual([
        { 'Fn::GetAtt': [logicalIdOf(s.service.queues.ingest!), 'Arn'] },
        { 'Fn::GetAtt': [logicalIdOf(s.service.queues.ingestFifo!), 'Arn'] },
      ]);
    });
  });

  describe('put-sqs', () => {
    it('may hold back messages on both ingest queues (the event sources grant ChangeMessageVisibility)', () => {
      for (const queue of [s.service.queues.ingest!, s.service.queues.ingestFifo!]) {
        const arn = JSON.stringify({ 'Fn::GetAtt': [logicalIdOf(queue), 'Arn'] });
        const grants = statementsOf(s, 'putSqs').filter((st) =>
          (Array.isArray(st.Resource) ? st.Resource : [st.Resource]).some(
            (r: unknown) => JSON.stringify(r) === arn,
          ),
        );
        expect(actionsOf(grants)).toContain('sqs:ChangeMessageVisibility');
      }
    });
  });

  describe('alarms', () => {
    it('alarms when an SQS put has been held back 15 minutes, over an hour that always sees a hold-back', () => {
      expect(alarm('IngestHeldBack')).toMatchObject({
        Namespace: 'shardwal',
        MetricName: 'IngestHeldBackAgeMs',
        Statistic: 'Maximum',
        Period: 3600,
        Threshold: 15 * 60_000,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      });
      // Hold-backs are at most 15 min apart: a message held back keeps reporting within the period.
      expect(HOLD_BACK.maxSeconds).toBeLessThan(3600);
    });

    it('alarms on the FIFO dead-letter queue and on the age of the FIFO queue', () => {
      expect(alarm('ingestFifoDlqDepth')).toMatchObject({
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Threshold: 1,
      });
      expect(alarm('ingestFifoDlqDepth').AlarmDescription).toContain('ShardwalRefusal');
      expect(alarm('IngestFifoQueueAge')).toMatchObject({
        MetricName: 'ApproximateAgeOfOldestMessage',
        Threshold: 300,
        EvaluationPeriods: 2,
      });
    });
  });

  describe('export schedule', () => {
    it('sends the Scheduled Event the export function takes as "export all"', () => {
      const exportSchedule = resource(s.service.schedules.export).Properties;
      const input = JSON.parse(
        resolveInput(exportSchedule.Target.Input)
          .replace('<aws.scheduler.execution-id>', 'run-1')
          .replace('<aws.scheduler.scheduled-time>', '2026-03-12T10:15:00Z')
          .replace(
            '<aws.scheduler.schedule-arn>',
            'arn:aws:scheduler:us-east-1:123456789012:schedule/default/x',
          ),
      );
      expect(input).toMatchObject({ 'detail-type': 'Scheduled Event', source: 'aws.scheduler' });
      expect(parseExportEvent(input)).toEqual({ kind: 'all' });
    });
  });
});
