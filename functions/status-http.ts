/** Lambda: `GET /v1/shards/{shard}` and `GET /v1/shards/{shard}/seqs/{seq}`. */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { handleStatus } from '../lib/http/status-route.js';
import { serviceFromEnv } from '../lib/runtime/service.js';
import { wrapHandler } from '../lib/runtime/wrap.js';

// DynamoDB only; S3 when a seq is first looked up in the WAL (one too old for its item).
const service = serviceFromEnv();

export const handler = wrapHandler((event: APIGatewayProxyEventV2) =>
  handleStatus(event, service.table, service.store()),
);
