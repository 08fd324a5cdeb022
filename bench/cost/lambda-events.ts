/**
 * The events and contexts the Lambda runtime hands shardwal's handlers, as
 * the benchmark builds them: an API Gateway HTTP API (payload v2) put, an
 * SQS record of the ingest queue, and a Lambda context on the virtual clock
 * with the deployed function's memory. Field values are representative, so
 * what the handlers log about them has the deployed length.
 */
import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2, Context, SQSRecord } from 'aws-lambda';
import { lambdaContext } from '../../lib/local/lambda-context.js';

/** The account in ARNs and request contexts. */
const ACCOUNT = '123456789012';

/** A Lambda context for one invocation of a function of `memoryMb`, on the virtual clock. */
export function contextFor(
  memoryMb: number,
  timeoutSeconds: number,
  now: () => number,
  name: string,
): Context {
  const functionName = `Shardwal-Functions${name}0123ABCD-AbCdEfGhIjKl`;
  return {
    ...lambdaContext(functionName, { timeoutMs: timeoutSeconds * 1000, now }),
    memoryLimitInMB: String(memoryMb),
    invokedFunctionArn: `arn:aws:lambda:us-east-1:${ACCOUNT}:function:${functionName}`,
    logStreamName: `2026/12/01/[$LATEST]${randomUUID().replace(/-/g, '')}`,
  };
}

/** An API Gateway (payload v2) event of a put of `body` to `shard`, as the HTTP API sends it. */
export function httpEvent(
  shard: string,
  body: string,
  idempotencyKey: string | undefined,
  nowMs: number,
): APIGatewayProxyEventV2 {
  const path = `/v1/shards/${shard}/rows`;
  return {
    version: '2.0',
    routeKey: 'POST /v1/shards/{shard}/rows',
    rawPath: path,
    rawQueryString: '',
    headers: {
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(body)),
      ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}),
    },
    pathParameters: { shard },
    requestContext: {
      accountId: ACCOUNT,
      apiId: 'a1b2c3d4e5',
      domainName: 'a1b2c3d4e5.execute-api.us-east-1.amazonaws.com',
      domainPrefix: 'a1b2c3d4e5',
      http: {
        method: 'POST',
        path,
        protocol: 'HTTP/1.1',
        sourceIp: '203.0.113.10',
        userAgent: 'shardwal-producer/1.0',
      },
      requestId: 'AbCdEfGhIjKlMnO=',
      routeKey: 'POST /v1/shards/{shard}/rows',
      stage: '$default',
      time: new Date(nowMs).toISOString(),
      timeEpoch: nowMs,
    },
    body,
    isBase64Encoded: false,
  };
}

/** One SQS record of an ingest-queue batch, as the event source mapping delivers it. */
export function sqsRecord(messageId: string, body: string, nowMs: number): SQSRecord {
  return {
    messageId,
    receiptHandle: `AQEB${messageId.replace(/-/g, '')}`,
    body,
    attributes: {
      ApproximateReceiveCount: '1',
      SentTimestamp: String(nowMs),
      SenderId: 'AROAEXAMPLE:producer',
      ApproximateFirstReceiveTimestamp: String(nowMs),
    },
    messageAttributes: {},
    md5OfBody: '0'.repeat(32),
    eventSource: 'aws:sqs',
    eventSourceARN: `arn:aws:sqs:us-east-1:${ACCOUNT}:shardwal-ingest`,
    awsRegion: 'us-east-1',
  };
}

/** A version-4-shaped UUID drawn from `random` (message ids and idempotency keys). */
export function uuidFrom(random: () => number): string {
  let hex = '';
  while (hex.length < 32) hex += Math.floor(random() * 16).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20)}`;
}
