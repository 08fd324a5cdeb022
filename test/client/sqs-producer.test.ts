import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  CreateQueueCommand,
  DeleteMessageBatchCommand,
  ReceiveMessageCommand,
  type SendMessageBatchCommandInput,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalQueues, startLocalQueues } from '../../infra/local/emulators.js';
import {
  ForbiddenApiError,
  InvalidInputApiError,
  ProducerBatchError,
} from '../../lib/client/errors.js';
import { deduplicationId, MAX_ENTRIES_PER_CALL } from '../../lib/client/sqs-batch-sender.js';
import { messageBytes } from '../../lib/client/sqs-message.js';
import { createSqsProducer, isFifoQueue } from '../../lib/client/sqs-producer.js';
import { seededRandom } from '../../lib/seeded-random.js';

type Entry = NonNullable<SendMessageBatchCommandInput['Entries']>[number];
type Answer = (entries: Entry[], call: number) => unknown;

/** An SQS client that records `SendMessageBatch` calls and answers them with `answer`. */
function fakeSqs(maxMessageBytes: number, answer: Answer = ok) {
  const calls: Entry[][] = [];
  let attributeReads = 0;
  const send = async (command: { input: Record<string, unknown> }) => {
    const name = command.constructor.name;
    if (name === 'GetQueueAttributesCommand') {
      attributeReads++;
      return { Attributes: { MaximumMessageSize: String(maxMessageBytes) } };
    }
    if (name !== 'SendMessageBatchCommand') throw new Error(`unexpected ${name}`);
    const entries = (command.input as unknown as SendMessageBatchCommandInput).Entries ?? [];
    calls.push(entries);
    return answer(entries, calls.length);
  };
  return { sqs: { send } as unknown as SQSClient, calls, attributeReads: () => attributeReads };
}

function ok(entries: Entry[]) {
  return {
    Successful: entries.map((e) => ({ Id: e.Id, MessageId: `m-${e.Id}` })),
    Failed: [],
  };
}

const QUICK_RETRY = { sleep: async () => {}, random: seededRandom(5) };
const STANDARD = 'https://sqs.eu-west-1.amazonaws.com/123456789012/shardwal-ingest';
const FIFO = 'https://sqs.eu-west-1.amazonaws.com/123456789012/shardwal-ingest.fifo';

const rows = (count: number, pad = 0) =>
  Array.from({ length: count }, (_, i) => ({ id: i, pad: 'x'.repeat(pad) }));

