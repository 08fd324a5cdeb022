/**
 * The SQS put path: each message `{"shard", "rows", "key"?}` goes through the
 * same `putRows` as HTTP, buffered. Failures are per message
 * (`batchItemFailures`): a bad message is logged with the field at fault and
 * left to SQS's redrive (it reaches the DLQ after maxReceiveCount), while the
 * good messages of the same batch are acked. The idempotency key is the
 * producer's `IdempotencyKey` message attribute when given, else the message
 * id, so a redelivered message buffers nothing twice.
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { InvalidInputError, ShardwalError } from '../errors.js';
import { Metric } from '../observability/metric-names.js';
import { logger, metrics } from '../observability/telemetry.js';
import { Durability, type PutDeps, putRows } from '../put/put-rows.js';
import { parseJsonBody } from '../put/schema.js';

/** Message attribute a producer may set to deduplicate across message ids. */
export const IDEMPOTENCY_ATTRIBUTE = 'IdempotencyKey';

function splitMessage(body: unknown): { shard: unknown; rest: Record<string, unknown> } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new InvalidInputError('body', 'expected a JSON object {"shard", "rows"}');
  }
  const { shard, ...rest } = body as Record<string, unknown>;
  return { shard, rest };
}

/** Buffers one SQS message; throws to fail just this message. */
export async function putMessage(deps: PutDeps, record: SQSRecord): Promise<void> {
  try {
    const { shard, rest } = splitMessage(parseJsonBody(record.body));
    if (typeof shard !== 'string')
      throw new InvalidInputError('body.shard', `expected a string, got ${JSON.stringify(shard)}`);
    const idempotencyKey =
      record.messageAttributes?.[IDEMPOTENCY_ATTRIBUTE]?.stringValue ?? record.messageId;
    const result = await putRows(deps, {
      shard,
      body: rest,
      durability: Durability.buffered,
      idempotencyKey,
    });
    if (!result.repeated) {
      metrics.addMetric(Metric.putBatches, MetricUnit.Count, 1);
      metrics.addMetric(Metric.putRows, MetricUnit.Count, result.ack.rows);
      metrics.addMetric(Metric.putBytes, MetricUnit.Bytes, result.bytes);
    }
    logger.info('put', { ...result.ack, messageId: record.messageId, repeated: result.repeated });
  } catch (error) {
    metrics.addMetric(Metric.putRejected, MetricUnit.Count, 1);
    const kind = error instanceof ShardwalError ? error.kind : 'internal';
    logger.error('message not buffered', {
      messageId: record.messageId,
      kind,
      error: error as Error,
    });
    throw error;
  }
}

/** Handles an SQS batch with partial failures. */
export async function handlePutMessages(
  event: SQSEvent,
  context: Context,
  deps: PutDeps,
): Promise<SQSBatchResponse> {
  const processor = new BatchProcessor(EventType.SQS);
  return processPartialResponse(event, (record: SQSRecord) => putMessage(deps, record), processor, {
    context,
    throwOnFullBatchFailure: false,
  });
}
