import { describe, expect, it } from 'vitest';
import { RETRY_RULE_OF_KIND, RetryRule, STATUS_OF_KIND } from '../../lib/client/error-kinds.js';
import {
  ApiError,
  BackpressureApiError,
  ConnectionError,
  ERROR_CLASS_OF_KIND,
  ErrorOrigin,
  FencedApiError,
  ForbiddenApiError,
  InProgressApiError,
  MalformedResponseError,
  NotFoundApiError,
  PoisonedApiError,
  SeqNotDurableError,
  SeqWaitEnd,
  TooLargeApiError,
  UnavailableApiError,
} from '../../lib/client/errors.js';
import { type HttpClientOptions, ShardwalHttpClient } from '../../lib/client/http-client.js';
import { rawRow } from '../../lib/client/rows.js';
import { ConfigError, ErrorKind, InvalidInputError } from '../../lib/errors.js';
import { seededRandom } from '../../lib/seeded-random.js';
import {
  ackStep,
  dropStep,
  fakeFetch,
  gatewayStep,
  htmlStep,
  recordedSleep,
  type Step,
  serviceErrorStep,
} from './fake-fetch.js';

const ENDPOINT = 'http://api.test';

function clientWith(script: Step[], options: Partial<HttpClientOptions> = {}, seed = 7) {
  const fake = fakeFetch(script);
  const sleep = recordedSleep();
  let clock = 1_000_000;
  const client = new ShardwalHttpClient({
    endpoint: ENDPOINT,
    fetch: fake.fetch,
    gzip: false,
    ...options,
    retry: {
      random: seededRandom(seed),
      sleep: async (ms) => {
        clock += ms;
        await sleep.sleep(ms);
      },
      now: () => clock,
      ...options.retry,
    },
  });
  return { client, requests: fake.requests, waits: sleep.waits };
}

async function rejection(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}

const ROWS = [{ id: 1 }, { id: 2 }];

