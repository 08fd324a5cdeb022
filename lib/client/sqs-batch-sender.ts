/**
 * Sends messages with `SendMessageBatch`, coalescing the messages handed to
 * it in the same turn of the event loop into calls of at most 10 entries and
 * at most the queue's maximum message size in total (SQS's limit for a
 * whole batch). Each message:
 *
 * - carries its Idempotency-Key as the `IdempotencyKey` String attribute
 *   (the put handler's dedup key), and on a FIFO queue the shard as
 *   `MessageGroupId` and the key (hashed past 128 characters) as
 *   `MessageDeduplicationId`;
 * - is retried alone when its entry fails and SQS does not blame the
 *   sender, or with its whole call when the call fails transiently, always
 *   with the same attributes, so a duplicate delivery buffers nothing twice.
 */
import { createHash } from 'node:crypto';
import type {
  SendMessageBatchRequestEntry,
  SendMessageBatchResult,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { ConnectionError } from './errors.js';
import { type RetryEvent, type RetryOptions, withRetries } from './retry.js';
import { sqsCallError, sqsEntryError } from './sqs-errors.js';
import { IDEMPOTENCY_ATTRIBUTE, messageBytes } from './sqs-message.js';

/** A message to send. */
export interface SqsMessage {
  body: string;
  key: string;
  rows: number;
}

/** What SQS answered for a sent message. */
export interface SqsAck {
  messageId: string;
  /** The message's Idempotency-Key. */
  key: string;
  rows: number;
  /** FIFO queues only. */
  sequenceNumber?: string;
}

/** What the sender needs. */
export interface SqsBatchSenderOptions {
  sqs: SQSClient;
  /** `SendMessageBatchCommand` (passed in, so loading the client does not load the SQS SDK). */
  SendMessageBatchCommand: typeof import('@aws-sdk/client-sqs').SendMessageBatchCommand;
  queueUrl: string;
  /** Set on a FIFO queue: every message's `MessageGroupId`. */
  fifoGroupId: string | undefined;
  /** The queue's `MaximumMessageSize`: the limit of one message and of one call. */
  maxMessageBytes: number;
  retry: RetryOptions;
  onRetry?: (event: RetryEvent & { key: string }) => void;
}

/** SQS takes at most this many entries per `SendMessageBatch`. */
export const MAX_ENTRIES_PER_CALL = 10;

/** A FIFO deduplication id for `key`: itself when it fits SQS's 128 characters, else its SHA-256. */
export function deduplicationId(key: string): string {
  return key.length <= 128 ? key : createHash('sha256').update(key).digest('hex');
}

interface Pending {
  message: SqsMessage;
  bytes: number;
  resolve: (ack: SqsAck) => void;
  reject: (error: unknown) => void;
}

/** See the module comment. */
export class SqsBatchSender {
  readonly #options: SqsBatchSenderOptions;
  #pending: Pending[] = [];
  #scheduled = false;

  constructor(options: SqsBatchSenderOptions) {
    this.#options = options;
  }

  /** Sends `message` (with retries); resolves with its message id. */
  send(message: SqsMessage): Promise<SqsAck> {
    const bytes = messageBytes(message.body, message.key);
    return withRetries(
      () =>
        new Promise<SqsAck>((resolve, reject) => {
          this.#pending.push({ message, bytes, resolve, reject });
          this.#schedule();
        }),
      this.#options.retry,
      this.#options.onRetry && ((event) => this.#options.onRetry?.({ ...event, key: message.key })),
    );
  }

  #schedule(): void {
    if (this.#pending.length >= MAX_ENTRIES_PER_CALL) {
      this.#dispatch();
      return;
    }
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      while (this.#pending.length > 0) this.#dispatch();
    });
  }

  /** Sends the longest prefix of the pending messages that fits one call. */
  #dispatch(): void {
    const call: Pending[] = [];
    let total = 0;
    while (this.#pending.length > 0 && call.length < MAX_ENTRIES_PER_CALL) {
      const next = this.#pending[0]!;
      if (call.length > 0 && total + next.bytes > this.#options.maxMessageBytes) break;
      call.push(this.#pending.shift()!);
      total += next.bytes;
    }
    if (call.length > 0) void this.#sendCall(call);
  }

  async #sendCall(call: Pending[]): Promise<void> {
    const { sqs, SendMessageBatchCommand, queueUrl, fifoGroupId } = this.#options;
    const entries: SendMessageBatchRequestEntry[] = call.map(({ message }, i) => ({
      Id: String(i),
      MessageBody: message.body,
      MessageAttributes: {
        [IDEMPOTENCY_ATTRIBUTE]: { DataType: 'String', StringValue: message.key },
      },
      ...(fifoGroupId === undefined
        ? {}
        : { MessageGroupId: fifoGroupId, MessageDeduplicationId: deduplicationId(message.key) }),
    }));
    let output: SendMessageBatchResult;
    try {
      output = await sqs.send(
        new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: entries }),
      );
    } catch (error) {
      const typed = sqsCallError('SendMessageBatch', error);
      for (const pending of call) pending.reject(typed);
      return;
    }
    const answered = new Set<number>();
    for (const ok of output.Successful ?? []) {
      const i = Number(ok.Id);
      const pending = call[i];
      if (!pending) continue;
      answered.add(i);
      pending.resolve({
        messageId: ok.MessageId ?? '',
        key: pending.message.key,
        rows: pending.message.rows,
        ...(ok.SequenceNumber === undefined ? {} : { sequenceNumber: ok.SequenceNumber }),
      });
    }
    for (const failed of output.Failed ?? []) {
      const i = Number(failed.Id);
      const pending = call[i];
      if (!pending) continue;
      answered.add(i);
      pending.reject(sqsEntryError(failed));
    }
    call.forEach((pending, i) => {
      // An entry in neither list: SQS's answer lost it; sending again is safe (same attributes).
      if (!answered.has(i)) {
        pending.reject(new ConnectionError('SendMessageBatch: no result for the entry', undefined));
      }
    });
  }
}
