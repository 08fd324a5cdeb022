/**
 * What the SQS put handler does with a refused message, by class: a
 * permanent refusal goes to the dead-letter queue with its reason and is
 * reported done (one WARN line, no stack); a retryable one is a batch item
 * failure, held back for a visibility timeout that grows with its receive
 * count.
 */
import type { SQSEvent } from 'aws-lambda';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ErrorKind } from '../../lib/errors.js';
import { poisonShard } from '../../lib/fence/commit.js';
import { readBatchHead } from '../../lib/memtable/batch-heads.js';
import { readShardRecord } from '../../lib/memtable/shard-record.js';
import { logger } from '../../lib/observability/telemetry.js';
import { handlePutMessages } from '../../lib/sqs/put-messages.js';
import { type Fixture, fixture, useDynalite } from '../support/harness.js';
import { lambdaContext } from '../support/lambda-context.js';
import { SqsSample, sample, withRecord } from './events.js';
import { RecordingQueues } from './recording-queues.js';

const dynalite = useDynalite();

afterEach(() => {
  vi.restoreAllMocks();
});

const failedIds = (response: { batchItemFailures: { itemIdentifier: string }[] }) =>
  response.batchItemFailures.map((failure) => failure.itemIdentifier).sort();

function handle(f: Fixture, event: SQSEvent, queues?: RecordingQueues) {
  return handlePutMessages(event, lambdaContext(), f.put, queues);
}

