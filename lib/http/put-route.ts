/**
 * `POST /v1/shards/{shard}/rows?durability=buffered|durable` with an optional
 * `Idempotency-Key` header. 202 for a buffered ack (or a durable wait that
 * ran out), 200 once durable. The body is read byte-exact by
 * `request-body.ts` (media type, gzip, limits, strict UTF-8), its form
 * (object, array or NDJSON; `?format`, `?rows`, `?key`) decided by
 * `put-body-shape.ts`, then read exactly by `parsePutText`.
 */
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import type { APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { InvalidInputError } from '../errors.js';
import { Metric } from '../observability/metric-names.js';
import { logger, metrics } from '../observability/telemetry.js';
import { countPut } from '../put/put-metrics.js';
import { Durability, type PutDeps, putRows } from '../put/put-rows.js';
import { parsePutText } from '../put/schema.js';
import { invocationDeadline } from '../put/transport-deadline.js';
import { errorResponse } from './error-response.js';
import { headerCount, headerOf } from './headers.js';
import type { ProxyEvent } from './proxy-event.js';
import { putBodyShape } from './put-body-shape.js';
import { readPutBody } from './request-body.js';
import { json } from './responses.js';

function parseDurability(value: string | undefined): Durability {
  if (value === undefined || value === Durability.buffered) return Durability.buffered;
  if (value === Durability.durable) return Durability.durable;
  throw new InvalidInputError(
    'durability',
    `expected buffered or durable, got ${JSON.stringify(value)}`,
  );
}

/**
 * The request's Idempotency-Key. A key sent twice arrives joined with a
 * comma (HTTP API, the local gateway) or as two values (REST API): it is
 * refused as such, not as a key with a bad character.
 */
function idempotencyKeyOf(event: ProxyEvent): string | undefined {
  const key = headerOf(event.headers, 'idempotency-key');
  if (key === undefined) return undefined;
  if (headerCount(event, 'idempotency-key') > 1 || key.includes(',')) {
    throw new InvalidInputError(
      'Idempotency-Key',
      `sent more than once (got ${JSON.stringify(key)}); send the header once, with one key (keys have no commas)`,
    );
  }
  return key;
}

/** Handles one HTTP put (API Gateway HTTP API payload 2.0, or REST API payload 1.0). */
export async function handlePut(
  event: ProxyEvent,
  deps: PutDeps,
  context?: Context,
): Promise<APIGatewayProxyStructuredResultV2> {
  try {
    const shard = event.pathParameters?.shard ?? '';
    const durability = parseDurability(event.queryStringParameters?.durability);
    const { text, media } = readPutBody(event, deps.config);
    const shape = putBodyShape(event.queryStringParameters ?? undefined, media, text);
    const body = parsePutText(text, deps.config.maxRowsPerPut, [], shape);
    const idempotencyKey = idempotencyKeyOf(event);
    const deadlineAtMs = invocationDeadline(context, deps.now());
    const result = await putRows(deps, { shard, body, durability, idempotencyKey, deadlineAtMs });
    countPut(result);
    logger.debug('put', {
      ...result.ack,
      bytes: result.bytes,
      repeated: result.repeated,
      durability,
    });
    return json(result.ack.durable ? 200 : 202, result.ack);
  } catch (error) {
    metrics.addMetric(Metric.putRejected, MetricUnit.Count, 1);
    return errorResponse(error);
  }
}