describe('ShardwalHttpClient', () => {
  describe('put', () => {
    it('posts the rows with an Idempotency-Key and returns the ack', async () => {
      const { client, requests } = clientWith([ackStep(41)]);
      const ack = await client.put('orders', ROWS);
      expect(ack).toEqual({ shard: 'orders', seq: 41, rows: 2, durable: false });
      expect(requests).toHaveLength(1);
      const [request] = requests;
      expect(request!.method).toBe('POST');
      expect(request!.url.href).toBe(`${ENDPOINT}/v1/shards/orders/rows`);
      expect(request!.text).toBe('{"rows":[{"id":1},{"id":2}]}');
      expect(request!.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(request!.headers['idempotency-key']).toMatch(/^[0-9a-f-]{36}$/);
    });

    it('asks for durability, names the key field and keeps a stage path', async () => {
      const { client, requests } = clientWith([ackStep(3, true)], {
        endpoint: 'https://abc.example/prod',
      });
      const ack = await client.put('users', [{ id: 'u1' }], {
        durable: true,
        keyField: 'id',
        key: 'batch-1',
      });
      expect(ack.durable).toBe(true);
      expect(requests[0]!.url.href).toBe(
        'https://abc.example/prod/v1/shards/users/rows?durability=durable',
      );
      expect(requests[0]!.text).toBe('{"rows":[{"id":"u1"}],"key":"id"}');
      expect(requests[0]!.headers['idempotency-key']).toBe('batch-1');
    });

    it('sends a raw row byte for byte, digits a double would lose included', async () => {
      const { client, requests } = clientWith([ackStep(1)]);
      await client.put('orders', [rawRow(' {"n": 12345678901234567890, "b": 1} ')]);
      expect(requests[0]!.text).toBe('{"rows":[{"n": 12345678901234567890, "b": 1}]}');
    });

    it('refuses an empty batch and a key outside the API pattern before sending', async () => {
      const { client, requests } = clientWith([]);
      await expect(client.put('orders', [])).rejects.toBeInstanceOf(InvalidInputError);
      await expect(client.put('orders', ROWS, { key: 'has space' })).rejects.toThrow(/^key:/);
      await expect(client.put('orders', [[1, 2]])).rejects.toThrow(/rows\[0\]: expected a JSON/);
      expect(requests).toHaveLength(0);
    });

    it('retries a connection dropped after the request was sent, with the same key', async () => {
      const landed = new Map<string, number>();
      // The first request lands, then its connection drops: the retry must find the ack, not land again.
      const landThenDrop: Step = (request) => {
        landed.set(request.headers['idempotency-key']!, 9);
        return dropStep()(request);
      };
      const answerOriginal: Step = (request) =>
        ackStep(landed.get(request.headers['idempotency-key']!) ?? -1)(request);
      const { client, requests, waits } = clientWith([landThenDrop, answerOriginal]);
      const ack = await client.put('orders', ROWS);
      expect(ack.seq).toBe(9);
      expect(requests).toHaveLength(2);
      expect(requests[1]!.headers['idempotency-key']).toBe(requests[0]!.headers['idempotency-key']);
      expect(requests[1]!.text).toBe(requests[0]!.text);
      expect(landed.size).toBe(1);
      expect(waits).toHaveLength(1);
    });

    it('reports a connection that never answers as a retryable ConnectionError', async () => {
      const fake = fakeFetch([], dropStep());
      const lonely = new ShardwalHttpClient({
        endpoint: ENDPOINT,
        fetch: fake.fetch,
        retry: { maxAttempts: 3, sleep: async () => {}, random: seededRandom(1) },
      });
      const error = await rejection(lonely.put('orders', ROWS));
      expect(error).toBeInstanceOf(ConnectionError);
      expect(error.kind).toBe(ErrorKind.unavailable);
      expect(error.origin).toBe(ErrorOrigin.network);
      expect(error.retryable).toBe(true);
      expect(error.attempts).toBe(3);
      expect(error.message).toMatch(/UND_ERR_SOCKET/);
      expect(fake.requests).toHaveLength(3);
      expect(new Set(fake.requests.map((r) => r.headers['idempotency-key'])).size).toBe(1);
    });

    describe('every error kind of the service', () => {
      const kinds = Object.keys(STATUS_OF_KIND) as ErrorKind[];

      it.each(kinds)(
        'types %s with its class, status and retry rule (buffered put)',
        async (kind) => {
          const status = STATUS_OF_KIND[kind];
          const headers: Record<string, string> =
            RETRY_RULE_OF_KIND[kind] === RetryRule.retryAfter ? { 'retry-after': '1' } : {};
          const retried =
            RETRY_RULE_OF_KIND[kind] !== RetryRule.never &&
            RETRY_RULE_OF_KIND[kind] !== RetryRule.durableOnly;
          const { client, requests } = clientWith([
            serviceErrorStep(status, kind, `the ${kind} message`, headers),
            ackStep(5),
          ]);
          if (retried) {
            await expect(client.put('orders', ROWS)).resolves.toMatchObject({ seq: 5 });
            expect(requests).toHaveLength(2);
            expect(requests[1]!.headers['idempotency-key']).toBe(
              requests[0]!.headers['idempotency-key'],
            );
            return;
          }
          const error = await rejection(client.put('orders', ROWS));
          expect(error).toBeInstanceOf(ERROR_CLASS_OF_KIND[kind]);
          expect(error).toMatchObject({ kind, status, retryable: false, origin: 'service' });
          expect(error.message).toBe(`${status} ${kind}: the ${kind} message`);
          expect(requests).toHaveLength(1);
        },
      );
    });

    it('waits as long as Retry-After says, plus at most one base delay of jitter', async () => {
      const { client, waits } = clientWith([
        serviceErrorStep(409, 'in_progress', 'still going', { 'retry-after': '6' }),
        serviceErrorStep(429, 'backpressure', 'full', { 'retry-after': '2' }),
        ackStep(1),
      ]);
      await client.put('orders', ROWS);
      expect(waits).toHaveLength(2);
      expect(waits[0]).toBeGreaterThanOrEqual(6_000);
      expect(waits[0]).toBeLessThan(6_100);
      expect(waits[1]).toBeGreaterThanOrEqual(2_000);
      expect(waits[1]).toBeLessThan(2_100);
    });

    it('reads an HTTP-date Retry-After against the clock', async () => {
      const { client, waits } = clientWith(
        [
          serviceErrorStep(429, 'backpressure', 'full', {
            'retry-after': new Date(1_000_000 + 3_000).toUTCString(),
          }),
          ackStep(1),
        ],
        { retry: { baseDelayMs: 1 } },
      );
      await client.put('orders', ROWS);
      // The clock starts at 1,000,000 ms; the date is 3 s later, rounded down to the second.
      expect(waits[0]).toBeGreaterThanOrEqual(2_000);
      expect(waits[0]).toBeLessThanOrEqual(3_000);
    });

    it("backs off with seeded jitter on API Gateway's 429, which has no Retry-After", async () => {
      const script = () => [
        gatewayStep(429, 'Too Many Requests'),
        gatewayStep(429, 'Too Many Requests'),
        gatewayStep(429, 'Too Many Requests'),
        ackStep(1),
      ];
      const first = clientWith(script(), {}, 11);
      await first.client.put('orders', ROWS);
      const again = clientWith(script(), {}, 11);
      await again.client.put('orders', ROWS);
      const other = clientWith(script(), {}, 12);
      await other.client.put('orders', ROWS);
      expect(first.waits).toEqual(again.waits);
      expect(first.waits).not.toEqual(other.waits);
      // Equal jitter: between half and all of 100, 200, 400 ms.
      first.waits.forEach((wait, i) => {
        const step = 100 * 2 ** i;
        expect(wait).toBeGreaterThanOrEqual(step / 2);
        expect(wait).toBeLessThanOrEqual(step);
      });
    });

    it("types API Gateway's own answers and retries only its throttling and 5xx", async () => {
      const cases: Array<[Step, new (...args: never[]) => ApiError, boolean]> = [
        [gatewayStep(403, 'Forbidden'), ForbiddenApiError, false],
        [gatewayStep(403, 'Signature expired'), ForbiddenApiError, false],
        [gatewayStep(413, 'Request Entity Too Large'), TooLargeApiError, false],
        [gatewayStep(404, 'Not Found'), NotFoundApiError, false],
        [gatewayStep(429, 'Too Many Requests'), BackpressureApiError, true],
        [gatewayStep(500, 'Internal Server Error'), UnavailableApiError, true],
        [gatewayStep(503, 'Service Unavailable'), UnavailableApiError, true],
        [htmlStep(502), UnavailableApiError, true],
      ];
      for (const [step, ErrorClass, retryable] of cases) {
        const { client, requests } = clientWith([step], { retry: { maxAttempts: 1 } });
        const error = await rejection(client.put('orders', ROWS));
        expect(error).toBeInstanceOf(ErrorClass);
        expect(error.origin).toBe(ErrorOrigin.gateway);
        expect(error.retryable).toBe(retryable);
        expect(error.message).toMatch(/from the gateway/);
        expect(requests).toHaveLength(1);
      }
    });

    it('retries fenced only for a durable put, with the same key', async () => {
      const buffered = clientWith([serviceErrorStep(409, 'fenced', 'rebuilt'), ackStep(1)]);
      expect(await rejection(buffered.client.put('orders', ROWS))).toBeInstanceOf(FencedApiError);
      expect(buffered.requests).toHaveLength(1);

      const durable = clientWith([serviceErrorStep(409, 'fenced', 'rebuilt'), ackStep(1, true)]);
      await expect(durable.client.put('orders', ROWS, { durable: true })).resolves.toMatchObject({
        durable: true,
      });
      expect(durable.requests).toHaveLength(2);
      expect(durable.requests[1]!.headers['idempotency-key']).toBe(
        durable.requests[0]!.headers['idempotency-key'],
      );
    });

    it('backs off from the poisoned delay, not the base delay, for a poisoned shard', async () => {
      const { client, waits } = clientWith(
        [
          serviceErrorStep(503, 'poisoned', 'diverged'),
          serviceErrorStep(503, 'poisoned', 'diverged'),
          serviceErrorStep(503, 'unavailable', 'blip'),
          ackStep(1),
        ],
        { retry: { poisonedDelayMs: 5_000, baseDelayMs: 100, maxDelayMs: 10_000 } },
      );
      await client.put('orders', ROWS);
      expect(waits[0]).toBeGreaterThanOrEqual(2_500);
      expect(waits[1]).toBeGreaterThanOrEqual(5_000);
      expect(waits[2]).toBeLessThanOrEqual(400);
    });

    it('gives up after maxAttempts with the last error and its attempt count', async () => {
      const { client, requests } = clientWith(
        Array.from({ length: 5 }, () => serviceErrorStep(503, 'unavailable', 'down')),
        { retry: { maxAttempts: 4 } },
      );
      const error = await rejection(client.put('orders', ROWS));
      expect(error).toBeInstanceOf(UnavailableApiError);
      expect(error.attempts).toBe(4);
      expect(requests).toHaveLength(4);
    });

    it('gives up when the next wait would end past maxElapsedMs', async () => {
      const { client, requests, waits } = clientWith(
        [
          serviceErrorStep(409, 'in_progress', 'going', { 'retry-after': '6' }),
          serviceErrorStep(409, 'in_progress', 'going', { 'retry-after': '6' }),
          ackStep(1),
        ],
        { retry: { maxElapsedMs: 10_000 } },
      );
      const error = await rejection(client.put('orders', ROWS));
      expect(error).toBeInstanceOf(InProgressApiError);
      expect(requests).toHaveLength(2);
      expect(waits).toHaveLength(1);
    });

    it('treats a 2xx that is not a PutAck as malformed, without retrying', async () => {
      const bad: Step = () =>
        new Response(JSON.stringify({ shard: 'orders', seq: '7' }), { status: 202 });
      const { client, requests } = clientWith([bad, ackStep(1)]);
      const error = await rejection(client.put('orders', ROWS));
      expect(error).toBeInstanceOf(MalformedResponseError);
      expect(error.message).toMatch(/field seq: expected integer/);
      expect(requests).toHaveLength(1);
    });

    it('hears every retry through onRetry, with the key and the wait', async () => {
      const events: Array<{ attempt: number; key?: string; kind: string; delayMs: number }> = [];
      const { client, waits } = clientWith(
        [serviceErrorStep(503, 'unavailable', 'blip'), ackStep(1)],
        {
          onRetry: (event) =>
            events.push({
              attempt: event.attempt,
              key: event.key,
              kind: event.error.kind,
              delayMs: event.delayMs,
            }),
        },
      );
      await client.put('orders', ROWS, { key: 'k-1' });
      expect(events).toEqual([{ attempt: 1, key: 'k-1', kind: 'unavailable', delayMs: waits[0] }]);
    });
  });

  describe('gzip', () => {
    const bigRows = Array.from({ length: 200 }, (_, i) => ({ id: i, text: 'x'.repeat(50) }));

    it('gzips a body of at least minBytes and sends a smaller one plain', async () => {
      const { client, requests } = clientWith([ackStep(1), ackStep(2)], {
        gzip: { minBytes: 1024 },
      });
      await client.put('orders', bigRows);
      await client.put('orders', ROWS);
      expect(requests[0]!.headers['content-encoding']).toBe('gzip');
      expect(requests[0]!.wire.length).toBeLessThan(Buffer.byteLength(requests[0]!.text) / 4);
      expect(JSON.parse(requests[0]!.text).rows).toHaveLength(200);
      expect(requests[1]!.headers['content-encoding']).toBeUndefined();
      // Compressed bytes go as a type API Gateway passes as bytes; plain JSON as application/json.
      expect(requests[0]!.headers['content-type']).toBe('application/vnd.shardwal+json');
      expect(requests[1]!.headers['content-type']).toBe('application/json; charset=utf-8');
    });

    it('sends the same rows plain, same key, when the service refuses gzip with 415, and stops gzipping', async () => {
      const { client, requests } = clientWith(
        [
          serviceErrorStep(415, 'unsupported_media_type', 'Content-Encoding: expected identity'),
          ackStep(1),
          ackStep(2),
        ],
        { gzip: { minBytes: 1024 } },
      );
      await client.put('orders', bigRows, { key: 'big-1' });
      await client.put('orders', bigRows, { key: 'big-2' });
      expect(requests.map((r) => r.headers['content-encoding'])).toEqual([
        'gzip',
        undefined,
        undefined,
      ]);
      expect(requests[1]!.headers['idempotency-key']).toBe('big-1');
      expect(requests[1]!.text).toBe(requests[0]!.text);
    });

    it("falls back the same way on API Gateway's own 415", async () => {
      const { client, requests } = clientWith(
        [gatewayStep(415, 'Unsupported Media Type'), ackStep(1)],
        { gzip: { minBytes: 1024 } },
      );
      await client.put('orders', bigRows);
      expect(requests.map((r) => r.headers['content-encoding'])).toEqual(['gzip', undefined]);
    });

    it('falls back the same way on an older service’s 400 for the body as a whole, but not for a bad row', async () => {
      const older = clientWith(
        [
          serviceErrorStep(400, 'invalid_input', 'body: not valid JSON: Unexpected token'),
          ackStep(1),
        ],
        { gzip: { minBytes: 1024 } },
      );
      await older.client.put('orders', bigRows, { key: 'k' });
      expect(older.requests.map((r) => r.headers['content-encoding'])).toEqual(['gzip', undefined]);

      const badRow = clientWith(
        [serviceErrorStep(400, 'invalid_input', 'body.rows[3].id: expected a string'), ackStep(1)],
        { gzip: { minBytes: 1024 } },
      );
      const error = await rejection(badRow.client.put('orders', bigRows));
      expect(error.message).toMatch(/rows\[3\]/);
      expect(badRow.requests).toHaveLength(1);
    });

    it('never gzips with gzip: false', async () => {
      const { client, requests } = clientWith([ackStep(1)], { gzip: false });
      await client.put('orders', bigRows);
      expect(requests[0]!.headers['content-encoding']).toBeUndefined();
    });
  });

  describe('status and seqStatus', () => {
    it('reads the shard status and a seq status, checked against the spec', async () => {
      const status = {
        shard: 'orders',
        nextSeq: 8,
        durableSeq: 6,
        walNextPos: 3,
        bufferedBytes: 120,
        epoch: 4,
        poison: null,
        lease: null,
      };
      const { client, requests } = clientWith([
        () => Response.json(status),
        () =>
          Response.json({
            shard: 'orders',
            seq: 7,
            state: 'pending',
            durable: false,
            durableSeq: 6,
            poison: null,
          }),
      ]);
      await expect(client.status('orders')).resolves.toEqual(status);
      await expect(client.seqStatus('orders', 7)).resolves.toMatchObject({ durable: false });
      expect(requests.map((r) => `${r.method} ${r.url.pathname}`)).toEqual([
        'GET /v1/shards/orders',
        'GET /v1/shards/orders/seqs/7',
      ]);
    });

    it.each([0, 1.5, 2 ** 53, Number.POSITIVE_INFINITY])(
      'refuses seq %s before sending: no such number names a seq exactly',
      async (seq) => {
        const { client, requests } = clientWith([]);
        const error = await client.seqStatus('orders', seq).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(InvalidInputError);
        expect((error as Error).message).toMatch(
          /^seq: expected an integer from 1 to 9007199254740991/,
        );
        expect(requests).toHaveLength(0);
      },
    );

    it('answers not_found for a shard never written, without retrying', async () => {
      const { client, requests } = clientWith([
        serviceErrorStep(404, 'not_found', 'shard x not found'),
      ]);
      expect(await rejection(client.status('x'))).toBeInstanceOf(NotFoundApiError);
      expect(requests).toHaveLength(1);
    });

    it('waitDurable polls until the seq is durable', async () => {
      const seq =
        (durable: boolean): Step =>
        () =>
          Response.json({
            shard: 'orders',
            seq: 7,
            state: durable ? 'durable' : 'pending',
            durable,
            durableSeq: durable ? 7 : 6,
            poison: null,
          });
      const { client, requests, waits } = clientWith([seq(false), seq(false), seq(true)]);
      const status = await client.waitDurable('orders', 7, { pollMs: 50 });
      expect(status.durable).toBe(true);
      expect(requests).toHaveLength(3);
      expect(waits).toEqual([50, 50]);
    });

    it('waitDurable rejects, typed, at a poisoned shard and when the time runs out', async () => {
      const poisoned = clientWith([
        () =>
          Response.json({
            shard: 'o',
            seq: 7,
            state: 'pending',
            durable: false,
            durableSeq: 6,
            poison: 'diverged',
          }),
      ]);
      const stopped = await poisoned.client.waitDurable('o', 7).catch((e: unknown) => e);
      expect(stopped).toBeInstanceOf(SeqNotDurableError);
      expect(stopped).toMatchObject({ end: SeqWaitEnd.poisoned, kind: ErrorKind.poisoned });
      expect((stopped as SeqNotDurableError).status.poison).toBe('diverged');
      const pending: Step = () =>
        Response.json({
          shard: 'o',
          seq: 7,
          state: 'pending',
          durable: false,
          durableSeq: 6,
          poison: null,
        });
      const slow = clientWith(Array.from({ length: 20 }, () => pending));
      const late = await slow.client
        .waitDurable('o', 7, { timeoutMs: 1_000, pollMs: 300 })
        .catch((e: unknown) => e);
      expect(late).toMatchObject({ end: SeqWaitEnd.timeout, kind: ErrorKind.unavailable });
      expect((late as SeqNotDurableError).status.state).toBe('pending');
      expect(slow.requests).toHaveLength(5);
    });

    it.each([
      ['void', SeqWaitEnd.void, ErrorKind.fenced],
      ['quarantined', SeqWaitEnd.quarantined, ErrorKind.fenced],
      ['unknown', SeqWaitEnd.unknown, ErrorKind.notFound],
      ['a state it does not know', SeqWaitEnd.unknown, ErrorKind.notFound],
    ])(
      'waitDurable rejects a seq the service calls %s at once, never resolving',
      async (state, end, kind) => {
        const { client, requests } = clientWith([
          () =>
            Response.json({
              shard: 'o',
              seq: 7,
              state: state.includes(' ') ? 'archived' : state,
              durable: false,
              durableSeq: 9,
              poison: null,
            }),
        ]);
        const error = await client.waitDurable('o', 7).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(SeqNotDurableError);
        expect(error).toMatchObject({ end, kind });
        expect(requests).toHaveLength(1);
      },
    );

    it('waitDurable never resolves on durable: true alone when the state says otherwise', async () => {
      const { client } = clientWith([
        () =>
          Response.json({
            shard: 'o',
            seq: 7,
            state: 'void',
            durable: true,
            durableSeq: 9,
            poison: null,
          }),
      ]);
      expect(await client.waitDurable('o', 7).catch((e: unknown) => e)).toMatchObject({
        end: SeqWaitEnd.void,
      });
    });
  });

  it('refuses an endpoint that is not an absolute URL', () => {
    expect(() => new ShardwalHttpClient({ endpoint: '/relative/path' })).toThrow(ConfigError);
  });

  it('maps every kind to a class whose kind is that kind', () => {
    for (const [kind, ErrorClass] of Object.entries(ERROR_CLASS_OF_KIND)) {
      const error = new ErrorClass('m', { origin: ErrorOrigin.service });
      expect(error.kind).toBe(kind);
      expect(error).toBeInstanceOf(ApiError);
    }
    expect(new PoisonedApiError('m', { origin: 'service' }).retryable).toBe(true);
    expect(new FencedApiError('m', { origin: 'service' }).retryable).toBe(false);
  });
});
