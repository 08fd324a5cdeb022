/**
 * The producer client (`lib/client`'s `ShardwalHttpClient`) in the
 * simulation: its retries (one Idempotency-Key for every attempt, backoff,
 * `Retry-After`) run unchanged on the world's clock and sleep, over a `fetch`
 * that hands each request to the real put route (`handlePut`) as API Gateway
 * would, in a put actor of its own. An actor killed mid-request is a
 * connection reset: the client sees a network error, the outcome unknown, and
 * retries under the same key.
 */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { ShardwalHttpClient } from '../../lib/client/http-client.js';
import { handlePut } from '../../lib/http/put-route.js';
import type { PutDeps } from '../../lib/put/put-rows.js';
import type { AttemptOutcome } from './history.js';
import type { World } from './world.js';

/** Reports each request's outcome as its client saw it. */
export type OnRequest = (outcome: AttemptOutcome, startedAt: number) => void;

/** A client whose requests run as put actors of `world`. */
export function simClient(input: {
  world: World;
  deps: PutDeps;
  name: string;
  skew: () => number;
  random: () => number;
  maxElapsedMs: number;
  onRequest: OnRequest;
}): ShardwalHttpClient {
  const { world } = input;
  let requests = 0;
  const simFetch = async (url: URL | string | Request, init?: RequestInit): Promise<Response> => {
    const target = new URL(String(url));
    const shard = decodeURIComponent(target.pathname.split('/')[3] ?? '');
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries((init?.headers ?? {}) as Record<string, string>)) {
      headers[name.toLowerCase()] = value;
    }
    const bytes = Buffer.from((init?.body ?? new Uint8Array()) as Uint8Array);
    const binary = headers['content-encoding'] !== undefined;
    const event = {
      version: '2.0',
      routeKey: 'POST /v1/shards/{shard}/rows',
      rawPath: target.pathname,
      rawQueryString: target.search.slice(1),
      headers,
      body: binary ? bytes.toString('base64') : bytes.toString('utf8'),
      isBase64Encoded: binary,
      pathParameters: { shard },
      queryStringParameters: Object.fromEntries(target.searchParams),
      requestContext: { http: { method: 'POST' } },
    } as unknown as APIGatewayProxyEventV2;
    const startedAt = world.now;
    const proc = world.spawn(`${input.name}.${++requests}`, 'put', input.skew(), () =>
      handlePut(event, input.deps),
    );
    const result = await Promise.race([proc.promise, proc.actor.died.then(() => undefined)]);
    if (!result) {
      input.onRequest({ kind: 'crashed' }, startedAt);
      throw new TypeError('fetch failed: the connection was reset');
    }
    const status = result.statusCode ?? 0;
    const body = String(result.body ?? '');
    const payload = JSON.parse(body) as {
      seq?: number;
      durable?: boolean;
      error?: { kind: string; message: string };
    };
    input.onRequest(
      status === 200 || status === 202
        ? { kind: 'ack', seq: payload.seq, durable: payload.durable === true, repeated: false }
        : {
            kind: 'error',
            status,
            errorKind: payload.error?.kind ?? 'unknown',
            message: payload.error?.message ?? '',
          },
      startedAt,
    );
    const responseHeaders = new Headers();
    for (const [name, value] of Object.entries(result.headers ?? {})) {
      responseHeaders.set(name, String(value));
    }
    return new Response(body, { status, headers: responseHeaders });
  };
  return new ShardwalHttpClient({
    endpoint: 'https://sim.invalid/',
    gzip: false,
    fetch: simFetch as typeof fetch,
    retry: {
      maxAttempts: 8,
      maxElapsedMs: input.maxElapsedMs,
      random: input.random,
      sleep: (ms) => world.sleep(ms),
      now: world.clock,
    },
  });
}
