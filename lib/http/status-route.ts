/**
 * `GET /v1/shards/{shard}` (status) and `GET /v1/shards/{shard}/seqs/{seq}`
 * (durability of one batch).
 */
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { InvalidInputError, NotFoundError } from '../errors.js';
import { readShardRecord, snapshotCursors } from '../memtable/shard-record.js';
import type { Table } from '../memtable/table.js';
import { Metric } from '../observability/metric-names.js';
import { metrics } from '../observability/telemetry.js';
import { assertShardName } from '../paths.js';
import { errorResponse } from './error-response.js';
import { json } from './responses.js';

/** Status JSON of a shard. */
export async function shardStatus(table: Table, shard: string) {
  assertShardName(shard);
  const cursors = snapshotCursors(await readShardRecord(table, shard));
  if (!cursors) throw new NotFoundError(`shard ${shard}`);
  return { shard, ...cursors };
}

/** Handles both status routes. */
export async function handleStatus(
  event: APIGatewayProxyEventV2,
  table: Table,
): Promise<APIGatewayProxyStructuredResultV2> {
  metrics.addMetric(Metric.statusRequests, MetricUnit.Count, 1);
  try {
    const shard = event.pathParameters?.shard ?? '';
    const status = await shardStatus(table, shard);
    const seqParam = event.pathParameters?.seq;
    if (seqParam === undefined) return json(200, status);
    const seq = Number(seqParam);
    if (!/^\d+$/.test(seqParam) || seq < 1) {
      throw new InvalidInputError(
        'seq',
        `expected a positive integer, got ${JSON.stringify(seqParam)}`,
      );
    }
    if (seq >= status.nextSeq) throw new NotFoundError(`seq ${seq} of shard ${shard}`);
    return json(200, {
      shard,
      seq,
      durable: seq <= status.durableSeq,
      durableSeq: status.durableSeq,
      poison: status.poison,
    });
  } catch (error) {
    return errorResponse(error);
  }
}
