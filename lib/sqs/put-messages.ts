/**
 * The SQS put path. Each message `{"shard", "rows", "key"?}` (or an SNS
 * Notification envelope carrying one: `sns-envelope.ts`) goes through the
 * same `putRows` as HTTP, buffered, with the idempotency key of
 * `message-key.ts`. A refused message is handled by its class
 * (`refusal.ts`):
 *
 *   permanent  sent to the dead-letter queue by the handler, with the reason
 *              as message attributes, and reported done: one WARN line, no
 *              stack, no retries that cannot help;
 *   retry/bug  reported as a batch item failure and held back: its
 *              visibility timeout is set from its receive count
 *              (`hold-back.ts`), so retries back off instead of spinning.
 *
 * Order. From a standard queue, messages are handled concurrently and a
 * failure fails only itself (SQS gives no order to keep). From a FIFO queue
 * (event source ARN ending in `.fifo`), messages are handled one by one in
 * batch order, and a failed message fails every later message of its group
 * in the batch (Powertools' `SqsFifoPartialProcessorAsync`, skipping the
 * group on error), all held back alike: message 3 never lands ahead of a
 * failed message 2. Other groups go on. A permanently refused message is not
 * a failure: it will never land, so the messages after it do.
 */
import {
  BatchProcessor,
  EventType,
  processPartialResponse,
  SqsFifoPartialProcessorAsync,
} from '@aws-lambda-powertools/batch';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { ErrorKind, InvalidInputError, ShardwalError } from '../errors.js';
import { Metric } from '../observability/metric-names.js';
import { logger, metrics } from '../observability/telemetry.js';
import { countPut } from '../put/put-metrics.js';
import { Durability, type PutDeps, putRows } from '../put/put-rows.js';
import { type ParsedPut, parsePutText } from '../put/schema.js';
import { invocationDeadline } from '../put/transport-deadline.js';
import { holdBackSeconds } from './hold-back.js';
import { type HoldBack, type IngestQueues, isFifoRecord } from './ingest-queues.js';
import { messageKey } from './message-key.js';
import { Refusal, refusalOf } from './refusal.js';
import { type SnsEnvelope, unwrapSns } from './sns-envelope.js';

export { IDEMPOTENCY_ATTRIBUTE } from './message-key.js';

/** The put body of a message: the SQS body, or the Message of an SNS envelope. */
function parseMessageBody(
  record: SQSRecord,
  envelope: SnsEnvelope | undefined,
  maxRows: number,
): ParsedPut {
  if (!envelope) return parsePutText(record.body, maxRows, ['shard']);
  try {
    return parsePutText(envelope.message, maxRows, ['shard']);
  } catch (error) {
    if (!(error instanceof InvalidInputError)) throw error;
    // The fields are the published message's: say so, or `body.rows` would point at the envelope.
    const problem = error.message.slice(error.field.length + 2);
    throw new InvalidInputError(`SNS Message ${error.field}`, problem);
  }
}

/** Buffers one SQS message; throws, unlogged, to refuse it (the handler decides what follows). */
export async function putMessage(
  deps: PutDeps,
  record: SQSRecord,
  context?: Context,
): Promise<void> {
  try {
    const envelope = unwrapSns(record.body);
    const body = parseMessageBody(record, envelope, deps.config.maxRowsPerPut);
    const shardValue = body.others.get('shard');
    if (shardValue?.kind !== 'string') {
      throw new InvalidInputError(
        envelope ? 'SNS Message body.shard' : 'body.shard',
        `expected a string, got ${shardValue?.kind ?? 'nothing'}`,
      );
    }
    const key = messageKey(record, envelope);
    const result = await putRows(deps, {
      shard: shardValue.value,
      body,
      durability: Durability.buffered,
      idempotencyKey: key.key,
      deadlineAtMs: invocationDeadline(context, deps.now()),
    });
    countPut(result);
    logger.debug('put', {
      ...result.ack,
      messageId: record.messageId,
      keySource: key.source,
      repeated: result.repeated,
      ...(envelope ? { topicArn: envelope.topicArn } : {}),
    });
  } catch (error) {
    metrics.addMetric(Metric.putRejected, MetricUnit.Count, 1);
    throw error;
  }
}

const receiveCountOf = (record: SQSRecord) =>
  Number(record.attributes?.ApproximateReceiveCount ?? 1) || 1;

const describe = (record: SQSRecord, error: unknown) => ({
  messageId: record.messageId,
  kind: error instanceof ShardwalError ? error.kind : ErrorKind.internal,
  reason: (error as Error).message,
  receiveCount: receiveCountOf(record),
});

/**
 * Deals with a refused message: true when it is settled (dead-lettered),
 * false when it must fail and be retried. Logs one line either way.
 */
