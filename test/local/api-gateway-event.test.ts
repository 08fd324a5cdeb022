import { createServer, type IncomingMessage, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { toApiGatewayEvent } from '../../lib/local/api-gateway-event.js';
import { matchRoute } from '../../lib/local/http-routes.js';
import { EventFile, loadEvent } from '../support/events.js';

/** The event the local gateway builds for one real request. */
async function eventOf(
  method: string,
  target: string,
  body: Buffer,
  headers: Record<string, string> = {},
): Promise<APIGatewayProxyEventV2 | undefined> {
  let captured: APIGatewayProxyEventV2 | undefined;
  const server = createServer(async (req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const route = matchRoute(req.method ?? '', path);
    if (route) captured = toApiGatewayEvent(req, route, Buffer.concat(chunks));
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve, reject) => {
    const req = request({ port, host: '127.0.0.1', method, path: target, headers }, (res) => {
      res.resume();
      res.on('end', resolve);
    });
    req.on('error', reject);
    req.end(body);
  });
  await new Promise((resolve) => server.close(resolve));
  return captured;
}

describe('matchRoute', () => {
  it.each([
    ['POST', '/v1/shards/a/rows', 'POST /v1/shards/{shard}/rows', { shard: 'a' }],
    ['GET', '/v1/shards/a', 'GET /v1/shards/{shard}', { shard: 'a' }],
    ['GET', '/v1/shards/a/seqs/7', 'GET /v1/shards/{shard}/seqs/{seq}', { shard: 'a', seq: '7' }],
    ['GET', '/v1/shards/a%20b', 'GET /v1/shards/{shard}', { shard: 'a b' }],
  ])('%s %s → %s', (method, path, routeKey, pathParameters) => {
    expect(matchRoute(method, path)).toMatchObject({ routeKey, pathParameters });
  });

  it.each([
    ['GET', '/v1/shards/a/rows'],
    ['POST', '/v1/shards/a'],
    ['GET', '/v1/shards//seqs/1'],
    ['GET', '/v1/shards/a/'],
    ['GET', '/'],
  ])('matches nothing for %s %s', (method, path) => {
    expect(matchRoute(method, path)).toBeUndefined();
  });
});

describe('toApiGatewayEvent', () => {
  it('builds the payload-2.0 event the sample put event shows', async () => {
    const sample = loadEvent<APIGatewayProxyEventV2>(EventFile.apiPutDurable);
    const body = Buffer.from('{"rows":[{"a":1}]}');
    const event = await eventOf('POST', '/v1/shards/orders/rows?durability=durable&x=1&x=2', body, {
      'Content-Type': 'application/json',
      'Idempotency-Key': 'k-1',
    });
    // Every field of the real sample is there, at the top and in the request context,
    // except the authorizer's: the local API authenticates no one.
    expect(Object.keys(event!)).toEqual(expect.arrayContaining(Object.keys(sample)));
    expect(Object.keys(event!.requestContext)).toEqual(
      expect.arrayContaining(Object.keys(sample.requestContext).filter((k) => k !== 'authorizer')),
    );
    expect(event).toMatchObject({
      version: sample.version,
      routeKey: sample.routeKey,
      rawPath: '/v1/shards/orders/rows',
      rawQueryString: 'durability=durable&x=1&x=2',
      queryStringParameters: { durability: 'durable', x: '1,2' },
      pathParameters: { shard: 'orders' },
      headers: { 'content-type': 'application/json', 'idempotency-key': 'k-1' },
      body: '{"rows":[{"a":1}]}',
      isBase64Encoded: false,
      requestContext: {
        http: { method: 'POST', path: '/v1/shards/orders/rows', protocol: 'HTTP/1.1' },
        routeKey: sample.routeKey,
        stage: '$default',
      },
    });
  });

  it('passes a body that is not UTF-8 as base64, and no body when empty', async () => {
    const bytes = Buffer.from([0xff, 0x00, 0xfe]);
    const binary = await eventOf('POST', '/v1/shards/a/rows', bytes);
    expect(binary).toMatchObject({ body: bytes.toString('base64'), isBase64Encoded: true });
    const empty = await eventOf('GET', '/v1/shards/a', Buffer.alloc(0));
    expect(empty?.body).toBeUndefined();
    expect(empty?.queryStringParameters).toBeUndefined();
  });
});
