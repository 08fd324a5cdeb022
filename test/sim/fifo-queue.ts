/**
 * A FIFO ingest queue for the simulation: one message group per shard, the
 * real batch handler (`handlePutMessages`, Powertools' FIFO processor) and the
 * real hold-back schedule (`hold-back.ts`, its seconds scaled to virtual
 * tenths of a second so a schedule sees several redeliveries).
 *
 * What SQS does that the model keeps:
 * - a receive takes, per group, the visible messages in send order and stops
 *   at the first one in flight or held back (a group never overtakes itself);
 * - received messages are invisible for the visibility timeout; one reported
 *   as a batch item failure gets the visibility the handler set; one the
 *   handler finished is deleted; one whose invocation was killed comes back
 *   when its visibility ends, with its receive count raised.
 * The checker's FIFO guarantee (F1): within a group, the messages' rows are in
 * the WAL in send order.
 */
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import type { PutDeps } from '../../lib/put/put-rows.js';
import type { HoldBack, IngestQueues } from '../../lib/sqs/ingest-queues.js';
import { handlePutMessages } from '../../lib/sqs/put-messages.js';
import type { AttemptOutcome, History } from './history.js';
import type { Intent } from './workload.js';
import type { World } from './world.js';

/** Virtual ms per second of the hold-back schedule (10 s → 1 s). */
const HOLD_BACK_SCALE_MS = 100;
/** The queue's visibility timeout (virtual ms): a killed invocation's messages come back after it. */
const VISIBILITY_MS = 3_000;
/** Messages per receive, SQS's FIFO batch size. */
const BATCH_SIZE = 10;
const ARN = 'arn:aws:sqs:eu-west-1:000000000000:sim-ingest.fifo';

interface Message {
  intent: Intent;
  sentAt: number;
  receives: number;
  visibleAt: number;
  attempts: number;
}

/** The FIFO queue and its poller. */
export class FifoQueue {
  readonly #messages: Message[] = [];
  #inFlight = false;
  #spawned = 0;

  constructor(
    private readonly world: World,
    private readonly history: History,
    private readonly deps: PutDeps,
    private readonly onKill: () => void,
  ) {}

