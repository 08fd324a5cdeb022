/**
 * The SQS adapter of `IngestQueues` against the SQS emulator (fauxqs, the
 * local stack's): what it sends to a dead-letter queue, and what a
 * hold-back does to a message's visibility.
 */
import {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  type MessageAttributeValue,
  ReceiveMessageCommand,
  SendMessageCommand,
} from '@aws-sdk/client-sqs';
import type { SQSRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { RESOURCE_ENV } from '../../lib/config.js';
import { ConfigError, ErrorKind, InternalError } from '../../lib/errors.js';
import { toSqsRecord } from '../../lib/local/sqs-event.js';
import { REFUSAL_ATTRIBUTES, type RefusalDetail } from '../../lib/sqs/dead-letter-message.js';
import { ingestRoutesFromEnv } from '../../lib/sqs/ingest-queues-from-env.js';
import { SqsIngestQueues } from '../../lib/sqs/sqs-ingest-queues.js';
import { useFauxqs } from '../support/fauxqs.js';

const emulator = useFauxqs();
let run = 0;

async function createQueue(name: string): Promise<{ url: string; arn: string }> {
  const fifo = name.endsWith('.fifo');
  const out = await emulator().send(
    new CreateQueueCommand({ QueueName: name, Attributes: fifo ? { FifoQueue: 'true' } : {} }),
  );
  const attributes = await emulator().send(
    new GetQueueAttributesCommand({ QueueUrl: out.QueueUrl, AttributeNames: ['QueueArn'] }),
  );
  return { url: out.QueueUrl!, arn: attributes.Attributes!.QueueArn! };
}

/** A queue and its DLQ, fresh for each test. */
async function pair(fifo = false) {
  run++;
  const suffix = fifo ? '.fifo' : '';
  const queue = await createQueue(`ingest-${run}${suffix}`);
  const dlq = await createQueue(`ingest-${run}-dlq${suffix}`);
  const queues = new SqsIngestQueues(emulator(), [
    { queueUrl: queue.url, deadLetterQueueUrl: dlq.url },
  ]);
  return { queue, dlq, queues };
}

/** Sends and receives one message: the record Lambda would deliver. */
async function delivered(
  queue: { url: string; arn: string },
  body: string,
  attributes: Record<string, MessageAttributeValue> = {},
  group?: string,
): Promise<SQSRecord> {
  await emulator().send(
    new SendMessageCommand({
      QueueUrl: queue.url,
      MessageBody: body,
      MessageAttributes: attributes,
      ...(group ? { MessageGroupId: group, MessageDeduplicationId: `${group}-${run}` } : {}),
    }),
  );
  const out = await emulator().send(
    new ReceiveMessageCommand({
      QueueUrl: queue.url,
      MessageAttributeNames: ['All'],
      MessageSystemAttributeNames: ['All'],
    }),
  );
  return toSqsRecord(out.Messages![0]!, { queueArn: queue.arn, region: 'us-east-1' });
}

async function receiveAll(url: string) {
  const out = await emulator().send(
    new ReceiveMessageCommand({
      QueueUrl: url,
      MaxNumberOfMessages: 10,
      MessageAttributeNames: ['All'],
      MessageSystemAttributeNames: ['All'],
    }),
  );
  return out.Messages ?? [];
}

const reason = {
  kind: ErrorKind.invalidInput,
  message: 'body.rows: expected an array, got string',
};

describe('SqsIngestQueues', () => {
  describe('deadLetter', () => {
    it("sends the body and the producer's attributes as received, with the refusal as attributes", async () => {
      const { queue, dlq, queues } = await pair();
      // fauxqs refuses astral characters SQS itself accepts (#x10000-#x10FFFF); BMP only here.
      const body = '{"shard":"a","rows":"x \u00e9 \uFFFD"}';
      const record = await delivered(queue, body, {
        IdempotencyKey: { DataType: 'Binary', BinaryValue: new Uint8Array([0, 1, 254, 255]) },
        Producer: { DataType: 'String', StringValue: 'orders-service' },
      });
      await queues.deadLetter(record, reason);
      const [dead] = await receiveAll(dlq.url);
      expect(dead!.Body).toBe(body);
      const attributes = dead!.MessageAttributes!;
      expect(Buffer.from(attributes.IdempotencyKey!.BinaryValue!)).toEqual(
        Buffer.from([0, 1, 254, 255]),
      );
      expect(attributes.Producer?.StringValue).toBe('orders-service');
      expect(attributes[REFUSAL_ATTRIBUTES.kind]?.StringValue).toBe('invalid_input');
      const detail = JSON.parse(
        attributes[REFUSAL_ATTRIBUTES.detail]!.StringValue!,
      ) as RefusalDetail;
      expect(detail).toEqual({
        message: reason.message,
        sourceQueueArn: queue.arn,
        messageId: record.messageId,
        receiveCount: 1,
        sentTimestamp: record.attributes.SentTimestamp,
      });
    });

    it('copies at most 8 producer attributes and names the ones left out', async () => {
      const { queue, dlq, queues } = await pair();
      const attributes = Object.fromEntries(
        Array.from({ length: 10 }, (_, i) => [
          `a${i}`,
          { DataType: 'String', StringValue: String(i) } as MessageAttributeValue,
        ]),
      );
      await queues.deadLetter(await delivered(queue, '{}', attributes), reason);
      const [dead] = await receiveAll(dlq.url);
      expect(Object.keys(dead!.MessageAttributes!).sort()).toEqual(
        [
          'a0',
          'a1',
          'a2',
          'a3',
          'a4',
          'a5',
          'a6',
          'a7',
          ...Object.values(REFUSAL_ATTRIBUTES),
        ].sort(),
      );
      const detail = JSON.parse(
        dead!.MessageAttributes![REFUSAL_ATTRIBUTES.detail]!.StringValue!,
      ) as RefusalDetail;
      expect(detail.attributesNotCopied).toEqual(['a8', 'a9']);
    });

    it('keeps a FIFO message in its group, and adds no copy when the send is retried', async () => {
      const { queue, dlq, queues } = await pair(true);
      const record = await delivered(queue, '{"rows":1}', {}, 'orders');
      await queues.deadLetter(record, reason);
      await queues.deadLetter(record, reason);
      const dead = await receiveAll(dlq.url);
      expect(dead).toHaveLength(1);
      expect(dead[0]!.Attributes?.MessageGroupId).toBe('orders');
    });

    it('throws UnavailableError, naming the message, when SQS refuses the send', async () => {
      const { queue } = await pair();
      const broken = new SqsIngestQueues(emulator(), [
        { queueUrl: queue.url, deadLetterQueueUrl: `${queue.url}-missing` },
      ]);
      const record = await delivered(queue, '{}');
      await expect(broken.deadLetter(record, reason)).rejects.toMatchObject({
        kind: ErrorKind.unavailable,
        message: expect.stringMatching(
          new RegExp(`^message ${record.messageId}: could not send it`),
        ),
      });
    });

    it('refuses a record from a queue it was not given, as a wiring bug', async () => {
      const { queues } = await pair();
      const other = await createQueue(`stray-${run}`);
      const record = await delivered(other, '{}');
      await expect(queues.deadLetter(record, reason)).rejects.toBeInstanceOf(InternalError);
    });
  });

  describe('holdBack', () => {
    it('keeps a message out of sight for the seconds given, and a hold of 0 releases it', async () => {
      const { queue, queues } = await pair();
      const record = await delivered(queue, '{"held":true}');
      expect(await queues.holdBack([{ record, seconds: 600 }])).toEqual([]);
      expect(await receiveAll(queue.url)).toEqual([]);
      const counts = await emulator().send(
        new GetQueueAttributesCommand({
          QueueUrl: queue.url,
          AttributeNames: ['ApproximateNumberOfMessagesNotVisible'],
        }),
      );
      expect(counts.Attributes?.ApproximateNumberOfMessagesNotVisible).toBe('1');
      expect(await queues.holdBack([{ record, seconds: 0 }])).toEqual([]);
      expect((await receiveAll(queue.url)).map((m) => m.Body)).toEqual(['{"held":true}']);
    });

    it('reports the messages whose visibility it could not set', async () => {
      const { queue, queues } = await pair();
      const record = await delivered(queue, '{}');
      const stale = { ...record, receiptHandle: 'not-a-receipt-handle' };
      expect(await queues.holdBack([{ record: stale, seconds: 60 }])).toEqual([stale]);
    });
  });

  describe('constructor', () => {
    it('refuses a FIFO queue paired with a standard dead-letter queue, and the reverse', () => {
      expect(
        () =>
          new SqsIngestQueues(emulator(), [
            { queueUrl: 'https://sqs/1/in.fifo', deadLetterQueueUrl: 'https://sqs/1/dlq' },
          ]),
      ).toThrow(ConfigError);
      expect(
        () =>
          new SqsIngestQueues(emulator(), [
            { queueUrl: 'https://sqs/1/in', deadLetterQueueUrl: 'https://sqs/1/dlq.fifo' },
          ]),
      ).toThrow(/must be non-FIFO like it/);
    });
  });
});

describe('ingestRoutesFromEnv', () => {
  it('pairs each configured queue with its dead-letter queue', () => {
    expect(
      ingestRoutesFromEnv({
        [RESOURCE_ENV.ingestQueueUrl]: 'q',
        [RESOURCE_ENV.ingestDlqUrl]: 'd',
        [RESOURCE_ENV.ingestFifoQueueUrl]: 'q.fifo',
        [RESOURCE_ENV.ingestFifoDlqUrl]: 'd.fifo',
      }),
    ).toEqual([
      { queueUrl: 'q', deadLetterQueueUrl: 'd' },
      { queueUrl: 'q.fifo', deadLetterQueueUrl: 'd.fifo' },
    ]);
    expect(ingestRoutesFromEnv({})).toEqual([]);
  });

  it('refuses half a pair, naming the missing variable', () => {
    expect(() => ingestRoutesFromEnv({ [RESOURCE_ENV.ingestFifoQueueUrl]: 'q.fifo' })).toThrow(
      'SHARDWAL_INGEST_FIFO_DLQ_URL=undefined: must be set along with SHARDWAL_INGEST_FIFO_QUEUE_URL',
    );
    expect(() => ingestRoutesFromEnv({ [RESOURCE_ENV.ingestDlqUrl]: 'd' })).toThrow(
      /^SHARDWAL_INGEST_QUEUE_URL=undefined: must be set along with SHARDWAL_INGEST_DLQ_URL$/,
    );
  });
});
