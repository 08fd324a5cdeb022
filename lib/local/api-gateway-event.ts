/**
 * Converts a Node HTTP request into the API Gateway HTTP API (payload 2.0)
 * event the deployed handlers receive, and a handler's result back into the
 * response, so the local stack runs the very same handlers. The body is
 * passed as API Gateway passes it (text or base64, `encodeBody`), always
 * the exact bytes sent.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { APIGatewayProxyEventV2, APIGatewayProxyResultV2 } from 'aws-lambda';
import type { RouteMatch } from './http-routes.js';

/**
 * Media types API Gateway HTTP APIs pass to Lambda as text; every other
 * body, a body with no Content-Type included, arrives base64-encoded with
 * `isBase64Encoded: true`. AWS documents the mechanism ("if the content
 * type of the request is binary, the body is base64-encoded") but not the
 * list; this is the split observed against AWS and recorded in
 * ministackorg/ministack#766 (docs/openapi.yaml, "Transport"). What the
 * gateway assumes beyond it:
 *
 * 1. The Content-Type alone decides, never the Content-Encoding: a gzip
 *    body sent as `application/json` arrives as text (and the handler
 *    answers 415, as on AWS). Its text is the bytes read as UTF-8 with
 *    U+FFFD for what is not (the handler never reads it).
 * 2. A body of a text type with no content coding whose bytes are not UTF-8
 *    is passed as base64 of the bytes, so the handler names the bad byte;
 *    AWS does not document what it does with such a body.
 * 3. Parameters (`; charset=...`) and case do not matter; `text/*` is text.
 *
 * One function decides (`passedAsText`): a type the list learns (say
 * `application/x-ndjson`, once observed) is added here and nowhere else.
 */
const TEXT_MEDIA_TYPES = new Set(['application/json', 'application/xml', 'application/javascript']);

/** Strict, and keeps a leading byte order mark: the text is the bytes sent, nothing dropped. */
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
/** What API Gateway is assumed to do with bytes of a text type that are not UTF-8 text (assumption 1). */
const lossyUtf8 = new TextDecoder('utf-8', { ignoreBOM: true });

/** True when API Gateway would pass a body of this Content-Type as text. */
export function passedAsText(contentType: string | undefined): boolean {
  const essence = contentType?.split(';')[0]?.trim().toLowerCase();
  if (essence === undefined || essence === '') return false;
  return essence.startsWith('text/') || TEXT_MEDIA_TYPES.has(essence);
}

/**
 * The body as API Gateway passes it: text for the text media types, base64
 * of the bytes sent otherwise (see the assumptions above). The handler
 * decides everything else (charset, BOM, encoding), so a body gets the same
 * answer here and on AWS.
 */
function encodeBody(
  bytes: Buffer,
  headers: Record<string, string>,
): { body?: string; isBase64Encoded: boolean } {
  if (bytes.length === 0) return { isBase64Encoded: false };
  if (passedAsText(headers['content-type'])) {
    const coded = (headers['content-encoding'] ?? '').split(',').some((c) => {
      const coding = c.trim().toLowerCase();
      return coding !== '' && coding !== 'identity';
    });
    if (coded) return { body: lossyUtf8.decode(bytes), isBase64Encoded: false };
    try {
      return { body: utf8.decode(bytes), isBase64Encoded: false };
    } catch {
      // Not UTF-8: pass the bytes, so the handler names the bad byte (never U+FFFD).
    }
  }
  return { body: bytes.toString('base64'), isBase64Encoded: true };
}

/** Repeated query parameters are joined with commas, as API Gateway does. */
function queryParameters(search: URLSearchParams): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  for (const [name, value] of search) out[name] = name in out ? `${out[name]},${value}` : value;
  return Object.keys(out).length > 0 ? out : undefined;
}

/** Header names lowercased, repeated headers joined with commas; cookies go to `cookies`. */
function headersOf(request: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined || name === 'cookie') continue;
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(',') : value;
  }
  return out;
}

/** The API Gateway v2 event of `request` on `route`. */
export function toApiGatewayEvent(
  request: IncomingMessage,
  route: RouteMatch,
  body: Buffer,
  now: Date = new Date(),
): APIGatewayProxyEventV2 {
  const url = new URL(request.url ?? '/', 'http://localhost');
  const headers = headersOf(request);
  const cookies = request.headers.cookie?.split(/;\s*/).filter((c) => c !== '');
  const method = request.method ?? 'GET';
  const host = headers.host ?? 'localhost';
  return {
    version: '2.0',
    routeKey: route.routeKey,
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    ...(cookies && cookies.length > 0 ? { cookies } : {}),
    headers,
    queryStringParameters: queryParameters(url.searchParams),
    pathParameters: route.pathParameters,
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      domainName: host,
      domainPrefix: host.split('.')[0] ?? host,
      http: {
        method,
        path: url.pathname,
        protocol: `HTTP/${request.httpVersion}`,
        sourceIp: request.socket.remoteAddress ?? '127.0.0.1',
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: randomUUID(),
      routeKey: route.routeKey,
      stage: '$default',
      time: now.toISOString(),
      timeEpoch: now.getTime(),
    },
    ...encodeBody(body, headers),
  };
}

/**
 * Writes a handler's result. A structured result (`statusCode`) is sent as
 * is; anything else is API Gateway's shorthand: 200 with the value as JSON.
 */
export function writeResult(
  response: ServerResponse,
  result: APIGatewayProxyResultV2,
  extraHeaders: Record<string, string> = {},
): void {
  if (typeof result !== 'object' || result === null || !('statusCode' in result)) {
    const body = typeof result === 'string' ? result : JSON.stringify(result);
    response.writeHead(200, { 'content-type': 'application/json', ...extraHeaders });
    response.end(body);
    return;
  }
  const headers: Record<string, string | string[]> = { ...extraHeaders };
  for (const [name, value] of Object.entries(result.headers ?? {})) headers[name] = String(value);
  if (result.cookies && result.cookies.length > 0) headers['set-cookie'] = result.cookies;
  const body =
    result.body === undefined
      ? undefined
      : result.isBase64Encoded
        ? Buffer.from(result.body, 'base64')
        : result.body;
  response.writeHead(result.statusCode ?? 200, headers);
  response.end(body);
}
