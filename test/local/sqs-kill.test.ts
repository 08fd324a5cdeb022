import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { afterAll, describe, expect, it } from 'vitest';
import { REFUSAL_ATTRIBUTES } from '../../lib/sqs/dead-letter-message.js';
import { type ChildStack, shardwal, startChildStack } from './child-stack.js';

/** Messages put through the ingest queue, one row each. */
const MESSAGES = 200;
/** Messages the handler refuses for good (not JSON): dead-lettered. */
const REFUSED = 6;
const SHARD = 'sqs-kill';

let dataDir: string | undefined;
let stack: ChildStack | undefined;

afterAll(async () => {
  if (stack && stack.child.exitCode === null) stack.child.kill('SIGKILL');
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

function sqsOf(info: ChildStack['info']): SQSClient {
  return new SQSClient({
    endpoint: info.sqsEndpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
}

async function counts(sqs: SQSClient, queueUrl: string) {
  const out = await sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: queueUrl,
      AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
    }),
  );
  return {
    visible: Number(out.Attributes?.ApproximateNumberOfMessages),
    inFlight: Number(out.Attributes?.ApproximateNumberOfMessagesNotVisible),
  };
}

async function until(what: string, check: () => Promise<boolean>, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

describe('the local stack’s SQS queues (child process, kill -9)', () => {
  it('keep every acknowledged message, in flight or dead-lettered, and each lands once after a restart', async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'shardwal-sqs-kill-'));
    const base: NodeJS.ProcessEnv = {
      ...process.env,
      PORT: '0',
      SHARDWAL_DATA_DIR: dataDir,
      SHARDWAL_LOG_LEVEL: 'ERROR',
    };
    // First life: a 10-minute tick and a tiny buffer, so after the first few puts every
    // message is refused with backpressure and held back (in flight, invisible for 10 s).
    stack = await startChildStack(
      {
        ...base,
        SHARDWAL_FLUSH_INTERVAL_MS: '600000',
        SHARDWAL_MAX_BUFFERED_BYTES: '2000',
        SHARDWAL_FLUSH_TRIGGER_BYTES: '2000',
      },
      dataDir,
    );
    let sqs = sqsOf(stack.info);
    for (let at = 0; at < MESSAGES; at += 10) {
      const out = await sqs.send(
        new SendMessageBatchCommand({
          QueueUrl: stack.info.queueUrl,
          Entries: Array.from({ length: 10 }, (_, k) => ({
            Id: String(k),
            MessageBody: JSON.stringify({ shard: SHARD, rows: [{ i: at + k }] }),
          })),
        }),
      );
      expect(out.Failed ?? []).toEqual([]);
    }
    const refused = await sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: stack.info.queueUrl,
        Entries: Array.from({ length: REFUSED }, (_, k) => ({
          Id: String(k),
          MessageBody: `not json ${k}`,
        })),
      }),
    );
    expect(refused.Failed ?? []).toEqual([]);
    // Every message received once: buffered (deleted), held back (in flight) or dead-lettered.
    await until(
      'every message received once and the refused ones dead-lettered',
      async () =>
        (await counts(sqs, stack!.info.queueUrl)).visible === 0 &&
        (await counts(sqs, stack!.info.deadLetterQueueUrl)).visible === REFUSED,
      20_000,
    );
    const held = await counts(sqs, stack.info.queueUrl);
    expect(held.inFlight).toBeGreaterThan(MESSAGES / 2);
    sqs.destroy();
    stack.child.kill('SIGKILL');
    expect(await stack.exited).toEqual({ code: null, signal: 'SIGKILL' });

    // Second life, default buffer: the held-back messages come back when their 10 s run out.
    stack = await startChildStack({ ...base, SHARDWAL_FLUSH_INTERVAL_MS: '200' }, dataDir);
    sqs = sqsOf(stack.info);
    const dead = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: stack.info.deadLetterQueueUrl,
        MaxNumberOfMessages: 10,
        MessageAttributeNames: ['All'],
      }),
    );
    expect((dead.Messages ?? []).map((m) => m.Body).sort()).toEqual(
      Array.from({ length: REFUSED }, (_, k) => `not json ${k}`),
    );
    for (const message of dead.Messages ?? []) {
      expect(message.MessageAttributes?.[REFUSAL_ATTRIBUTES.kind]?.StringValue).toBe(
        'invalid_input',
      );
    }
    await until(
      'the ingest queue to drain',
      async () => {
        const now = await counts(sqs, stack!.info.queueUrl);
        return now.visible === 0 && now.inFlight === 0;
      },
      30_000,
    );
    sqs.destroy();
    stack.child.kill('SIGTERM');
    expect(await stack.exited).toEqual({ code: 0, signal: null });

    const dump = await shardwal(['dump', SHARD], base);
    expect(dump.code).toBe(0);
    const rows = dump.stdout
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { row: { i: number } }).row.i)
      .sort((a, b) => a - b);
    expect(rows).toEqual(Array.from({ length: MESSAGES }, (_, i) => i));
  }, 90_000);
});
