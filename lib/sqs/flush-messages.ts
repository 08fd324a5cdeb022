/**
 * The flush worker: each flush-queue message `{"shard"}` (a size trigger or a
 * tick's fan-out) runs the flush protocol once for that shard. A busy,
 * poisoned or idle shard is a success (nothing a retry would change); a
 * thrown transient error fails just that message so SQS retries it.
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { InvalidInputError } from '../errors.js';
import { type FlushDeps, flushShard } from '../flush/flush-shard.js';
import { reportFlush } from '../flush/report.js';
import { assertShardName } from '../paths.js';
import { parseJsonBody } from '../put/schema.js';

/** Flushes the shard named by one message. */
export async function flushMessage(deps: FlushDeps, record: SQSRecord): Promise<void> {
  const body = parseJsonBody(record.body) as { shard?: unknown } | null;
  if (typeof body !== 'object' || body === null)
    throw new InvalidInputError('body', 'expected {"shard"}');
  assertShardName(body.shard, 'body.shard');
  const started = deps.now();
  reportFlush(await flushShard(deps, body.shard), deps.now() - started);
}

/** Handles a flush-queue batch with partial failures. */
export async function handleFlushMessages(
  event: SQSEvent,
  context: Context,
  deps: FlushDeps,
): Promise<SQSBatchResponse> {
  const processor = new BatchProcessor(EventType.SQS);
  return processPartialResponse(
    event,
    (record: SQSRecord) => flushMessage(deps, record),
    processor,
    {
      context,
      throwOnFullBatchFailure: false,
    },
  );
}
