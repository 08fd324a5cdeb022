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

/**
 * Body of a flush-queue message: one shard (a size trigger; fan-out messages
 * of earlier versions), or a tick's list of shards for one worker (P5 in
 * `lib/ticker/tick-plan.ts`).
 */
type FlushMessage =
  | { shard: string; reason: 'size-trigger' | 'fan-out' }
  | { shards: string[]; reason: 'fan-out' };

/** Limits of the fan-out's sends. */
export const FAN_OUT_SEND = {
  /** Entries per SendMessageBatch (SQS's limit). */
  maxEntries: 10,
  /** Bytes of message bodies per SendMessageBatch (SQS's limit: 256 KiB for the whole request). */
  maxRequestBytes: 256 * 1024,
  /** Sends of one entry before the hand-off gives up on it (the next tick lists its shards again). */
  attempts: 3,
} as const;

/** A requester that sends one flush-queue message. */
function sqsFlushRequester(sqs: SQSClient, queueUrl: string): FlushRequester {
  return async (shard) => {
    const body: FlushMessage = { shard, reason: 'size-trigger' };
    await sqs.send(
      new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(body) }),
    );
  };
}

/**
 * Fans lists of shards out to flush workers, one message per list: the
 * messages are packed into SendMessageBatch requests (ten entries and
 * 256 KiB at most) that are all sent at once. Entries SQS reports failed,
 * and those of a request that failed whole, are sent again, up to
 * `FAN_OUT_SEND.attempts` times; what still failed rejects with an
 * UnavailableError naming how many shards were not handed over (they stay
 * pending: the next tick lists them again).
 */
export function sqsFanOut(sqs: SQSClient, queueUrl: string): (lists: string[][]) => Promise<void> {
  return async (lists) => {
    let entries: FanOutEntry[] = lists.map((shards, i) => ({
      Id: String(i),
      MessageBody: JSON.stringify({ shards, reason: 'fan-out' } satisfies FlushMessage),
    }));
    let lastError = '';
    for (let attempt = 0; attempt < FAN_OUT_SEND.attempts && entries.length > 0; attempt++) {
      const sent = await Promise.all(
        packRequests(entries).map(async (batch) => {
          try {
            const out = await sqs.send(
              new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: batch }),
            );
            const failed = new Set((out.Failed ?? []).map((f) => f.Id));
            if (failed.size > 0) lastError = out.Failed?.[0]?.Message ?? 'failed';
            return batch.filter((entry) => failed.has(entry.Id));
          } catch (error) {
            lastError = (error as Error).message;
            return batch;
          }
        }),
      );
      entries = sent.flat();
    }
    if (entries.length > 0) {
      const shards = entries.reduce((sum, entry) => sum + lists[Number(entry.Id)]!.length, 0);
      throw new UnavailableError(
        `flush fan-out: ${entries.length} of ${lists.length} messages (${shards} shards) not sent after ${FAN_OUT_SEND.attempts} attempts: ${lastError}`,
      );
    }
  };
}

/** One message of a fan-out send. */
interface FanOutEntry {
  Id: string;
  MessageBody: string;
}

/** Packs entries into requests of at most ten entries and 256 KiB of bodies, in order. */
function packRequests(entries: readonly FanOutEntry[]): FanOutEntry[][] {
  const requests: FanOutEntry[][] = [];
  let bytes = 0;
  for (const entry of entries) {
    const size = Buffer.byteLength(entry.MessageBody);
    const open = requests.at(-1);
    if (
      open &&
      open.length < FAN_OUT_SEND.maxEntries &&
      bytes + size <= FAN_OUT_SEND.maxRequestBytes
    ) {
      open.push(entry);
      bytes += size;
    } else {
      requests.push([entry]);
      bytes = size;
    }
  }
  return requests;
}

/** The flush queue as the service uses it: size-trigger requests, and the tick's fan-out. */
export interface FlushQueue {
  requestFlush: FlushRequester;
  fanOut: (lists: string[][]) => Promise<void>;
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
