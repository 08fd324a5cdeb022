/**
 * The local poller: it deletes what the handler accepted, leaves what it
 * held back (parked with a visibility timeout, as put-sqs does) on the
 * queue, and on stop counts what is left there for the next start.
 */
import {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  SendMessageCommand,
} from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { SqsPoller } from '../../lib/local/sqs-poller.js';
import { SqsIngestQueues } from '../../lib/sqs/sqs-ingest-queues.js';
import { useFauxqs } from '../support/fauxqs.js';

const emulator = useFauxqs();
let run = 0;

/** A queue with `count` messages, and a handler that parks a message for 10 minutes until `accept` says yes. */
async function setUp(count: number, accept: (attempt: number) => boolean) {
  run++;
  const created = await emulator().send(new CreateQueueCommand({ QueueName: `poll-${run}` }));
  const queueUrl = created.QueueUrl!;
  const arn = (
    await emulator().send(
      new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['QueueArn'] }),
    )
  ).Attributes!.QueueArn!;
  for (let i = 0; i < count; i++) {
    await emulator().send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: `m${i}` }));
  }
  const queues = new SqsIngestQueues(emulator(), [
    { queueUrl, deadLetterQueueUrl: `${queueUrl}-dlq` },
  ]);
  const attempts = new Map<string, number>();
  const handled: string[] = [];
  const handler = async (event: SQSEvent): Promise<SQSBatchResponse> => {
    const failures: { itemIdentifier: string }[] = [];
    for (const record of event.Records) {
      const attempt = (attempts.get(record.body) ?? 0) + 1;
      attempts.set(record.body, attempt);
      if (accept(attempt)) handled.push(record.body);
      else {
        failures.push({ itemIdentifier: record.messageId });
        await queues.holdBack([{ record, seconds: 600 }]);
      }
    }
    return { batchItemFailures: failures };
  };
  const errors: unknown[] = [];
  const poller = new SqsPoller({
    sqs: emulator(),
    queueUrl,
    source: { queueArn: arn, region: 'us-east-1' },
    handler,
    waitTimeSeconds: 0,
    onError: (error) => errors.push(error),
  });
  return { poller, handled, attempts, errors };
}

/** Runs the poller until every message was tried once. */
async function pollUntilTried(
  poller: SqsPoller,
  attempts: Map<string, number>,
  count: number,
): Promise<void> {
  poller.start();
  for (let i = 0; i < 200 && attempts.size < count; i++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  expect(attempts.size).toBe(count);
}

describe('SqsPoller', () => {
  describe('stop', () => {
    it('reports an empty queue once every message was handled and deleted', async () => {
      const { poller, handled, attempts, errors } = await setUp(3, () => true);
      await pollUntilTried(poller, attempts, 3);
      expect(await poller.stop()).toEqual({ left: 0 });
      expect(handled.sort()).toEqual(['m0', 'm1', 'm2']);
      expect(errors).toEqual([]);
    });

    it('leaves the held-back messages on the queue, untried again, and counts them', async () => {
      const { poller, handled, attempts } = await setUp(2, () => false);
      await pollUntilTried(poller, attempts, 2);
      expect(await poller.stop()).toEqual({ left: 2 });
      expect(handled).toEqual([]);
      expect([...attempts.values()]).toEqual([1, 1]);
    });
  });
});
