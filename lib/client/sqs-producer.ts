/**
 * A batching producer over the SQS ingest queue: each batch is one message
 * `{"shard", "rows", "key"?}` with its Idempotency-Key in the
 * `IdempotencyKey` attribute, sent through `SendMessageBatch`
 * (`sqs-batch-sender.ts`).
 *
 * Message size: read from the queue (`GetQueueAttributes`
 * `MaximumMessageSize`, 1 MiB on AWS today), never assumed; a batch's body
 * plus its attribute stays within it. A queue whose name ends `.fifo` gets
 * `MessageGroupId` = the shard and a `MessageDeduplicationId` from the key.
 *
 * Order: SQS does not keep order across messages of a standard queue, and
 * the ingest function may take several messages at once; where the order of
 * keyed rows matters, use a FIFO queue with `maxInFlight: 1` (the default
 * with `keyField`), or HTTP.
 */
import { randomUUID } from 'node:crypto';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { ConfigError } from '../errors.js';
import { MalformedResponseError } from './errors.js';
import { BatchingProducer, type ProducerOptions } from './producer.js';
import { frameOverheadBytes, frameRows } from './put-body.js';
import { type RetryEvent, type RetryOptions, retryOptions, withRetries } from './retry.js';
import { type SqsAck, SqsBatchSender } from './sqs-batch-sender.js';
import { sqsCallError } from './sqs-errors.js';
import { attributeBytes } from './sqs-message.js';

/** Options of `createSqsProducer`. */
export interface SqsProducerOptions
  extends Partial<Omit<ProducerOptions<SqsAck>, 'lingerMs' | 'maxInFlight'>> {
  /** A client for the queue's region and credentials. */
  sqs: SQSClient;
  queueUrl: string;
  shard: string;
  /** Name of the field that keys every row. */
  keyField?: string;
  /** Default 20 ms; `null` sends a batch only when full or flushed. */
  lingerMs?: number | null;
  /** Default 10 (one full `SendMessageBatch`), or 1 with `keyField`. */
  maxInFlight?: number;
  /** Default: on with `keyField` (see `ProducerOptions`). */
  stopOnFailure?: boolean;
  /** The queue's maximum message size; read with `GetQueueAttributes` when not given. */
  maxMessageBytes?: number;
  retry?: Partial<RetryOptions>;
  onRetry?: (event: RetryEvent & { key: string }) => void;
}

/** Defaults of `SqsProducerOptions`. */
export const SQS_PRODUCER_DEFAULTS = {
  maxBatchRows: 500,
  lingerMs: 20,
  maxInFlight: 10,
} as const;

/** Digits of the largest batch index a key is sized for. */
const INDEX_DIGITS = 16;

/** Whether `queueUrl` names a FIFO queue (its name ends `.fifo`). */
export function isFifoQueue(queueUrl: string): boolean {
  const name = new URL(queueUrl).pathname.split('/').pop() ?? '';
  return name.endsWith('.fifo');
}

/** The queue's `MaximumMessageSize`, in bytes. */
async function readMaxMessageBytes(
  sqs: SQSClient,
  queueUrl: string,
  retry: RetryOptions,
): Promise<number> {
  const { GetQueueAttributesCommand } = await import('@aws-sdk/client-sqs');
  const output = await withRetries(async () => {
    try {
      return await sqs.send(
        new GetQueueAttributesCommand({
          QueueUrl: queueUrl,
          AttributeNames: ['MaximumMessageSize'],
        }),
      );
    } catch (error) {
      throw sqsCallError('GetQueueAttributes', error);
    }
  }, retry);
  const value = output.Attributes?.MaximumMessageSize;
  const bytes = Number(value);
  if (!Number.isSafeInteger(bytes) || bytes <= 0) {
    throw new MalformedResponseError(
      'GetQueueAttributes',
      `MaximumMessageSize: expected a positive integer, got ${JSON.stringify(value)}`,
    );
  }
  return bytes;
}

/** A producer of rows into `shard` through the SQS queue at `queueUrl`. */
export async function createSqsProducer(
  options: SqsProducerOptions,
): Promise<BatchingProducer<SqsAck>> {
  const { sqs, queueUrl, shard, keyField } = options;
  const retry = retryOptions(options.retry);
  const { SendMessageBatchCommand } = await import('@aws-sdk/client-sqs');
  const maxMessageBytes =
    options.maxMessageBytes ?? (await readMaxMessageBytes(sqs, queueUrl, retry));
  const keyPrefix = options.keyPrefix ?? randomUUID();
  const longestKey = `${keyPrefix}-${'9'.repeat(INDEX_DIGITS)}`;
  const bodyLimit = maxMessageBytes - attributeBytes(longestKey);
  const maxBatchBytes = Math.min(options.maxBatchBytes ?? bodyLimit, bodyLimit);
  const overheadBytes = frameOverheadBytes({ shard, keyField });
  if (maxBatchBytes <= overheadBytes) {
    throw new ConfigError(
      'maxMessageBytes',
      maxMessageBytes,
      `leaves no room for rows beside the ${overheadBytes}-byte frame and the key attribute`,
    );
  }
  const sender = new SqsBatchSender({
    sqs,
    SendMessageBatchCommand,
    queueUrl,
    fifoGroupId: isFifoQueue(queueUrl) ? shard : undefined,
    maxMessageBytes,
    retry,
    onRetry: options.onRetry,
  });
  const lingerMs =
    options.lingerMs === null ? undefined : (options.lingerMs ?? SQS_PRODUCER_DEFAULTS.lingerMs);
  return new BatchingProducer<SqsAck>(
    (batch) =>
      sender.send({
        body: frameRows({ shard, keyField }, batch.rowTexts),
        key: batch.key,
        rows: batch.rowTexts.length,
      }),
    {
      maxBatchRows: options.maxBatchRows ?? SQS_PRODUCER_DEFAULTS.maxBatchRows,
      maxBatchBytes,
      lingerMs,
      maxInFlight:
        options.maxInFlight ?? (keyField === undefined ? SQS_PRODUCER_DEFAULTS.maxInFlight : 1),
      keyPrefix,
      stopOnFailure: options.stopOnFailure ?? keyField !== undefined,
      keyOf: options.keyOf,
      onBatch: options.onBatch,
    },
    { overheadBytes },
  );
}
