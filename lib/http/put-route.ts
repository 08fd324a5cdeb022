/**
 * `POST /v1/shards/{shard}/rows?durability=buffered|durable` with an optional
 * `Idempotency-Key` header. 202 for a buffered ack (or a durable wait that
 * ran out), 200 once durable.
 */
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { InvalidInputError, PayloadTooLargeError } from '../errors.js';
import { Metric } from '../observability/metric-names.js';
import { logger, metrics } from '../observability/telemetry.js';
import { Durability, type PutDeps, putRows } from '../put/put-rows.js';
import { parseJsonBody } from '../put/schema.js';
import { errorResponse } from './error-response.js';
import { json } from './responses.js';

function parseDurability(value: string | undefined): Durability {
  if (value === undefined || value === Durability.buffered) return Durability.buffered;
  if (value === Durability.durable) return Durability.durable;
  throw new InvalidInputError(
    'durability',
    `expected buffered or durable, got ${JSON.stringify(value)}`,
  );
}

function bodyText(event: APIGatewayProxyEventV2, maxBodyBytes: number): string | undefined {
  if (event.body === undefined) return undefined;
  const bytes = event.isBase64Encoded
    ? Buffer.from(event.body, 'base64')
    : Buffer.from(event.body, 'utf8');
  if (bytes.length > maxBodyBytes)
    throw new PayloadTooLargeError('body', maxBodyBytes, bytes.length);
  return bytes.toString('utf8');
}

function header(event: APIGatewayProxyEventV2, name: string): string | undefined {
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(event.headers ?? {})) {
    if (key.toLowerCase() === wanted) return value;
  }
  return undefined;
}

/** Handles one HTTP put. */
export async function handlePut(
  event: APIGatewayProxyEventV2,
  deps: PutDeps,
): Promise<APIGatewayProxyStructuredResultV2> {
  try {
    const shard = event.pathParameters?.shard ?? '';
    const durability = parseDurability(event.queryStringParameters?.durability);
    const body = parseJsonBody(bodyText(event, deps.config.maxBodyBytes));
    const idempotencyKey = header(event, 'idempotency-key');
    const result = await putRows(deps, { shard, body, durability, idempotencyKey });
    if (!result.repeated) {
      metrics.addMetric(Metric.putBatches, MetricUnit.Count, 1);
      metrics.addMetric(Metric.putRows, MetricUnit.Count, result.ack.rows);
      metrics.addMetric(Metric.putBytes, MetricUnit.Bytes, result.bytes);
    }
    logger.info('put', {
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
