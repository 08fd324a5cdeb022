/**
 * `GET /v1/shards/{shard}` (status) and `GET /v1/shards/{shard}/seqs/{seq}`
 * (the state of one batch: pending, durable, void, quarantined or unknown,
 * decided by `lib/status/seq-state.ts`). The seq is read exactly
 * (`lib/exact-integer.ts`): a value above the largest seq the service can
 * issue is refused with 400 naming that limit, never rounded.
 */
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { InvalidInputError, NotFoundError } from '../errors.js';
import { MAX_SEQ, parseExactInteger } from '../exact-integer.js';
import { readShardRecord, snapshotCursors } from '../memtable/shard-record.js';
import type { Table } from '../memtable/table.js';
import { Metric } from '../observability/metric-names.js';
import { metrics } from '../observability/telemetry.js';
import { assertShardName } from '../paths.js';
import { seqState } from '../status/seq-state.js';
import type { SeqStatus } from '../status/seq-status.js';
import type { ObjectStore } from '../store/object-store.js';
import { errorResponse } from './error-response.js';
import { json } from './responses.js';

/** Status JSON of a shard. */
export async function shardStatus(table: Table, shard: string) {
  assertShardName(shard);
  const cursors = snapshotCursors(await readShardRecord(table, shard));
  if (!cursors) throw new NotFoundError(`shard ${shard}`);
  return { shard, ...cursors };
}

/** Reads a seq parameter exactly: 1 ..= MAX_SEQ, digits only. */
function parseSeq(text: string, field = 'seq'): number {
  const parsed = parseExactInteger(text, {
    min: 1,
    max: MAX_SEQ,
    maxName: 'the largest seq the service can issue',
  });
  if (!parsed.ok) throw new InvalidInputError(field, parsed.problem);
  return parsed.value;
}

/** The state of batch `seq` of `shard` (404 when the shard or the seq was never allocated). */
export async function seqStatus(
  table: Table,
  shard: string,
  seq: number,
  store?: ObjectStore,
): Promise<SeqStatus> {
  assertShardName(shard);
  const record = await readShardRecord(table, shard);
  if (!record) throw new NotFoundError(`shard ${shard}`);
  if (seq >= record.nextSeq) throw new NotFoundError(`seq ${seq} of shard ${shard}`);
  const verdict = await seqState({ table, store }, record, seq);
  return {
    shard,
    seq,
    state: verdict.state,
    durable: verdict.state === 'durable',
    durableSeq: record.durableSeq,
    poison: record.poison ?? null,
    ...(verdict.quarantine ? { quarantine: verdict.quarantine } : {}),
  };
}

/**
 * Handles both status routes. `store` lets the seq route read the WAL for a
 * seq whose batch item has expired; without it such a seq is `unknown`.
 */
export async function handleStatus(
  event: APIGatewayProxyEventV2,
  table: Table,
  store?: ObjectStore,
): Promise<APIGatewayProxyStructuredResultV2> {
  metrics.addMetric(Metric.statusRequests, MetricUnit.Count, 1);
  try {
    const shard = event.pathParameters?.shard ?? '';
    const seqParam = event.pathParameters?.seq;
    if (seqParam === undefined) return json(200, await shardStatus(table, shard));
    assertShardName(shard);
    return json(200, await seqStatus(table, shard, parseSeq(seqParam), store));
  } catch (error) {
    return errorResponse(error);
  }
}
