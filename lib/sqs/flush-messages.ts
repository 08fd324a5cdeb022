/**
 * The flush worker: each flush-queue message `{"shard"}` (a size trigger or a
 * tick's fan-out) runs the flush protocol once for that shard. A busy,
 * poisoned or idle shard is a success (nothing a retry would change); a
 * thrown transient error fails just that message so SQS retries it. Each
 * flush emits the `OldestPendingAgeMs` gauge for its shard, as the tick does
 * for the shards it flushes itself, so a fanned-out shard that keeps failing
 * still trips the alarm.
 */

import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { InvalidInputError } from '../errors.js';
import { type FlushDeps, type FlushOutcome, flushShard } from '../flush/flush-shard.js';
import { reportFlush } from '../flush/report.js';
import { Metric } from '../observability/metric-names.js';
import { logger, metrics } from '../observability/telemetry.js';
import { assertShardName } from '../paths.js';
import { parseJsonBody } from '../put/schema.js';
import type { RebuildTakeover } from '../recovery/takeover.js';
import { pendingAgeAfter } from '../ticker/pending-age.js';
import { takeOverLapsed } from '../ticker/tick.js';

/** Flushes the shard named by one message; a lapsed rebuild fence it meets is taken over. */
export async function flushMessage(
  deps: FlushDeps,
  record: SQSRecord,
  takeOver?: RebuildTakeover,
): Promise<void> {
  const body = parseJsonBody(record.body) as { shard?: unknown } | null;
  if (typeof body !== 'object' || body === null)
    throw new InvalidInputError('body', 'expected {"shard"}');
  assertShardName(body.shard, 'body.shard');
  const shard = body.shard;
  const started = deps.now();
  let outcome: FlushOutcome | undefined;
  try {
    outcome = await flushShard(deps, shard);
    reportFlush(outcome, deps.now() - started);
    await takeOverLapsed(takeOver, outcome);
  } finally {
    const ageMs = await pendingAgeAfter(deps.table, deps.now, shard, outcome, (error) =>
      logger.warn('could not date the oldest pending batch', { shard, error: error as Error }),
    );
    metrics.addMetric(Metric.oldestPendingAgeMs, MetricUnit.Milliseconds, ageMs);
  }
}

/** Handles a flush-queue batch with partial failures. */
export async function handleFlushMessages(
  event: SQSEvent,
  context: Context,
  deps: FlushDeps,
  takeOver?: RebuildTakeover,
): Promise<SQSBatchResponse> {
  const processor = new BatchProcessor(EventType.SQS);
  return processPartialResponse(
    event,
    (record: SQSRecord) => flushMessage(deps, record, takeOver),
    processor,
    {
      context,
      throwOnFullBatchFailure: false,
    },
  );
}
