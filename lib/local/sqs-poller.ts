/**
 * The local stand-in for Lambda's SQS event source: long-polls a queue,
 * hands each batch (up to 10) to the handler as a real-shaped `SQSEvent`,
 * and deletes the messages the handler did not list in `batchItemFailures`.
 * Failed messages stay on the queue, parked out of sight for the visibility
 * timeout the handler set (`lib/sqs/hold-back.ts`), and come back, exactly
 * as deployed. It is not Lambda's FIFO event source: FIFO behaviour is
 * tested in process (`test/sqs/`).
 *
 * Stopping: the long poll in flight finishes (at most `waitTimeSeconds`), its
 * batch is handled, then the queue is drained — bounded by `drainTimeoutMs`:
 * the messages this poller parked are made visible again (the emulator keeps
 * messages in memory only, so a parked message would otherwise be lost with
 * it), and every visible one is received and handled, until the queue holds
 * nothing visible, delayed or in flight. `stop()` reports how many were
 * left, and how many of those were parked (failing still when time ran out).
 */
import {
  ChangeMessageVisibilityBatchCommand,
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
  /** Reports a failed receive, delete, unpark or handler invocation; the loop goes on. */
  onError: (error: unknown, what: 'receive' | 'delete' | 'unpark' | 'handler') => void;
  sleep?: (ms: number) => Promise<void>;
}

const RECEIVE_ERROR_BACKOFF_MS = 500;
/** Pause between drain rounds while messages are parked or delayed. */
const DRAIN_PAUSE_MS = 100;

/** What a drain left on the queue. */
export interface DrainReport {
  /** Messages still on the queue (visible, delayed or in flight): lost with the emulator. */
  left: number;
  /** Of those, the ones that failed and kept failing (parked by a hold-back), e.g. behind a poisoned shard. */
  parked: number;
}

/** A running poll loop; see the module comment. */
export class SqsPoller {
  readonly #options: SqsPollerOptions;
  readonly #sleep: (ms: number) => Promise<void>;
  #loop: Promise<void> | undefined;
  #stopping = false;
  /** Receipt handles of the messages that failed and wait out their visibility, by message id. */
  readonly #parked = new Map<string, string>();
  /** Messages that failed and have not succeeded since (parked, or released for a retry). */
  readonly #failing = new Set<string>();

  constructor(options: SqsPollerOptions) {
    this.#options = options;
    this.#sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  }

  /** Starts long-polling. */
  start(): void {
    this.#stopping = false;
    this.#loop ??= this.#run();
  }

  /** Stops polling, drains the queue (bounded); resolves with what was left on it. */
  async stop(options: { drainTimeoutMs?: number } = {}): Promise<DrainReport> {
    this.#stopping = true;
    await this.#loop;
    this.#loop = undefined;
    const deadline = Date.now() + (options.drainTimeoutMs ?? 10_000);
    while (Date.now() < deadline) {
      if ((await this.#pollOnce(0)) > 0) continue;
      const counts = await this.#counts();
      if (counts.left === 0) return counts;
      // Nothing visible: retry the parked ones in the next round, after a pause
      // (delayed messages become visible over time, and a full buffer drains).
      await this.#unpark();
      await this.#sleep(DRAIN_PAUSE_MS);
    }
    return this.#counts();
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
    for (const message of messages) {
      if (message.MessageId === undefined || message.ReceiptHandle === undefined) continue;
      if (failed.has(message.MessageId)) {
        this.#parked.set(message.MessageId, message.ReceiptHandle);
        this.#failing.add(message.MessageId);
      } else {
        this.#parked.delete(message.MessageId);
        this.#failing.delete(message.MessageId);
      }
    }
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

  /**
   * Makes the parked messages visible now, so the drain retries them rather
   * than leave them to die with the emulator. A handle that is stale (the
   * message was received again since) fails harmlessly.
   */
  async #unpark(): Promise<void> {
    const handles = [...this.#parked.values()];
    this.#parked.clear();
    for (let at = 0; at < handles.length; at += 10) {
      try {
        await this.#options.sqs.send(
          new ChangeMessageVisibilityBatchCommand({
            QueueUrl: this.#options.queueUrl,
            Entries: handles.slice(at, at + 10).map((handle, i) => ({
              Id: String(i),
              ReceiptHandle: handle,
              VisibilityTimeout: 0,
            })),
          }),
        );
      } catch (error) {
        this.#options.onError(error, 'unpark');
      }
    }
  }

  /** What is on the queue (visible, delayed, in flight), and how many of those keep failing. */
  async #counts(): Promise<DrainReport> {
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
    const left =
      Number(attributes.ApproximateNumberOfMessages ?? 0) +
      Number(attributes.ApproximateNumberOfMessagesDelayed ?? 0) +
      Number(attributes.ApproximateNumberOfMessagesNotVisible ?? 0);
    return { left, parked: Math.min(left, this.#failing.size) };
  }
}