async function settleRefusal(
  record: SQSRecord,
  error: unknown,
  queues: IngestQueues | undefined,
): Promise<boolean> {
  const refusal = refusalOf(error);
  const about = describe(record, error);
  if (refusal === Refusal.permanent) {
    if (!queues) {
      logger.error(
        'message can never succeed, but no dead-letter queue is wired; left to the redrive policy',
        about,
      );
      return false;
    }
    try {
      await queues.deadLetter(record, { kind: about.kind, message: about.reason });
    } catch (sendError) {
      logger.error('could not dead-letter a refused message; it is retried', {
        ...about,
        error: sendError as Error,
      });
      return false;
    }
    metrics.addMetric(Metric.ingestDeadLettered, MetricUnit.Count, 1);
    logger.warn('message refused; sent to the dead-letter queue', about);
    return true;
  }
  const seconds = holdBackSeconds(about.receiveCount);
  if (refusal === Refusal.bug) {
    logger.error('message failed unexpectedly; held back for a retry', {
      ...about,
      holdBackSeconds: seconds,
      error: error as Error,
    });
  } else if (about.kind === ErrorKind.inProgress) {
    // A redelivery racing the first delivery: the retry finds the first one's ack.
    logger.info('message in progress in another delivery; held back for a retry', about);
  } else {
    logger.warn('message not buffered; held back for a retry', {
      ...about,
      holdBackSeconds: seconds,
    });
  }
  return false;
}

/**
 * Holds back every failed message of the batch. From a FIFO queue, the
 * messages failed behind a group's first failure take its hold-back, so the
 * group comes back in order.
 */
async function holdBackFailures(
  records: readonly SQSRecord[],
  response: SQSBatchResponse,
  queues: IngestQueues | undefined,
  nowMs: number,
): Promise<void> {
  const failed = new Set(response.batchItemFailures.map((failure) => failure.itemIdentifier));
  if (failed.size === 0) return;
  const entries: HoldBack[] = [];
  const groupSeconds = new Map<string, number>();
  const blocked = new Map<string, string[]>();
  for (const record of records) {
    if (!failed.has(record.messageId)) continue;
    let seconds = holdBackSeconds(receiveCountOf(record));
    const group = isFifoRecord(record) ? record.attributes?.MessageGroupId : undefined;
    if (group !== undefined) {
      const head = groupSeconds.get(group);
      if (head === undefined) groupSeconds.set(group, seconds);
      else {
        seconds = head;
        blocked.set(group, [...(blocked.get(group) ?? []), record.messageId]);
      }
    }
    entries.push({ record, seconds });
    const sentAt = Number(record.attributes?.SentTimestamp);
    if (Number.isFinite(sentAt)) {
      metrics.addMetric(
        Metric.ingestHeldBackAgeMs,
        MetricUnit.Milliseconds,
        Math.max(0, nowMs - sentAt),
      );
    }
  }
  for (const [group, messageIds] of blocked) {
    logger.info('FIFO messages held back behind a failed message of their group', {
      group,
      messageIds,
      holdBackSeconds: groupSeconds.get(group),
    });
  }
  if (!queues) {
    logger.error(
      'no ingest queues wired: failed messages return after the queue visibility timeout',
      {
        messageIds: [...failed],
      },
    );
    return;
  }
  const notHeld = await queues.holdBack(entries);
  if (notHeld.length > 0) {
    logger.warn('could not hold back messages; they return after the queue visibility timeout', {
      messageIds: notHeld.map((record) => record.messageId),
    });
  }
}

/**
 * Handles an SQS batch with partial failures (see the module comment).
 * `queues` dead-letters and holds back; without it (a caller that wired no
 * queues) refused messages are only reported as failures, loudly.
 */
export async function handlePutMessages(
  event: SQSEvent,
  context: Context,
  deps: PutDeps,
  queues?: IngestQueues,
): Promise<SQSBatchResponse> {
  const handleRecord = async (record: SQSRecord): Promise<void> => {
    try {
      await putMessage(deps, record, context);
    } catch (error) {
      if (await settleRefusal(record, error, queues)) return;
      throw error;
    }
  };
  const first = event.Records[0];
  const response =
    first !== undefined && isFifoRecord(first)
      ? await processPartialResponse(event, handleRecord, new SqsFifoPartialProcessorAsync(), {
          context,
          throwOnFullBatchFailure: false,
          skipGroupOnError: true,
        })
      : await processPartialResponse(event, handleRecord, new BatchProcessor(EventType.SQS), {
          context,
          throwOnFullBatchFailure: false,
        });
  await holdBackFailures(event.Records, response, queues, deps.now());
  return response;
}
