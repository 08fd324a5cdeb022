/**
 * `IngestQueues` over the SQS API. Each consumed queue is paired with its
 * dead-letter queue (`SHARDWAL_INGEST_*` in `RESOURCE_ENV`); a record finds
 * its pair by the queue name in its event source ARN. SDK errors stop here:
 * a failed dead-letter send is an UnavailableError (the message is retried),
 * a failed hold-back is reported back (the message returns after the queue's
 * own visibility timeout instead).
 *
 * A FIFO queue's dead-letter queue is FIFO too: the message keeps its group
 * and is deduplicated on its message id, so a retried send adds no copy.
 */
import {
  ChangeMessageVisibilityBatchCommand,
  SendMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { SQSRecord } from 'aws-lambda';
import { ConfigError, InternalError, UnavailableError } from '../errors.js';
import { deadLetterMessage } from './dead-letter-message.js';
import {
  type DeadLetterReason,
  type HoldBack,
  type IngestQueues,
  isFifoRecord,
  queueNameOfArn,
  queueNameOfUrl,
} from './ingest-queues.js';

/** A consumed queue and its dead-letter queue. */
export interface IngestRoute {
  queueUrl: string;
  deadLetterQueueUrl: string;
}

/** ChangeMessageVisibilityBatch takes at most 10 entries. */
const BATCH = 10;

/** The SQS adapter. */
export class SqsIngestQueues implements IngestQueues {
  readonly #client: SQSClient;
  readonly #routes: ReadonlyMap<string, IngestRoute>;

  /** Throws ConfigError when a FIFO queue's dead-letter queue is not FIFO (SQS requires it). */
  constructor(client: SQSClient, routes: readonly IngestRoute[]) {
    this.#client = client;
    const byName = new Map<string, IngestRoute>();
    for (const route of routes) {
      const name = queueNameOfUrl(route.queueUrl);
      if (name.endsWith('.fifo') !== queueNameOfUrl(route.deadLetterQueueUrl).endsWith('.fifo')) {
        throw new ConfigError(
          `dead-letter queue of ${name}`,
          route.deadLetterQueueUrl,
          `the dead-letter queue of ${name} must be ${name.endsWith('.fifo') ? '' : 'non-'}FIFO like it`,
        );
      }
      byName.set(name, route);
    }
    this.#routes = byName;
  }

  #route(record: SQSRecord): IngestRoute {
    const name = queueNameOfArn(record.eventSourceARN);
    const route = this.#routes.get(name);
    // A consumed queue nobody paired with a dead-letter queue is a wiring bug.
    if (!route) throw new InternalError(`ingest queue ${name} has no dead-letter queue configured`);
    return route;
  }

  async deadLetter(record: SQSRecord, reason: DeadLetterReason): Promise<void> {
    const route = this.#route(record);
    const { body, attributes } = deadLetterMessage(record, reason);
    const fifo = isFifoRecord(record)
      ? {
          MessageGroupId: record.attributes?.MessageGroupId ?? 'shardwal',
          MessageDeduplicationId: record.messageId,
        }
      : {};
    try {
      await this.#client.send(
        new SendMessageCommand({
          QueueUrl: route.deadLetterQueueUrl,
          MessageBody: body,
          MessageAttributes: attributes,
          ...fifo,
        }),
      );
    } catch (error) {
      throw new UnavailableError(
        `message ${record.messageId}: could not send it to the dead-letter queue ${queueNameOfUrl(route.deadLetterQueueUrl)} (${(error as Error).name}: ${(error as Error).message}); it is retried`,
        { cause: error },
      );
    }
  }

  async holdBack(entries: readonly HoldBack[]): Promise<SQSRecord[]> {
    const failed: SQSRecord[] = [];
    const byQueue = new Map<string, HoldBack[]>();
    for (const entry of entries) {
      const url = this.#route(entry.record).queueUrl;
      byQueue.set(url, [...(byQueue.get(url) ?? []), entry]);
    }
    for (const [queueUrl, queued] of byQueue) {
      for (let at = 0; at < queued.length; at += BATCH) {
        const chunk = queued.slice(at, at + BATCH);
        try {
          const out = await this.#client.send(
            new ChangeMessageVisibilityBatchCommand({
              QueueUrl: queueUrl,
              Entries: chunk.map((entry, i) => ({
                Id: String(i),
                ReceiptHandle: entry.record.receiptHandle,
                VisibilityTimeout: entry.seconds,
              })),
            }),
          );
          for (const failure of out.Failed ?? []) failed.push(chunk[Number(failure.Id)]!.record);
        } catch {
          failed.push(...chunk.map((entry) => entry.record));
        }
      }
    }
    return failed;
  }
}
