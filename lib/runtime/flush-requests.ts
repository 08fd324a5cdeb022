/**
 * How the put path asks for a flush before the next tick (size trigger): an
 * SQS message to the flush queue on AWS, or an in-process call in the local
 * stack, which routes it through its ticker so requests are served before ticks.
 */
import { SendMessageBatchCommand, SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { resourcesFromEnv } from '../config.js';
import { UnavailableError } from '../errors.js';
import type { FlushRequester } from '../put/put-rows.js';
import { sqsClientFromEnv } from './clients.js';

/** Body of a flush-queue message. */
export interface FlushMessage {
  shard: string;
  reason: 'size-trigger' | 'fan-out';
}

/** A requester that sends one flush-queue message. */
export function sqsFlushRequester(sqs: SQSClient, queueUrl: string): FlushRequester {
  return async (shard) => {
    const body: FlushMessage = { shard, reason: 'size-trigger' };
    await sqs.send(
      new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(body) }),
    );
  };
}

/** Fans shards out to flush workers, one message per shard, ten per request. */
export function sqsFanOut(sqs: SQSClient, queueUrl: string): (shards: string[]) => Promise<void> {
  return async (shards) => {
    for (let at = 0; at < shards.length; at += 10) {
      const entries = shards.slice(at, at + 10).map((shard, i) => ({
        Id: String(i),
        MessageBody: JSON.stringify({ shard, reason: 'fan-out' } satisfies FlushMessage),
      }));
      const out = await sqs.send(
        new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: entries }),
      );
      if (out.Failed && out.Failed.length > 0) {
        throw new UnavailableError(
          `flush fan-out: ${out.Failed.length} messages not sent: ${out.Failed[0]?.Message}`,
        );
      }
    }
  };
}

/** The flush queue as the service uses it: size-trigger requests, and the tick's fan-out. */
export interface FlushQueue {
  requestFlush: FlushRequester;
  fanOut: (shards: string[]) => Promise<void>;
}

/**
 * The SQS flush queue at SHARDWAL_FLUSH_QUEUE_URL, with its client, or
 * undefined when none is set (the local stack). For the functions that send
 * to it: put-http and put-sqs (size triggers) and flush-tick (fan-out).
 */
export function flushQueueFromEnv(env: NodeJS.ProcessEnv = process.env): FlushQueue | undefined {
  const { flushQueueUrl } = resourcesFromEnv(env);
  if (!flushQueueUrl) return undefined;
  const sqs = sqsClientFromEnv(env);
  return {
    requestFlush: sqsFlushRequester(sqs, flushQueueUrl),
    fanOut: sqsFanOut(sqs, flushQueueUrl),
  };
}

let localRequester: FlushRequester | undefined;

/** Installs the local stack's in-process requester (used when no flush queue is configured). */
export function setLocalFlushRequester(requester: FlushRequester | undefined): void {
  localRequester = requester;
}

/** The local requester, or a no-op: without either, the next tick flushes the shard anyway. */
export const localFlushRequester: FlushRequester = async (shard) => {
  await localRequester?.(shard);
};
