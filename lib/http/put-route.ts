/**
 * `POST /v1/shards/{shard}/rows?durability=buffered|durable` with an optional
 * `Idempotency-Key` header. 202 for a buffered ack (or a durable wait that
 * ran out), 200 once durable. The body is read byte-exact by
 * `request-body.ts` (media type, gzip, limits, strict UTF-8), its form
 * (object, array or NDJSON; `?format`, `?rows`, `?key`) decided by
 * `put-body-shape.ts`, then read exactly by `parsePutText`.
 */
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import type {
  APIGatewayProxyEventV2,
  APIGatewayProxyStructuredResultV2,
  Context,
} from 'aws-lambda';
import { InvalidInputError } from '../errors.js';
import { Metric } from '../observability/metric-names.js';
import { logger, metrics } from '../observability/telemetry.js';
import { Durability, type PutDeps, putRows } from '../put/put-rows.js';
import { parsePutText } from '../put/schema.js';
import { invocationDeadline } from '../put/transport-deadline.js';
import { errorResponse } from './error-response.js';
import { headerOf } from './headers.js';
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

/** Handles one HTTP put. */
export async function handlePut(
  event: APIGatewayProxyEventV2,
  deps: PutDeps,
  context?: Context,
): Promise<APIGatewayProxyStructuredResultV2> {
  try {
    const shard = event.pathParameters?.shard ?? '';
    const durability = parseDurability(event.queryStringParameters?.durability);
    const { text, media } = readPutBody(event, deps.config);
    const shape = putBodyShape(event.queryStringParameters, media, text);
    const body = parsePutText(text, deps.config.maxRowsPerPut, [], shape);
    const idempotencyKey = headerOf(event.headers, 'idempotency-key');
    const deadlineAtMs = invocationDeadline(context, deps.now());
    const result = await putRows(deps, { shard, body, durability, idempotencyKey, deadlineAtMs });
    if (!result.repeated) {
      metrics.addMetric(Metric.putBatches, MetricUnit.Count, 1);
      metrics.addMetric(Metric.putRows, MetricUnit.Count, result.ack.rows);
      metrics.addMetric(Metric.putBytes, MetricUnit.Bytes, result.bytes);
    }
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