  /** Sends `intent`'s message (its arrival). */
  send(intent: Intent): void {
    this.#messages.push({
      intent,
      sentAt: this.world.now,
      receives: 0,
      visibleAt: this.world.now,
      attempts: 0,
    });
  }

  /** True when every message sent so far was handled (deleted). */
  get empty(): boolean {
    return this.#messages.length === 0;
  }

  /** One poll: at most one invocation at a time, like a FIFO event source with one group in flight. */
  poll(): void {
    if (this.#inFlight) return;
    const batch = this.#receive();
    if (batch.length === 0) return;
    this.#inFlight = true;
    const name = `fifo-${++this.#spawned}`;
    const records = batch.map((m) => this.#record(m));
    const event = { Records: records } as SQSEvent;
    const queues = this.#queues(batch);
    const proc = this.world.spawn(name, 'put', 0, () =>
      handlePutMessages(event, CONTEXT, this.deps, queues),
    );
    const startedAt = this.world.now;
    void Promise.race([
      proc.promise.then(
        (response) => ({ response, error: undefined }),
        (error: unknown) => ({ response: undefined, error }),
      ),
      proc.actor.died.then(() => undefined),
    ]).then((settled) => {
      this.#inFlight = false;
      if (!settled) {
        this.onKill();
        for (const m of batch) this.#attempt(m, startedAt, { kind: 'crashed' });
        return; // visibility runs out: they come back
      }
      if (settled.error !== undefined) {
        const message = (settled.error as Error).message;
        this.history.violation(this.world.now, `${name}: the batch handler threw: ${message}`);
        for (const m of batch) {
          this.#attempt(m, startedAt, { kind: 'error', status: 0, errorKind: 'internal', message });
        }
        return;
      }
      const failed = new Set(settled.response!.batchItemFailures.map((f) => f.itemIdentifier));
      for (const m of batch) {
        if (failed.has(m.intent.idempotencyKey!)) {
          this.#attempt(m, startedAt, {
            kind: 'error',
            status: 0,
            errorKind: 'held-back',
            message: 'batch item failure',
          });
          continue;
        }
        this.#messages.splice(this.#messages.indexOf(m), 1);
        this.#attempt(m, startedAt, {
          kind: 'ack',
          seq: undefined,
          durable: false,
          repeated: false,
        });
      }
    });
  }

  /** Per group, the visible messages in send order up to the first invisible one. */
  #receive(): Message[] {
    const blocked = new Set<string>();
    const out: Message[] = [];
    for (const m of this.#messages) {
      const group = m.intent.shard;
      if (blocked.has(group)) continue;
      if (m.visibleAt > this.world.now) {
        blocked.add(group);
        continue;
      }
      if (out.length >= BATCH_SIZE) break;
      m.receives += 1;
      m.visibleAt = this.world.now + VISIBILITY_MS;
      out.push(m);
    }
    return out;
  }

  #record(m: Message): SQSRecord {
    const { intent } = m;
    const body: Record<string, unknown> = { shard: intent.shard, rows: intent.rows };
    if (intent.keyField !== undefined) body.key = intent.keyField;
    return {
      messageId: intent.idempotencyKey!,
      receiptHandle: `${intent.idempotencyKey}-${m.receives}`,
      body: JSON.stringify(body),
      attributes: {
        ApproximateReceiveCount: String(m.receives),
        SentTimestamp: String(m.sentAt),
        SenderId: 'sim',
        ApproximateFirstReceiveTimestamp: String(m.sentAt),
        MessageGroupId: intent.shard,
        MessageDeduplicationId: intent.idempotencyKey!,
      },
      messageAttributes: {},
      md5OfBody: '',
      eventSource: 'aws:sqs',
      eventSourceARN: ARN,
      awsRegion: 'eu-west-1',
    } as SQSRecord;
  }

  /** The queue actions the handler takes: hold-backs set visibility; nothing valid is dead-lettered. */
  #queues(batch: Message[]): IngestQueues {
    const byId = new Map(batch.map((m) => [m.intent.idempotencyKey!, m]));
    return {
      deadLetter: async (record, reason) => {
        this.history.violation(
          this.world.now,
          `${record.messageId}: a valid message dead-lettered: ${reason.kind}: ${reason.message}`,
        );
        const m = byId.get(record.messageId);
        if (m) this.#messages.splice(this.#messages.indexOf(m), 1);
      },
      holdBack: async (entries: readonly HoldBack[]) => {
        for (const { record, seconds } of entries) {
          const m = byId.get(record.messageId);
          if (m) m.visibleAt = this.world.now + seconds * HOLD_BACK_SCALE_MS;
        }
        return [];
      },
    };
  }

  #attempt(m: Message, startedAt: number, outcome: AttemptOutcome): void {
    m.attempts += 1;
    this.history.attempts.push({
      intent: m.intent.id,
      attempt: m.attempts,
      startedAt,
      endedAt: this.world.now,
      outcome,
    });
    this.world.trace.add(
      this.world.now,
      `fifo ${m.intent.id}.${m.attempts} (receive ${m.receives}) → ${outcome.kind}`,
    );
  }
}

const CONTEXT = {
  getRemainingTimeInMillis: () => 60_000,
  functionName: 'sim-put-sqs',
  awsRequestId: 'sim',
} as unknown as Context;

/**
 * F1: per shard (message group), the messages' rows are in the WAL in send
 * order. `seqOf` maps an intent's tag to the seq it landed at.
 */
export function checkFifoOrder(
  intents: readonly Intent[],
  seqOf: (intent: Intent) => number | undefined,
  fail: (text: string) => void,
): void {
  const last = new Map<string, { id: number; seq: number }>();
  for (const intent of intents) {
    if (intent.transport !== 'fifo') continue;
    const seq = seqOf(intent);
    if (seq === undefined) continue;
    const before = last.get(intent.shard);
    if (before && before.seq > seq) {
      fail(
        `FIFO group ${intent.shard}: message ${intent.id} landed at seq ${seq}, before message ${before.id} sent ahead of it (seq ${before.seq})`,
      );
    }
    last.set(intent.shard, { id: intent.id, seq });
  }
}
