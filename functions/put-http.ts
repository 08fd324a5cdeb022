/** Lambda: `POST /v1/shards/{shard}/rows` (API Gateway HTTP API, payload v2). */
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { handlePut } from '../lib/http/put-route.js';
import { flushQueueFromEnv } from '../lib/runtime/flush-requests.js';
import { serviceFromEnv } from '../lib/runtime/service.js';
import { wrapHandler } from '../lib/runtime/wrap.js';

// DynamoDB and the flush queue (size triggers) now; S3 when a batch first spills.
const service = serviceFromEnv(process.env, { flushQueue: flushQueueFromEnv() });

export const handler = wrapHandler((event: APIGatewayProxyEventV2, context: Context) =>
  handlePut(event, service.put, context),
);
