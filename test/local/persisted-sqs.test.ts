import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  ChangeMessageVisibilityCommand,
  CreateQueueCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  type Message,
  ReceiveMessageCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { type PersistedSqs, startPersistedSqs } from '../../lib/local/persisted-sqs.js';

const dirs: string[] = [];
let running: { emulator: PersistedSqs; sqs: SQSClient } | undefined;

afterEach(async () => {
  running?.sqs.destroy();
  await running?.emulator.close();
  running = undefined;
});
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** Starts the emulator on `dir` (a new one by default) and a client for it. */
async function start(dir = mkdtempSync(path.join(tmpdir(), 'shardwal-psqs-'))) {
  if (!dirs.includes(dir)) dirs.push(dir);
  const emulator = await startPersistedSqs({ dir, port: 0, region: 'us-east-1' });
  const sqs = new SQSClient({
    endpoint: emulator.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  running = { emulator, sqs };
  return { dir, sqs };
}

/** Stops the running emulator and starts it again on the same folder (another port). */
async function restart(dir: string) {
  running?.sqs.destroy();
  await running?.emulator.close();
  running = undefined;
  return start(dir);
}

async function urlOf(sqs: SQSClient, name: string, attributes?: Record<string, string>) {
  return (await sqs.send(new CreateQueueCommand({ QueueName: name, Attributes: attributes })))
    .QueueUrl!;
}

async function receive(sqs: SQSClient, queueUrl: string, visibilityTimeout?: number) {
  const out = await sqs.send(
    new ReceiveMessageCommand({
      QueueUrl: queueUrl,
      MaxNumberOfMessages: 10,
      VisibilityTimeout: visibilityTimeout,
      MessageAttributeNames: ['All'],
      MessageSystemAttributeNames: ['All'],
    }),
  );
  return out.Messages ?? [];
}

async function counts(sqs: SQSClient, queueUrl: string) {
  const out = await sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: queueUrl,
      AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
    }),
  );
  return [
    Number(out.Attributes?.ApproximateNumberOfMessages),
    Number(out.Attributes?.ApproximateNumberOfMessagesNotVisible),
  ];
}

const byBody = (a: Message, b: Message) => (a.Body ?? '').localeCompare(b.Body ?? '');

