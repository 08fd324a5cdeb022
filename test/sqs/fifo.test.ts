/**
 * FIFO ingest, in process with the sample FIFO event (`events/sqs-fifo-batch.json`:
 * groups `orders` and `clicks`, event source ARN ending in `.fifo`): a failed
 * message fails every later message of its group in the batch, and only
 * those; a message refused for good does not hold its group; the
 * deduplication id is the idempotency key.
 */
import type { SQSEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { poisonShard } from '../../lib/fence/commit.js';
import { flushShard } from '../../lib/flush/flush-shard.js';
import { readShardRecord } from '../../lib/memtable/shard-record.js';
import { handlePutMessages } from '../../lib/sqs/put-messages.js';
import { walRowTexts } from '../http/stored.js';
import { type Fixture, fixture, useDynalite } from '../support/harness.js';
import { lambdaContext } from '../support/lambda-context.js';
import { SqsSample, sample, withRecord } from './events.js';
import { RecordingQueues } from './recording-queues.js';

const dynalite = useDynalite();

const ids = (event: SQSEvent) => event.Records.map((record) => record.messageId);
const failedIds = (response: { batchItemFailures: { itemIdentifier: string }[] }) =>
  response.batchItemFailures.map((failure) => failure.itemIdentifier);

function handle(f: Fixture, event: SQSEvent, queues: RecordingQueues) {
  return handlePutMessages(event, lambdaContext(), f.put, queues);
}

/** The sample batch with the `orders` messages sent to shard `orders-b` instead (to fail them). */
function ordersTo(shard: string): SQSEvent {
  const event = sample(SqsSample.fifoBatch);
  for (const record of event.Records) {
    record.body = record.body.replace('"shard":"orders"', `"shard":"${shard}"`);
  }
  return event;
}

describe('handlePutMessages', () => {
  describe('from a FIFO queue', () => {
    it('buffers each group in send order', async () => {
      const f = await fixture(dynalite());
      const queues = new RecordingQueues();
      expect((await handle(f, sample(SqsSample.fifoBatch), queues)).batchItemFailures).toEqual([]);
      await flushShard(f.flushDeps('ticker'), 'orders');
      expect(await walRowTexts(f, 'orders')).toEqual([
        '{"orderId":"o-1","step":1}',
        '{"orderId":"o-1","step":2}',
        '{"orderId":"o-1","step":3}',
      ]);
    });

    it("fails every later message of a failed message's group, and only its group", async () => {
      const f = await fixture(dynalite());
      const queues = new RecordingQueues();
      // Step 2 of `orders` goes to a poisoned shard: steps 2 and 3 must both wait.
      const event = sample(SqsSample.fifoBatch);
      event.Records[1]!.body = event.Records[1]!.body.replace('"shard":"orders"', '"shard":"sick"');
      await poisonShard(f.table, 'sick', 'diverged', 1);
      const [step1, step2, click1, step3, click2] = ids(event);
      const response = await handle(f, event, queues);
      expect(failedIds(response)).toEqual([step2, step3]);
      // Step 3 never lands ahead of step 2; the clicks group went on.
      expect(await readShardRecord(f.table, 'orders')).toMatchObject({ nextSeq: 2 });
      expect(await readShardRecord(f.table, 'clicks')).toMatchObject({ nextSeq: 3 });
      // The whole failed tail of the group comes back together, after the head's hold-back.
      expect(queues.heldBack).toEqual([
        { messageId: step2, seconds: 10 },
        { messageId: step3, seconds: 10 },
      ]);
      expect(failedIds(response)).not.toContain(step1);
      expect(failedIds(response)).not.toContain(click1);
      expect(failedIds(response)).not.toContain(click2);
    });

    it('holds the group back by its first failure, whatever the later messages received', async () => {
      const f = await fixture(dynalite());
      const queues = new RecordingQueues();
      await poisonShard(f.table, 'sick', 'diverged', 1);
      const event = ordersTo('sick');
      event.Records[0]!.attributes.ApproximateReceiveCount = '3';
      event.Records[1]!.attributes.ApproximateReceiveCount = '9';
      await handle(f, event, queues);
      const orders = event.Records.filter((r) => r.attributes.MessageGroupId === 'orders');
      expect(queues.heldBack).toEqual(orders.map((r) => ({ messageId: r.messageId, seconds: 40 })));
    });

    it('does not hold a group behind a message refused for good: it is dead-lettered, the rest go on', async () => {
      const f = await fixture(dynalite());
      const queues = new RecordingQueues();
      const event = sample(SqsSample.fifoBatch);
      event.Records[1]!.body = '{"shard":"orders","rows":"step 2"}';
      const response = await handle(f, event, queues);
      expect(response.batchItemFailures).toEqual([]);
      expect(queues.deadLettered.map((d) => d.record.messageId)).toEqual([
        event.Records[1]!.messageId,
      ]);
      await flushShard(f.flushDeps('ticker'), 'orders');
      expect(await walRowTexts(f, 'orders')).toEqual([
        '{"orderId":"o-1","step":1}',
        '{"orderId":"o-1","step":3}',
      ]);
    });

    it('takes the deduplication id as the idempotency key: a resend under a new message id buffers nothing', async () => {
      const f = await fixture(dynalite());
      const queues = new RecordingQueues();
      const event = sample(SqsSample.fifoBatch);
      await handle(f, event, queues);
      const resent = withRecord(event.Records[0]!, { messageId: 'resent-after-5-minutes' });
      expect((await handle(f, { Records: [resent] }, queues)).batchItemFailures).toEqual([]);
      // The resend's own seq is sealed void: nothing more is buffered.
      expect(await readShardRecord(f.table, 'orders')).toMatchObject({ nextSeq: 5 });
      // Another payload under the same deduplication id is refused for good, not dropped.
      const other = withRecord(event.Records[0]!, {
        messageId: 'reused-dedup-id',
        body: event.Records[0]!.body.replace('"step":1', '"step":99'),
      });
      expect((await handle(f, { Records: [other] }, queues)).batchItemFailures).toEqual([]);
      expect(queues.deadLettered.map((d) => d.reason.kind)).toEqual(['key_reused']);
    });

    it('uses the Binary IdempotencyKey attribute over the deduplication id', async () => {
      const f = await fixture(dynalite());
      const queues = new RecordingQueues();
      const event = sample(SqsSample.fifoBatch);
      const click = event.Records[2]!;
      await handle(f, { Records: [click] }, queues);
      // Same Binary key, new deduplication id: still a repeat.
      const again = withRecord(click, {
        messageId: 'other-message',
        attributes: { MessageDeduplicationId: 'clicks-other' },
      });
      await handle(f, { Records: [again] }, queues);
      // The repeat's own seq is sealed void: nothing more is buffered.
      expect(await readShardRecord(f.table, 'clicks')).toMatchObject({ nextSeq: 3 });
    });
  });

  describe('from a standard queue', () => {
    it('fails only the failed message, even with message groups set (fair queues)', async () => {
      const f = await fixture(dynalite());
      const queues = new RecordingQueues();
      await poisonShard(f.table, 'sick', 'diverged', 1);
      const event = sample(SqsSample.fifoBatch);
      event.Records[1]!.body = event.Records[1]!.body.replace('"shard":"orders"', '"shard":"sick"');
      for (const record of event.Records) {
        record.eventSourceARN = 'arn:aws:sqs:us-east-1:123456789012:shardwal-ingest';
      }
      const response = await handle(f, event, queues);
      expect(failedIds(response)).toEqual([event.Records[1]!.messageId]);
      expect(await readShardRecord(f.table, 'orders')).toMatchObject({ nextSeq: 3 });
    });
  });
});