describe('createSqsProducer', () => {
  it('sizes messages by the queue’s MaximumMessageSize, body and attribute included', async () => {
    const fake = fakeSqs(2_000);
    const producer = await createSqsProducer({
      sqs: fake.sqs,
      queueUrl: STANDARD,
      shard: 'clicks',
      keyPrefix: 'imp',
      lingerMs: null,
      retry: QUICK_RETRY,
    });
    for (const row of rows(60, 100)) await producer.append(row);
    await producer.close();
    expect(fake.attributeReads()).toBe(1);
    const entries = fake.calls.flat();
    expect(entries.length).toBeGreaterThan(3);
    const seen: unknown[] = [];
    for (const entry of entries) {
      const key = entry.MessageAttributes!.IdempotencyKey!.StringValue!;
      expect(messageBytes(entry.MessageBody!, key)).toBeLessThanOrEqual(2_000);
      const body = JSON.parse(entry.MessageBody!) as { shard: string; rows: unknown[] };
      expect(body.shard).toBe('clicks');
      seen.push(...body.rows);
      expect(entry.MessageGroupId).toBeUndefined();
    }
    expect(seen).toEqual(rows(60, 100));
    for (const call of fake.calls) {
      expect(call.length).toBeLessThanOrEqual(MAX_ENTRIES_PER_CALL);
      const total = call.reduce(
        (sum, e) =>
          sum + messageBytes(e.MessageBody!, e.MessageAttributes!.IdempotencyKey!.StringValue!),
        0,
      );
      expect(total).toBeLessThanOrEqual(2_000);
    }
  });

  it('coalesces concurrent messages into calls of at most 10 entries', async () => {
    const fake = fakeSqs(1_048_576);
    const producer = await createSqsProducer({
      sqs: fake.sqs,
      queueUrl: STANDARD,
      shard: 'clicks',
      keyPrefix: 'imp',
      maxBatchRows: 1,
      lingerMs: null,
      retry: QUICK_RETRY,
    });
    for (const row of rows(25)) await producer.append(row);
    await producer.close();
    expect(fake.calls.flat()).toHaveLength(25);
    expect(Math.max(...fake.calls.map((c) => c.length))).toBe(MAX_ENTRIES_PER_CALL);
    expect(fake.calls.flat().map((e) => e.MessageAttributes!.IdempotencyKey!.StringValue)).toEqual(
      Array.from({ length: 25 }, (_, i) => `imp-${i}`),
    );
  });

  it('gives FIFO messages the shard as group and the key as deduplication id', async () => {
    const fake = fakeSqs(1_048_576);
    const producer = await createSqsProducer({
      sqs: fake.sqs,
      queueUrl: FIFO,
      shard: 'clicks',
      keyPrefix: 'imp',
      keyField: 'id',
      maxBatchRows: 2,
      lingerMs: null,
      retry: QUICK_RETRY,
    });
    for (const row of rows(3)) await producer.append(row);
    await producer.close();
    expect(fake.calls.flat().map((e) => [e.MessageGroupId, e.MessageDeduplicationId])).toEqual([
      ['clicks', 'imp-0'],
      ['clicks', 'imp-1'],
    ]);
    // Keyed rows: one message in flight at a time, so each call carries one.
    expect(fake.calls.map((c) => c.length)).toEqual([1, 1]);
    expect(JSON.parse(fake.calls[0]![0]!.MessageBody!)).toMatchObject({ key: 'id' });
  });

  it('retries a failed entry alone, with the same attributes, unless it is the sender’s fault', async () => {
    const fake = fakeSqs(1_048_576, (entries, call) => {
      if (call > 1) return ok(entries);
      return {
        Successful: [{ Id: '0', MessageId: 'm-0' }],
        Failed: [
          { Id: '1', SenderFault: false, Code: 'InternalError', Message: 'try again' },
          { Id: '2', SenderFault: true, Code: 'InvalidParameterValue', Message: 'bad attribute' },
        ],
      };
    });
    const producer = await createSqsProducer({
      sqs: fake.sqs,
      queueUrl: STANDARD,
      shard: 'clicks',
      keyPrefix: 'imp',
      maxBatchRows: 1,
      lingerMs: null,
      retry: QUICK_RETRY,
    });
    for (const row of rows(3)) await producer.append(row);
    const error = await producer.close().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(
      fake.calls.map((c) => c.map((e) => e.MessageAttributes!.IdempotencyKey!.StringValue)),
    ).toEqual([['imp-0', 'imp-1', 'imp-2'], ['imp-1']]);
    expect(fake.calls[1]![0]!.MessageBody).toBe(fake.calls[0]![1]!.MessageBody);
    expect(error).toBeInstanceOf(ProducerBatchError);
    const failures = (error as ProducerBatchError).failures;
    expect(failures.map((f) => f.key)).toEqual(['imp-2']);
    expect(failures[0]!.error).toBeInstanceOf(InvalidInputApiError);
    expect(failures[0]!.error.message).toMatch(/InvalidParameterValue/);
  });

  it('retries a throttled call and gives up at once on a permission error', async () => {
    const throttled = Object.assign(new Error('slow down'), {
      name: 'RequestThrottled',
      $metadata: { httpStatusCode: 400 },
    });
    const denied = Object.assign(new Error('not allowed'), {
      name: 'AccessDenied',
      $metadata: { httpStatusCode: 403 },
    });
    const flaky = fakeSqs(1_048_576, (entries, call) => {
      if (call === 1) throw throttled;
      return ok(entries);
    });
    const producer = await createSqsProducer({
      sqs: flaky.sqs,
      queueUrl: STANDARD,
      shard: 'clicks',
      lingerMs: null,
      retry: QUICK_RETRY,
    });
    await producer.append({ id: 1 });
    await producer.close();
    expect(flaky.calls).toHaveLength(2);

    const closed = fakeSqs(1_048_576, () => {
      throw denied;
    });
    const refused = await createSqsProducer({
      sqs: closed.sqs,
      queueUrl: STANDARD,
      shard: 'clicks',
      lingerMs: null,
      retry: QUICK_RETRY,
    });
    await refused.append({ id: 1 });
    const error = (await refused.close().catch((e: unknown) => e)) as ProducerBatchError;
    expect(error.failures[0]!.error).toBeInstanceOf(ForbiddenApiError);
    expect(closed.calls).toHaveLength(1);
  });

  it('refuses a queue whose size limit leaves no room for rows', async () => {
    const fake = fakeSqs(60);
    await expect(
      createSqsProducer({ sqs: fake.sqs, queueUrl: STANDARD, shard: 'clicks', retry: QUICK_RETRY }),
    ).rejects.toThrow(/maxMessageBytes/);
  });
});

