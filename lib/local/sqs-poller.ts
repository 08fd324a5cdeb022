/**
 * The local stand-in for Lambda's SQS event source: long-polls a queue,
 * hands each batch (up to 10) to the handler as a real-shaped `SQSEvent`,
 * and deletes the messages the handler did not list in `batchItemFailures`.
 * Failed messages stay on the queue, parked out of sight for the visibility
 * timeout the handler set (`lib/sqs/hold-back.ts`), and come back, exactly
 * as deployed. It is not Lambda's FIFO event source: FIFO behaviour is
 * tested in process (`test/sqs/`).
 *
 * Stopping: the long poll in flight finishes (at most `waitTimeSeconds`) and
 * its batch is handled; what is left on the queue stays there (the emulator
 * keeps it on disk, `persisted-sqs.ts`) for the next start, parked messages
 * included, as on SQS. `stop()` reports how many that is.
 */
import {
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
  type Message,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { type QueueSource, toSqsEvent } from './sqs-event.js';

/** Options of `SqsPoller`. */
export interface SqsPollerOptions {
  sqs: SQSClient;
  queueUrl: string;
  source: QueueSource;
  /** The SQS handler; its `batchItemFailures` decide what is deleted. */
  handler: (event: SQSEvent) => Promise<SQSBatchResponse | undefined>;
  /** Messages per batch, 1 to 10 (default 10, the event source's usual batch). */
  batchSize?: number;
  /** Long-poll wait; also bounds how long `stop()` waits for the poll in flight (default 1). */
  waitTimeSeconds?: number;
  /** Reports a failed receive, delete or handler invocation; the loop goes on. */
  onError: (error: unknown, what: 'receive' | 'delete' | 'handler') => void;
  sleep?: (ms: number) => Promise<void>;
}

const RECEIVE_ERROR_BACKOFF_MS = 500;

/** A running poll loop; see the module comment. */
export class SqsPoller {
  readonly #options: SqsPollerOptions;
  readonly #sleep: (ms: number) => Promise<void>;
  #loop: Promise<void> | undefined;
  #stopping = false;

  constructor(options: SqsPollerOptions) {
    this.#options = options;
    this.#sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  }

  /** Starts long-polling. */
  start(): void {
    this.#stopping = false;
    this.#loop ??= this.#run();
  }

  /**
   * Stops polling once the batch in flight is handled; resolves with the
   * messages left on the queue (visible, delayed or in flight), which the
   * next start finds there.
   */
  async stop(): Promise<{ left: number }> {
    this.#stopping = true;
    await this.#loop;
    this.#loop = undefined;
    return { left: await this.#left() };
  }

  async #run(): Promise<void> {
    while (!this.#stopping) await this.#pollOnce(this.#options.waitTimeSeconds ?? 1);
  }

  /** Receives and handles one batch; returns its size. */
  async #pollOnce(waitTimeSeconds: number): Promise<number> {
    let messages: Message[];
    try {
      const out = await this.#options.sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: this.#options.queueUrl,
          MaxNumberOfMessages: this.#options.batchSize ?? 10,
          WaitTimeSeconds: waitTimeSeconds,
          MessageAttributeNames: ['All'],
          MessageSystemAttributeNames: ['All'],
        }),
      );
      messages = out.Messages ?? [];
    } catch (error) {
      this.#options.onError(error, 'receive');
      await this.#sleep(RECEIVE_ERROR_BACKOFF_MS);
      return 0;
    }
    if (messages.length > 0) await this.#handle(messages);
    return messages.length;
  }

  async #handle(messages: Message[]): Promise<void> {
    let failed: Set<string>;
    try {
      const response = await this.#options.handler(toSqsEvent(messages, this.#options.source));
      failed = new Set((response?.batchItemFailures ?? []).map((f) => f.itemIdentifier));
    } catch (error) {
      // As on Lambda: a handler that throws fails the whole batch; it comes back after the visibility timeout.
      this.#options.onError(error, 'handler');
      failed = new Set(messages.flatMap((m) => (m.MessageId === undefined ? [] : [m.MessageId])));
    }
    const done = messages.filter((m) => m.MessageId === undefined || !failed.has(m.MessageId));
    if (done.length === 0) return;
    try {
      const out = await this.#options.sqs.send(
        new DeleteMessageBatchCommand({
          QueueUrl: this.#options.queueUrl,
          Entries: done.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle })),
        }),
      );
      if (out.Failed && out.Failed.length > 0) {
        // Not lost: the messages come back and the idempotency record answers the repeat.
        this.#options.onError(new Error(`${out.Failed.length} deletes failed`), 'delete');
      }
    } catch (error) {
      this.#options.onError(error, 'delete');
    }
  }

  /** What is on the queue: visible, delayed and in flight. */
  async #left(): Promise<number> {
    const out = await this.#options.sqs.send(
      new GetQueueAttributesCommand({
        QueueUrl: this.#options.queueUrl,
        AttributeNames: [
          'ApproximateNumberOfMessages',
          'ApproximateNumberOfMessagesDelayed',
          'ApproximateNumberOfMessagesNotVisible',
        ],
      }),
    );
    const attributes = out.Attributes ?? {};
    return (
      Number(attributes.ApproximateNumberOfMessages ?? 0) +
      Number(attributes.ApproximateNumberOfMessagesDelayed ?? 0) +
      Number(attributes.ApproximateNumberOfMessagesNotVisible ?? 0)
    );
  }
}