describe('handlePutMessages', () => {
  describe('permanent refusals', () => {
    it('sends an invalid message to the dead-letter queue with its reason and reports it done, in one WARN line with no stack', async () => {
      const f = await fixture(dynalite());
      const queues = new RecordingQueues();
      const warn = vi.spyOn(logger, 'warn');
      const error = vi.spyOn(logger, 'error');
      const event = sample(SqsSample.standardBatch);
      const response = await handle(f, event, queues);
      expect(response.batchItemFailures).toEqual([]);
      expect(queues.deadLettered).toHaveLength(1);
      const [dead] = queues.deadLettered;
      expect(dead!.record.messageId).toBe(event.Records[2]!.messageId);
      expect(dead!.reason).toEqual({
        kind: ErrorKind.invalidInput,
        message: expect.stringMatching(/^body\.rows: /),
      });
      expect(queues.heldBack).toEqual([]);
      expect(error).not.toHaveBeenCalled();
      expect(warn).toHaveBeenCalledTimes(1);
      const [message, fields] = warn.mock.calls[0]! as [string, Record<string, unknown>];
      expect(message).toBe('message refused; sent to the dead-letter queue');
      expect(Object.values(fields).some((value) => value instanceof Error)).toBe(false);
      expect(fields).toMatchObject({ messageId: dead!.record.messageId, kind: 'invalid_input' });
      // The two valid messages are buffered.
      expect(await readShardRecord(f.table, 'clicks')).toMatchObject({ nextSeq: 3 });
    });

    it.each([
      ['a Binary key over 189 bytes', ErrorKind.invalidInput],
      ['a key reused with another payload', ErrorKind.keyReused],
      ['more rows than allowed', ErrorKind.invalidInput],
    ])('dead-letters %s', async (what, kind) => {
      const f = await fixture(dynalite(), { maxRowsPerPut: 2 });
      const queues = new RecordingQueues();
      const [first] = sample(SqsSample.standardBatch).Records;
      let record = first!;
      if (what.startsWith('a Binary')) {
        record = withRecord(first!, {
          messageAttributes: {
            IdempotencyKey: {
              dataType: 'Binary',
              binaryValue: Buffer.alloc(190).toString('base64'),
              stringListValues: [],
              binaryListValues: [],
            },
          },
        });
      } else if (what.startsWith('a key reused')) {
        await handle(f, { Records: [first!] }, queues);
        record = withRecord(first!, {
          messageId: 'same-key-other-rows',
          body: first!.body.replace('/pricing', '/careers'),
        });
      } else {
        record = withRecord(first!, {
          body: '{"shard":"clicks","rows":[{"a":1},{"a":2},{"a":3}]}',
          messageAttributes: {},
        });
      }
      const before = await readShardRecord(f.table, 'clicks');
      const response = await handle(f, { Records: [record] }, queues);
      expect(response.batchItemFailures).toEqual([]);
      expect(queues.deadLettered.map((d) => d.reason.kind)).toEqual([kind]);
      // Nothing is buffered: a seq allocated before the key was met is sealed void.
      const after = await readShardRecord(f.table, 'clicks');
      for (let seq = before?.nextSeq ?? 1; seq < (after?.nextSeq ?? 1); seq++) {
        expect(await readBatchHead(f.table, 'clicks', seq)).toMatchObject({ kind: 'void' });
      }
    });

    it('fails and retries the message instead when the dead-letter queue cannot take it', async () => {
      const f = await fixture(dynalite());
      const queues = new RecordingQueues();
      queues.failDeadLetter = true;
      const error = vi.spyOn(logger, 'error');
      const event = sample(SqsSample.standardBatch);
      const response = await handle(f, event, queues);
      expect(failedIds(response)).toEqual([event.Records[2]!.messageId]);
      expect(queues.heldBack).toEqual([{ messageId: event.Records[2]!.messageId, seconds: 10 }]);
      expect(error).toHaveBeenCalledWith(
        'could not dead-letter a refused message; it is retried',
        expect.objectContaining({ kind: 'invalid_input' }),
      );
    });

    it('leaves a refused message to the redrive policy, loudly, when no queues are wired', async () => {
      const f = await fixture(dynalite());
      const error = vi.spyOn(logger, 'error');
      const event = sample(SqsSample.standardBatch);
      const response = await handle(f, event);
      expect(failedIds(response)).toEqual([event.Records[2]!.messageId]);
      expect(error.mock.calls.map(([message]) => message)).toEqual([
        'message can never succeed, but no dead-letter queue is wired; left to the redrive policy',
        'no ingest queues wired: failed messages return after the queue visibility timeout',
      ]);
    });
  });

  describe('retryable refusals', () => {
    it('holds a message for a poisoned shard back, longer at each receive, and does not dead-letter it', async () => {
      const f = await fixture(dynalite());
      await poisonShard(f.table, 'sick', 'diverged', 1);
      const queues = new RecordingQueues();
      const [first] = sample(SqsSample.standardBatch).Records;
      for (const [count, seconds] of [
        ['1', 10],
        ['4', 80],
        ['40', 900],
      ] as const) {
        const sick = withRecord(first!, {
          messageId: `sick-${count}`,
          body: first!.body.replace('clicks', 'sick'),
          messageAttributes: {},
          attributes: { ApproximateReceiveCount: count },
        });
        const response = await handle(f, { Records: [sick] }, queues);
        expect(failedIds(response)).toEqual([`sick-${count}`]);
        expect(queues.heldBack.at(-1)).toEqual({ messageId: `sick-${count}`, seconds });
      }
      expect(queues.deadLettered).toEqual([]);
    });

    it('holds back a backpressured message and buffers it on a later receive', async () => {
      const f = await fixture(dynalite(), { maxBufferedBytes: 120, flushTriggerBytes: 120 });
      const queues = new RecordingQueues();
      const [first] = sample(SqsSample.standardBatch).Records;
      const fill = withRecord(first!, { messageId: 'fill', messageAttributes: {} });
      await handle(f, { Records: [fill] }, queues);
      const hot = withRecord(fill, { messageId: 'hot' });
      const warn = vi.spyOn(logger, 'warn');
      expect(failedIds(await handle(f, { Records: [hot] }, queues))).toEqual(['hot']);
      expect(queues.heldBack).toEqual([{ messageId: 'hot', seconds: 10 }]);
      expect(warn).toHaveBeenCalledWith(
        'message not buffered; held back for a retry',
        expect.objectContaining({ kind: ErrorKind.backpressure, holdBackSeconds: 10 }),
      );
    });

    it('reports a hold-back SQS refused, and still fails the message', async () => {
      const f = await fixture(dynalite());
      await poisonShard(f.table, 'sick', 'diverged', 1);
      const queues = new RecordingQueues();
      queues.failHoldBack = true;
      const warn = vi.spyOn(logger, 'warn');
      const [first] = sample(SqsSample.standardBatch).Records;
      const sick = withRecord(first!, {
        body: first!.body.replace('clicks', 'sick'),
        messageAttributes: {},
      });
      expect(failedIds(await handle(f, { Records: [sick] }, queues))).toEqual([sick.messageId]);
      expect(warn).toHaveBeenCalledWith(
        'could not hold back messages; they return after the queue visibility timeout',
        { messageIds: [sick.messageId] },
      );
    });
  });

  describe('SNS fan-in', () => {
    it('buffers the put an SNS envelope carries, keyed by its IdempotencyKey attribute', async () => {
      const f = await fixture(dynalite());
      const queues = new RecordingQueues();
      const event = sample(SqsSample.snsEnvelope);
      expect((await handle(f, event, queues)).batchItemFailures).toEqual([]);
      // SNS redelivers the same envelope in a new SQS message: the key makes it a repeat.
      const again = withRecord(event.Records[0]!, { messageId: 'sns-redelivery' });
      expect((await handle(f, { Records: [again] }, queues)).batchItemFailures).toEqual([]);
      // The repeat's own seq is sealed void: nothing more is buffered.
      expect(await readShardRecord(f.table, 'orders')).toMatchObject({ nextSeq: 3 });
    });

    it('dead-letters an envelope whose Message is not a put, naming the SNS Message field', async () => {
      const f = await fixture(dynalite());
      const queues = new RecordingQueues();
      const [record] = sample(SqsSample.snsEnvelope).Records;
      const envelope = JSON.parse(record!.body) as Record<string, unknown>;
      envelope.Message = '{"shard":"orders","rows":[{"a":1,"a":2}]}';
      const bad = withRecord(record!, { body: JSON.stringify(envelope) });
      expect((await handle(f, { Records: [bad] }, queues)).batchItemFailures).toEqual([]);
      expect(queues.deadLettered[0]?.reason.message).toMatch(/^SNS Message body\.rows\[0\]\.a: /);
      expect(await readShardRecord(f.table, 'orders')).toBeUndefined();
    });
  });
});
