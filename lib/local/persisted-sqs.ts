/**
 * The local stack's SQS emulator: fauxqs (SQS's JSON protocol, in memory)
 * with every queue and message kept in a leveldb under the data folder
 * (`queue-journal.ts`), so its queues survive kill -9 exactly like the
 * DynamoDB and object-store state.
 *
 * Contract, for every queue (standard or FIFO, dead-letter queues included):
 * Q1. A change is on disk (fsync'd) before the answer that reports it:
 *     SendMessage(Batch) returns only once its messages are; receives,
 *     deletes, visibility changes, purges and queue changes likewise. (A
 *     change may reach the disk without its answer, when the process dies
 *     in between: SQS is at-least-once, and so is this.)
 * Q2. A message leaves the disk only when it is deleted (DeleteMessage,
 *     PurgeQueue, DeleteQueue), or moved to the dead-letter queue by the
 *     redrive policy, in one atomic write with its arrival there.
 * Q3. After a restart each message is as it was: id, body, attributes and
 *     their digests, sent timestamp, receive count and first receive,
 *     delay, group, deduplication id and sequence number. One that was in
 *     flight stays invisible until its visibility deadline (wall clock), and
 *     its receipt handle still works until then, as in SQS after a consumer
 *     dies. A standard queue hands messages out in the order they arrived;
 *     a FIFO group in sequence-number order, locked while one is in flight.
 * Q4. A FIFO queue's sequence numbers keep increasing across restarts, and
 *     its deduplication ids are remembered for the same 5 minutes from
 *     their first send.
 * Queue URLs name the current port; a restart on another port gives the
 * same queues at new URLs.
 *
 * How: the journal hooks fauxqs's queue and store at the few methods that
 * change state (it reaches into fauxqs 1.9.2's internals, so the version is
 * pinned and checked at load), stages each changed message's whole state,
 * and a Fastify `onSend` hook holds every answer until the journal has
 * synced what was staged before it (group commit, J1 in `queue-journal.ts`).
 * Timer-driven changes (a visibility timeout or a delay running out) need no
 * write: they follow from the deadlines on disk.
 */
import { readFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { type BuildAppOptions, buildApp } from 'fauxqs';
import { InternalError } from '../errors.js';
import { QueueJournal } from './queue-journal.js';

/** The fauxqs release whose internals this module knows. */
const FAUXQS_VERSION = '1.9.2';
/** fauxqs's (and SQS's) deduplication window. */
const DEDUP_WINDOW_MS = 5 * 60 * 1000;

/** A message as fauxqs holds it. */
interface FauxqsMessage {
  messageId: string;
  body: string;
  md5OfBody: string;
  messageAttributes: Record<string, unknown>;
  md5OfMessageAttributes: string;
  sentTimestamp: number;
  approximateReceiveCount: number;
  approximateFirstReceiveTimestamp?: number;
  delayUntil?: number;
  messageGroupId?: string;
  messageDeduplicationId?: string;
  sequenceNumber?: string;
}

interface InflightEntry {
  message: FauxqsMessage;
  receiptHandle: string;
  visibilityDeadline: number;
}

type DlqResolver = (arn: string) => { enqueue: (message: FauxqsMessage) => void } | undefined;

/** The parts of fauxqs's `SqsQueue` this module uses. */
interface FauxqsQueue {
  name: string;
  url: string;
  arn: string;
  createdTimestamp: number;
  lastModifiedTimestamp: number;
  attributes: Record<string, string>;
  tags: Map<string, string>;
  messages: FauxqsMessage[];
  inflightMessages: Map<string, InflightEntry>;
  fifoLockedGroups: Map<string, number>;
  deduplicationCache: {
    set: (id: string, value: { messageId: string; sequenceNumber: string }) => void;
    items: Map<string, { expiry: number }>;
  };
  sequenceCounter: number;
  isFifo(): boolean;
  enqueue(message: FauxqsMessage): void;
  dequeue(
    max: number,
    visibilityTimeout?: number,
    resolver?: DlqResolver,
  ): { ReceiptHandle: string }[];
  deleteMessage(receiptHandle: string): boolean;
  changeVisibility(receiptHandle: string, timeoutSeconds: number): void;
  purge(): void;
  setAttributes(attributes: Record<string, string>): void;
  recordDeduplication(dedupId: string, messageId: string, sequenceNumber: string): void;
  inspectMessages(): {
    ready: FauxqsMessage[];
    delayed: FauxqsMessage[];
    inflight: InflightEntry[];
  };
}

/** The parts of fauxqs's `SqsStore` this module uses. */
interface FauxqsStore {
  queues: Map<string, FauxqsQueue>;
  queuesByName: Map<string, FauxqsQueue>;
  queuesByArn: Map<string, FauxqsQueue>;
  region: string | undefined;
  getQueue(url: string): FauxqsQueue | undefined;
  deleteQueue(url: string): boolean;
  buildQueueUrl(name: string, port: string, requestHost: string, region: string): string;
}

type QueueCtor = new (
  name: string,
  url: string,
  arn: string,
  attributes?: Record<string, string>,
  tags?: Record<string, string>,
) => FauxqsQueue;

const fauxqsUrl = import.meta.resolve('fauxqs');
const fauxqsPackage = JSON.parse(await readFile(new URL('../package.json', fauxqsUrl), 'utf8')) as {
  version: string;
};
if (fauxqsPackage.version !== FAUXQS_VERSION) {
  throw new InternalError(
    `the local SQS journal knows fauxqs ${FAUXQS_VERSION}'s internals, got fauxqs ${fauxqsPackage.version}`,
  );
}
const fauxqs = (await import(new URL('./sqs/sqsStore.js', fauxqsUrl).href)) as {
  SqsQueue: QueueCtor;
  SqsStore: new () => FauxqsStore;
};

/** A queue as stored: its definition and FIFO counter. */
interface QueueRecord {
  name: string;
  arn: string;
  attributes: Record<string, string>;
  tags: Record<string, string>;
  createdTimestamp: number;
  lastModifiedTimestamp: number;
  sequenceCounter: number;
}

/** A message as stored: its whole state, its arrival order, and its visibility when in flight. */
interface MessageRecord {
  message: FauxqsMessage;
  order: number;
  inflight?: { receiptHandle: string; visibilityDeadline: number };
}

/** A remembered FIFO deduplication id. */
interface DedupRecord {
  messageId: string;
  sequenceNumber: string;
  at: number;
}

const queueKey = (arn: string) => `q!${arn}`;
const messageKey = (arn: string, id: string) => `m!${arn}!${id}`;
const dedupKey = (arn: string, id: string) => `d!${arn}!${id}`;

/** Stages queue and message state in the journal; shared by the store and its queues. */
class QueueState {
  readonly journal: QueueJournal;
  /** Arrival order of every message, kept across queues (a dead-lettered one keeps its place). */
  readonly #order = new WeakMap<FauxqsMessage, number>();
  #nextOrder = 0;
  /** Set while the store is rebuilt from disk: nothing is staged then. */
  restoring = false;

  constructor(journal: QueueJournal) {
    this.journal = journal;
  }

  adoptOrder(message: FauxqsMessage, order: number): void {
    this.#order.set(message, order);
    this.#nextOrder = Math.max(this.#nextOrder, order + 1);
  }

  saveQueue(queue: FauxqsQueue): void {
    if (this.restoring) return;
    const record: QueueRecord = {
      name: queue.name,
      arn: queue.arn,
      attributes: queue.attributes,
      tags: Object.fromEntries(queue.tags),
      createdTimestamp: queue.createdTimestamp,
      lastModifiedTimestamp: queue.lastModifiedTimestamp,
      sequenceCounter: queue.sequenceCounter,
    };
    this.journal.put(queueKey(queue.arn), record);
  }

  saveMessage(queue: FauxqsQueue, message: FauxqsMessage, inflight?: InflightEntry): void {
    if (this.restoring) return;
    let order = this.#order.get(message);
    if (order === undefined) {
      order = this.#nextOrder++;
      this.#order.set(message, order);
    }
    const record: MessageRecord = {
      message,
      order,
      ...(inflight && {
        inflight: {
          receiptHandle: inflight.receiptHandle,
          visibilityDeadline: inflight.visibilityDeadline,
        },
      }),
    };
    this.journal.put(messageKey(queue.arn, message.messageId), record);
  }

  forgetMessage(queue: FauxqsQueue, message: FauxqsMessage): void {
    if (this.restoring) return;
    this.journal.del(messageKey(queue.arn, message.messageId));
  }
}

/** Builds the journaled queue class over fauxqs's. */
function journaledQueueClass(state: QueueState) {
  return class JournaledQueue extends fauxqs.SqsQueue {
    /** Persisted deduplication ids in the order they were recorded, for pruning (Q4). */
    readonly dedupKeys: { key: string; at: number }[] = [];

    override enqueue(message: FauxqsMessage): void {
      super.enqueue(message);
      state.saveMessage(this, message);
    }

    override dequeue(max: number, visibilityTimeout?: number, resolver?: DlqResolver) {
      // Q2: a message the redrive policy moves leaves this queue in the batch that adds it there.
      const redrive: DlqResolver | undefined =
        resolver &&
        ((arn) => {
          const target = resolver(arn);
          return (
            target && {
              enqueue: (message) => {
                state.forgetMessage(this, message);
                target.enqueue(message);
              },
            }
          );
        });
      const received = super.dequeue(max, visibilityTimeout, redrive);
      for (const { ReceiptHandle } of received) {
        const entry = this.inflightMessages.get(ReceiptHandle);
        if (entry) state.saveMessage(this, entry.message, entry);
      }
      return received;
    }

    override deleteMessage(receiptHandle: string): boolean {
      const entry = this.inflightMessages.get(receiptHandle);
      const deleted = super.deleteMessage(receiptHandle);
      if (deleted && entry) state.forgetMessage(this, entry.message);
      return deleted;
    }

    override changeVisibility(receiptHandle: string, timeoutSeconds: number): void {
      const entry = this.inflightMessages.get(receiptHandle);
      super.changeVisibility(receiptHandle, timeoutSeconds);
      if (!entry) return;
      if (this.inflightMessages.has(receiptHandle)) state.saveMessage(this, entry.message, entry);
      else state.saveMessage(this, entry.message);
    }

    override purge(): void {
      const { ready, delayed, inflight } = this.inspectMessages();
      for (const message of [...ready, ...delayed, ...inflight.map((entry) => entry.message)]) {
        state.forgetMessage(this, message);
      }
      super.purge();
    }

    override setAttributes(attributes: Record<string, string>): void {
      super.setAttributes(attributes);
      state.saveQueue(this);
    }

    override recordDeduplication(dedupId: string, messageId: string, sequenceNumber: string) {
      super.recordDeduplication(dedupId, messageId, sequenceNumber);
      if (state.restoring) return;
      const now = Date.now();
      const key = dedupKey(this.arn, dedupId);
      state.journal.put(key, { messageId, sequenceNumber, at: now } satisfies DedupRecord);
      this.dedupKeys.push({ key, at: now });
      while (this.dedupKeys.length > 0 && this.dedupKeys[0]!.at + DEDUP_WINDOW_MS <= now) {
        state.journal.del(this.dedupKeys.shift()!.key);
      }
      state.saveQueue(this); // the sequence counter moved
    }
  };
}

type JournaledQueue = InstanceType<ReturnType<typeof journaledQueueClass>>;

/** The journaled store: queues created, changed and deleted through it are staged. */
function journaledStore(state: QueueState): FauxqsStore & {
  createQueue: (...args: ConstructorParameters<QueueCtor>) => JournaledQueue;
} {
  const Queue = journaledQueueClass(state);
  return new (class JournaledStore extends fauxqs.SqsStore {
    createQueue(...args: ConstructorParameters<QueueCtor>): JournaledQueue {
      const queue = new Queue(...args);
      this.queues.set(queue.url, queue);
      this.queuesByName.set(queue.name, queue);
      this.queuesByArn.set(queue.arn, queue);
      state.saveQueue(queue);
      return queue;
    }

    override deleteQueue(url: string): boolean {
      const queue = this.getQueue(url) as JournaledQueue | undefined;
      if (queue) {
        queue.purge();
        for (const { key } of queue.dedupKeys) state.journal.del(key);
        state.journal.del(queueKey(queue.arn));
      }
      return super.deleteQueue(url);
    }
  })();
}

/** Rebuilds the store's queues and messages from the journal's records (Q3, Q4). */
function restore(
  store: ReturnType<typeof journaledStore>,
  state: QueueState,
  records: Map<string, unknown>,
  port: number,
): void {
  const messages: { arn: string; record: MessageRecord }[] = [];
  const dedups: { arn: string; id: string; record: DedupRecord }[] = [];
  const queues: QueueRecord[] = [];
  for (const [key, value] of records) {
    const [kind, arn, ...rest] = key.split('!');
    if (kind === 'q') queues.push(value as QueueRecord);
    else if (kind === 'm') messages.push({ arn: arn!, record: value as MessageRecord });
    else if (kind === 'd')
      dedups.push({ arn: arn!, id: rest.join('!'), record: value as DedupRecord });
  }
  state.restoring = true;
  try {
    const byArn = new Map<string, JournaledQueue>();
    for (const record of queues) {
      const region = record.arn.split(':')[3]!;
      const url = store.buildQueueUrl(record.name, String(port), `127.0.0.1:${port}`, region);
      const queue = store.createQueue(record.name, url, record.arn, record.attributes, record.tags);
      queue.createdTimestamp = record.createdTimestamp;
      queue.lastModifiedTimestamp = record.lastModifiedTimestamp;
      queue.sequenceCounter = record.sequenceCounter;
      byArn.set(record.arn, queue);
    }
    // Arrival order; a FIFO group's order is its sequence numbers', which arrival order keeps.
    messages.sort((a, b) => a.record.order - b.record.order);
    for (const { arn, record } of messages) {
      const queue = byArn.get(arn);
      if (!queue) continue; // its queue was deleted in the batch that lost the message's removal
      state.adoptOrder(record.message, record.order);
      if (record.inflight) {
        queue.inflightMessages.set(record.inflight.receiptHandle, {
          message: record.message,
          ...record.inflight,
        });
        const group = record.message.messageGroupId;
        if (queue.isFifo() && group !== undefined) {
          queue.fifoLockedGroups.set(group, (queue.fifoLockedGroups.get(group) ?? 0) + 1);
        }
      } else {
        queue.enqueue(record.message);
      }
    }
    const now = Date.now();
    dedups.sort((a, b) => a.record.at - b.record.at);
    for (const { arn, id, record } of dedups) {
      const queue = byArn.get(arn);
      if (!queue || record.at + DEDUP_WINDOW_MS <= now) {
        state.journal.del(dedupKey(arn, id));
        continue;
      }
      queue.recordDeduplication(id, record.messageId, record.sequenceNumber);
      const entry = queue.deduplicationCache.items.get(id);
      if (entry) entry.expiry = record.at + DEDUP_WINDOW_MS;
      queue.dedupKeys.push({ key: dedupKey(arn, id), at: record.at });
    }
  } finally {
    state.restoring = false;
  }
}

/** A running persisted SQS emulator. */
export interface PersistedSqs {
  endpoint: string;
  /** Stops answering, then closes the journal (everything acknowledged is already on disk). */
  close: () => Promise<void>;
}

/**
 * Starts the emulator on 127.0.0.1:`port` (0: any free port) with the queues
 * and messages kept in `dir`; DataDirLockedError when another process has
 * `dir` open.
 */
export async function startPersistedSqs(options: {
  dir: string;
  port: number;
  region: string;
}): Promise<PersistedSqs> {
  const { journal, records } = await QueueJournal.open(options.dir);
  const state = new QueueState(journal);
  const store = journaledStore(state);
  const app = buildApp({
    logger: false,
    defaultRegion: options.region,
    // fauxqs builds the SNS and S3 stores it is not given.
    stores: { sqsStore: store } as unknown as BuildAppOptions['stores'],
  });
  // Q1: no answer leaves before the changes staged while it was handled are on disk.
  app.addHook('onSend', async (_request, _reply, payload) => {
    await journal.sync();
    return payload;
  });
  let endpoint: string;
  try {
    endpoint = await app.listen({ port: options.port, host: '127.0.0.1' });
    // Synchronously after listening: no request is handled before the queues are back.
    restore(store, state, records, (app.server.address() as AddressInfo).port);
    await journal.sync(); // what restoring dropped (expired deduplication ids)
  } catch (error) {
    await app.close().catch(() => undefined);
    await journal.close().catch(() => undefined);
    throw error;
  }
  return {
    endpoint,
    close: async () => {
      await app.close();
      await journal.close();
    },
  };
}