describe('isFifoQueue', () => {
  it('reads the queue name’s .fifo suffix', () => {
    expect(isFifoQueue(FIFO)).toBe(true);
    expect(isFifoQueue(STANDARD)).toBe(false);
  });
});

describe('deduplicationId', () => {
  it('keeps a key of up to 128 characters and hashes a longer one', () => {
    expect(deduplicationId('k'.repeat(128))).toBe('k'.repeat(128));
    expect(deduplicationId('k'.repeat(129))).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('createSqsProducer against the SQS emulator', () => {
  let queues: LocalQueues;
  const sqsDir = mkdtempSync(path.join(tmpdir(), 'shardwal-sqs-'));
  beforeAll(async () => {
    queues = await startLocalQueues(sqsDir, 0);
  });
  afterAll(async () => {
    await queues?.close();
    rmSync(sqsDir, { recursive: true, force: true });
  });

  it('delivers every row once to a small FIFO queue, in messages within its size', async () => {
    const created = await queues.client.send(
      new CreateQueueCommand({
        QueueName: 'small.fifo',
        Attributes: { FifoQueue: 'true', MaximumMessageSize: '4096' },
      }),
    );
    const queueUrl = created.QueueUrl!;
    const run = async () => {
      const producer = await createSqsProducer({
        sqs: queues.client,
        queueUrl,
        shard: 'clicks',
        keyPrefix: 'fifo-test',
        lingerMs: null,
      });
      for (const row of sent) await producer.append(row);
      await producer.close();
      return producer.stats().sentBatches;
    };
    const sent = rows(200, 40);
    const batches = await run();
    // The same run again (a re-run after a crash): the FIFO queue drops every duplicate.
    expect(await run()).toBe(batches);

    const received: unknown[] = [];
    const keys = new Set<string>();
    for (;;) {
      const out = await queues.client.send(
        new ReceiveMessageCommand({
          QueueUrl: queueUrl,
          MaxNumberOfMessages: 10,
          MessageAttributeNames: ['All'],
          MessageSystemAttributeNames: ['MessageGroupId'],
        }),
      );
      const messages = out.Messages ?? [];
      if (messages.length === 0) break;
      for (const message of messages) {
        const key = message.MessageAttributes!.IdempotencyKey!.StringValue!;
        expect(keys.has(key)).toBe(false);
        keys.add(key);
        expect(messageBytes(message.Body!, key)).toBeLessThanOrEqual(4096);
        expect(message.Attributes?.MessageGroupId).toBe('clicks');
        received.push(...(JSON.parse(message.Body!) as { rows: unknown[] }).rows);
      }
      await queues.client.send(
        new DeleteMessageBatchCommand({
          QueueUrl: queueUrl,
          Entries: messages.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle! })),
        }),
      );
    }
    expect(keys.size).toBe(batches);
    expect(keys.size).toBeGreaterThan(2);
    expect(received).toEqual(sent);
  });
});