describe('startPersistedSqs', () => {
  it('keeps sent messages across a restart with their ids, attributes and counts; deleted ones stay deleted (Q2, Q3)', async () => {
    let { dir, sqs } = await start();
    let queueUrl = await urlOf(sqs, 'keep');
    for (const body of ['a', 'b', 'c']) {
      await sqs.send(
        new SendMessageCommand({
          QueueUrl: queueUrl,
          MessageBody: body,
          MessageAttributes: { Kind: { DataType: 'String', StringValue: `kind-${body}` } },
        }),
      );
    }
    const first = (await receive(sqs, queueUrl, 0)).sort(byBody);
    expect(first.map((m) => m.Body)).toEqual(['a', 'b', 'c']);
    const [a, b] = first;
    await sqs.send(
      new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: a!.ReceiptHandle }),
    );
    // b and c are received again and held for a minute; c is released at once, b stays in flight.
    const second = (await receive(sqs, queueUrl, 60)).sort(byBody);
    expect(second.map((m) => m.MessageId)).toEqual([b!.MessageId, first[2]!.MessageId]);
    const held = second[0]!;
    await sqs.send(
      new ChangeMessageVisibilityCommand({
        QueueUrl: queueUrl,
        ReceiptHandle: second[1]!.ReceiptHandle,
        VisibilityTimeout: 0,
      }),
    );

    ({ sqs } = await restart(dir));
    queueUrl = await urlOf(sqs, 'keep');
    expect(await counts(sqs, queueUrl)).toEqual([1, 1]);
    const [c] = await receive(sqs, queueUrl, 0);
    const before = first[2]!;
    expect(c).toMatchObject({
      MessageId: before.MessageId,
      Body: 'c',
      MD5OfBody: before.MD5OfBody,
      MD5OfMessageAttributes: before.MD5OfMessageAttributes,
      MessageAttributes: { Kind: { DataType: 'String', StringValue: 'kind-c' } },
    });
    expect(c!.Attributes?.SentTimestamp).toBe(before.Attributes?.SentTimestamp);
    expect(c!.Attributes?.ApproximateFirstReceiveTimestamp).toBe(
      before.Attributes?.ApproximateFirstReceiveTimestamp,
    );
    expect(c!.Attributes?.ApproximateReceiveCount).toBe('3');
    // The held message's receipt handle still works after the restart.
    await sqs.send(
      new ChangeMessageVisibilityCommand({
        QueueUrl: queueUrl,
        ReceiptHandle: held.ReceiptHandle,
        VisibilityTimeout: 0,
      }),
    );
    const again = await receive(sqs, queueUrl, 60);
    expect(again.map((m) => [m.Body, m.Attributes?.ApproximateReceiveCount]).sort()).toEqual([
      ['b', '3'],
      ['c', '4'],
    ]);
    for (const m of again) {
      await sqs.send(
        new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: m.ReceiptHandle }),
      );
    }
    ({ sqs } = await restart(dir));
    expect(await counts(sqs, await urlOf(sqs, 'keep'))).toEqual([0, 0]);
  });

  it('keeps a message the redrive policy moved in the dead-letter queue only (Q2)', async () => {
    let { dir, sqs } = await start();
    const dlqUrl = await urlOf(sqs, 'redrive-dlq');
    const dlqArn = (
      await sqs.send(
        new GetQueueAttributesCommand({ QueueUrl: dlqUrl, AttributeNames: ['QueueArn'] }),
      )
    ).Attributes!.QueueArn!;
    let queueUrl = await urlOf(sqs, 'redrive', {
      RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount: 1 }),
    });
    const sent = await sqs.send(
      new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'poison' }),
    );
    expect(await receive(sqs, queueUrl, 0)).toHaveLength(1);
    expect(await receive(sqs, queueUrl, 0)).toHaveLength(0); // the second receive moved it

    ({ sqs } = await restart(dir));
    queueUrl = await urlOf(sqs, 'redrive');
    expect(await counts(sqs, queueUrl)).toEqual([0, 0]);
    const dead = await receive(sqs, await urlOf(sqs, 'redrive-dlq'));
    expect(dead.map((m) => [m.MessageId, m.Body])).toEqual([[sent.MessageId, 'poison']]);
  });

  it('keeps FIFO group order, the group lock, sequence numbers and deduplication across a restart (Q3, Q4)', async () => {
    let { dir, sqs } = await start();
    let queueUrl = await urlOf(sqs, 'ordered.fifo', { FifoQueue: 'true' });
    const send = (body: string, dedup: string) =>
      sqs.send(
        new SendMessageCommand({
          QueueUrl: queueUrl,
          MessageBody: body,
          MessageGroupId: 'g',
          MessageDeduplicationId: dedup,
        }),
      );
    const one = await send('1', 'd1');
    const two = await send('2', 'd2');
    const [head] = await receive(sqs, queueUrl, 60);
    expect(head?.Body).toBe('1');

    ({ sqs } = await restart(dir));
    queueUrl = await urlOf(sqs, 'ordered.fifo', { FifoQueue: 'true' });
    // Deduplicated within 5 minutes of the first send, restart or not.
    const repeat = await send('1 again', 'd1');
    expect(repeat.MessageId).toBe(one.MessageId);
    expect(repeat.SequenceNumber).toBe(one.SequenceNumber);
    const three = await send('3', 'd3');
    expect(BigInt(three.SequenceNumber!)).toBeGreaterThan(BigInt(two.SequenceNumber!));
    // The group stays locked while its head is in flight.
    expect(await receive(sqs, queueUrl, 60)).toEqual([]);
    await sqs.send(
      new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: head!.ReceiptHandle }),
    );
    const bodies: string[] = [];
    for (let i = 0; i < 3; i++) {
      for (const m of await receive(sqs, queueUrl, 60)) {
        bodies.push(m.Body!);
        await sqs.send(
          new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: m.ReceiptHandle }),
        );
      }
    }
    expect(bodies).toEqual(['2', '3']);
  });
});
