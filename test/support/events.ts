/**
 * Loads the sample events in `events/` and adapts them per test (shard name,
 * body, query, headers), so every handler test starts from a realistic payload.
 */
import { readFileSync } from 'node:fs';
import type {
  APIGatewayProxyEventV2,
  APIGatewayProxyStructuredResultV2,
  SQSEvent,
  SQSRecord,
} from 'aws-lambda';

/** File names under `events/`. */
export const EventFile = {
  apiPut: 'api-put.json',
  apiPutDurable: 'api-put-durable.json',
  apiPutRest: 'api-put-rest.json',
  apiPutRestConsoleTest: 'api-put-rest-console-test.json',
  apiStatus: 'api-status.json',
  apiSeqStatus: 'api-seq-status.json',
  sqsBatch: 'sqs-batch.json',
  flushRequests: 'flush-requests.json',
  scheduledTick: 'scheduled-tick.json',
} as const;
export type EventFile = (typeof EventFile)[keyof typeof EventFile];

/** A fresh, mutable copy of a sample event. */
export function loadEvent<T>(file: EventFile): T {
  const url = new URL(`../../events/${file}`, import.meta.url);
  return JSON.parse(readFileSync(url, 'utf8')) as T;
}

/** Changes to a sample HTTP event. */
export interface HttpEventChanges {
  shard?: string;
  /** A string is sent as is; anything else is JSON-encoded; null removes the body. */
  body?: unknown;
  query?: Record<string, string> | null;
  /** Merged into the headers; an undefined value removes that header. */
  headers?: Record<string, string | undefined>;
  seq?: string;
  isBase64Encoded?: boolean;
}

/** A sample HTTP event with its path, body, query and headers adjusted consistently. */
export function httpEvent(file: EventFile, changes: HttpEventChanges = {}): APIGatewayProxyEventV2 {
  const event = loadEvent<APIGatewayProxyEventV2>(file);
  const params = { ...event.pathParameters };
  if (changes.shard !== undefined) params.shard = changes.shard;
  if (changes.seq !== undefined) params.seq = changes.seq;
  event.pathParameters = params;
  const path = event.routeKey
    .replace(/^\S+ /, '')
    .replace('{shard}', encodeURIComponent(params.shard ?? ''))
    .replace('{seq}', encodeURIComponent(params.seq ?? ''));
  event.rawPath = path;
  event.requestContext.http.path = path;
  if (changes.body !== undefined) {
    if (changes.body === null) delete event.body;
    else
      event.body = typeof changes.body === 'string' ? changes.body : JSON.stringify(changes.body);
  }
  if (changes.isBase64Encoded !== undefined) event.isBase64Encoded = changes.isBase64Encoded;
  if (changes.query !== undefined) {
    if (changes.query === null) delete event.queryStringParameters;
    else event.queryStringParameters = changes.query;
    event.rawQueryString = new URLSearchParams(changes.query ?? {}).toString();
  }
  for (const [name, value] of Object.entries(changes.headers ?? {})) {
    if (value === undefined) delete event.headers[name];
    else event.headers[name] = value;
  }
  if (event.body !== undefined && event.headers['content-length'] !== undefined) {
    event.headers['content-length'] = String(Buffer.byteLength(event.body));
  }
  return event;
}

/** A sample SQS batch with every record's `shard` replaced by `shard` (when given). */
export function sqsEvent(file: EventFile, shard?: string): SQSEvent {
  const event = loadEvent<SQSEvent>(file);
  if (shard === undefined) return event;
  for (const record of event.Records) record.body = withShard(record.body, shard);
  return event;
}

function withShard(body: string, shard: string): string {
  try {
    const parsed = JSON.parse(body) as Record<string, unknown>;
    if (typeof parsed.shard !== 'string' || !/^[a-z]/.test(parsed.shard)) return body;
    return JSON.stringify({ ...parsed, shard });
  } catch {
    return body;
  }
}

/** A copy of `record` with a new message id (and optionally a new body). */
export function redelivered(record: SQSRecord, messageId: string, body?: string): SQSRecord {
  return { ...record, messageId, body: body ?? record.body };
}

/** The parsed JSON body of an HTTP result. */
export function bodyOf<T = Record<string, unknown>>(result: APIGatewayProxyStructuredResultV2): T {
  return JSON.parse(String(result.body)) as T;
}
