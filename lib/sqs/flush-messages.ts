/**
 * The flush worker: each flush-queue message runs the flush protocol once for
 * each shard it names: `{"shard"}` (a size trigger) or `{"shards": [...]}` (a
 * tick's fan-out list, P5 in `lib/ticker/tick-plan.ts`), flushed as wide as a
 * tick flushes (`TICK_SIZING.maxConcurrency`), each flush's byte cap shared
 * as in a tick (P3). A busy, poisoned or idle shard is a success (nothing a
 * retry would change); a thrown transient error fails the message so SQS
 * retries it: the listed shards that did commit then find nothing pending or
 * flush what arrived since, as the next tick would. Each
 * flush emits the `OldestPendingAgeMs` gauge for its shard, as the tick does
 * for the shards it flushes itself, so a fanned-out shard that keeps failing
 * still trips the alarm.
 */

import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { InvalidInputError, UnavailableError } from '../errors.js';
import { type FlushDeps, type FlushOutcome, flushShard } from '../flush/flush-shard.js';
import { reportFlush } from '../flush/report.js';
import { Metric } from '../observability/metric-names.js';
import { logger, metrics } from '../observability/telemetry.js';
import { assertShardName } from '../paths.js';
import { parseJsonBody } from '../put/schema.js';
import type { RebuildTakeover } from '../recovery/takeover.js';
import { mapWithConcurrency } from '../ticker/concurrency.js';
import { pendingAgeAfter } from '../ticker/pending-age.js';
import { takeOverLapsed } from '../ticker/tick.js';
import { flushBytesAt, TICK_SIZING } from '../ticker/tick-plan.js';

/** The shards one message names; a malformed body is an InvalidInputError naming the field. */
function shardsOf(body: unknown): string[] {
  if (typeof body !== 'object' || body === null)
    throw new InvalidInputError('body', 'expected {"shard"} or {"shards"}');
  const { shard, shards } = body as { shard?: unknown; shards?: unknown };
  if (shards === undefined) {
    assertShardName(shard, 'body.shard');
    return [shard];
  }
  if (
    !Array.isArray(shards) ||
    shards.length === 0 ||
    shards.length > TICK_SIZING.maxShardsPerMessage
  )
    throw new InvalidInputError(
      'body.shards',
      `expected 1-${TICK_SIZING.maxShardsPerMessage} shard names, got ${JSON.stringify(shards).slice(0, 80)}`,
    );
  for (const [i, name] of shards.entries()) assertShardName(name, `body.shards[${i}]`);
  return shards as string[];
}

/** Flushes the shards named by one message; a lapsed rebuild fence it meets is taken over. */
export async function flushMessage(
  deps: FlushDeps,
  record: SQSRecord,
  takeOver?: RebuildTakeover,
): Promise<void> {
  const shards = shardsOf(parseJsonBody(record.body));
  if (shards.length === 1) return flushOne(deps, shards[0]!, takeOver);
  const concurrency = Math.min(shards.length, TICK_SIZING.maxConcurrency);
  const wide = { ...deps, maxWalObjectBytes: flushBytesAt(deps.maxWalObjectBytes, concurrency) };
  const errors = await mapWithConcurrency(shards, concurrency, (shard) =>
    flushOne(wide, shard, takeOver).then(
      () => undefined,
      (error: unknown) => ({ shard, error }),
    ),
  );
  const failed = errors.filter((e) => e !== undefined);
  if (failed.length > 0) {
    throw new UnavailableError(
      `flush of ${failed.length} of ${shards.length} listed shards failed (first ${failed[0]!.shard}: ${(failed[0]!.error as Error).message}); the message is retried`,
      { cause: failed[0]!.error },
    );
  }
}

/** Flushes `shard` once and emits its oldest pending age; a transient failure throws. */
async function flushOne(deps: FlushDeps, shard: string, takeOver?: RebuildTakeover): Promise<void> {
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
