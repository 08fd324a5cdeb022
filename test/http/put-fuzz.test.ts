/**
 * No input makes the put route answer 500: random shard names, bodies (valid,
 * JSON-ish, broken, deeply nested), query strings and keys, seeded so a
 * failure replays.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ErrorKind } from '../../lib/errors.js';
import { handlePut } from '../../lib/http/put-route.js';
import { EventFile, httpEvent } from '../support/events.js';
import { fixture, useDynalite } from '../support/harness.js';

const dynalite = useDynalite();
const KINDS = new Set<string>(Object.values(ErrorKind));

const shardName = fc.oneof(
  fc.constantFrom('orders', 'a', 'clicks-2026', 'x_y'),
  fc.stringMatching(/^[a-z0-9][a-z0-9_-]{0,8}$/),
  fc.string({ maxLength: 70 }),
  fc.constantFrom('', '../x', 'A', 'x'.repeat(65), '%2e%2e', 'a/b', '\u0000'),
);

const row = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 3 })),
  },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
  {
    weight: 1,
    arbitrary: fc.record(
      {
        id: fc.oneof(fc.string(), fc.integer(), fc.constant(null)),
        $delete: fc.constantFrom(true, false, 1),
      },
      { requiredKeys: [] },
    ),
  },
);

const bodyValue = fc.oneof(
  fc.record(
    {
      rows: fc.oneof(
        { weight: 5, arbitrary: fc.array(row, { maxLength: 5 }) },
        { weight: 1, arbitrary: fc.jsonValue() },
      ),
      key: fc.oneof(fc.constantFrom('id', '$delete', '', '__proto__'), fc.string()),
      extra: fc.jsonValue({ maxDepth: 1 }),
    },
    { requiredKeys: [] },
  ),
  fc.jsonValue(),
);

const deep = fc
  .integer({ min: 50, max: 30_000 })
  .map((depth) => `{"rows":[{"a":${'['.repeat(depth)}${']'.repeat(depth)}}]}`);

const bodyText = fc.oneof(
  { weight: 6, arbitrary: bodyValue.map((value) => JSON.stringify(value)) },
  { weight: 2, arbitrary: bodyValue.map((value) => JSON.stringify(value).slice(0, -1)) },
  { weight: 1, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 1, arbitrary: deep },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '{"rows":[{"__proto__":{"a":1}}]}',
      '{"__proto__":{"rows":[{}]}}',
      'null',
      '[]',
      '{}',
    ),
  },
);

const hostile = fc.record({
  shard: shardName,
  body: fc.option(bodyText, { nil: null }),
  durability: fc.option(fc.constantFrom('buffered', 'durable', 'DURABLE', '', 'x'), {
    nil: undefined,
  }),
  key: fc.option(fc.oneof(fc.string({ maxLength: 20 }), fc.constant('k'.repeat(300))), {
    nil: undefined,
  }),
  base64: fc.boolean(),
});

/** Requests that mostly pass validation, so the accepting side is exercised too. */
const plausible = fc.record({
  shard: fc.stringMatching(/^[a-z0-9][a-z0-9_-]{0,8}$/),
  body: fc.oneof(
    fc
      .array(fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 3 })), {
        minLength: 1,
        maxLength: 4,
      })
      .map((rows) => JSON.stringify({ rows })),
    fc
      .array(
        fc.record({
          id: fc.oneof(fc.string({ minLength: 1 }), fc.integer()),
          v: fc.jsonValue({ maxDepth: 1 }),
        }),
        { minLength: 1, maxLength: 4 },
      )
      .map((rows) => JSON.stringify({ key: 'id', rows })),
  ),
  durability: fc.constantFrom('buffered', 'durable', undefined),
  key: fc.option(fc.stringMatching(/^[!-~]{1,12}$/), { nil: undefined }),
  base64: fc.boolean(),
});

const request = fc.oneof({ weight: 1, arbitrary: plausible }, { weight: 2, arbitrary: hostile });

describe('handlePut under random input', () => {
  it('never answers 500, and every error is the error JSON', { timeout: 120_000 }, async () => {
    const f = await fixture(dynalite(), { durableWaitMs: 1, maxBodyBytes: 64 * 1024 });
    // Real time: a durable put's bounded wait must actually run out.
    const deps = { ...f.put, now: Date.now, sleep: (ms: number) => sleep(ms) };
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        const body =
          r.body === null ? null : r.base64 ? Buffer.from(r.body).toString('base64') : r.body;
        const event = httpEvent(EventFile.apiPut, {
          shard: r.shard,
          body,
          isBase64Encoded: r.base64,
          query: r.durability === undefined ? null : { durability: r.durability },
          headers: { 'idempotency-key': r.key },
        });
        const result = await handlePut(event, deps);
        statuses.set(result.statusCode ?? 0, (statuses.get(result.statusCode ?? 0) ?? 0) + 1);
        expect([200, 202, 400, 413]).toContain(result.statusCode);
        const parsed = JSON.parse(String(result.body));
        if ((result.statusCode ?? 0) >= 400) {
          expect(Object.keys(parsed)).toEqual(['error']);
          expect(Object.keys(parsed.error).sort()).toEqual(['kind', 'message']);
          expect(KINDS.has(parsed.error.kind)).toBe(true);
          expect(parsed.error.message.length).toBeGreaterThan(0);
        } else {
          expect(parsed).toEqual({
            shard: r.shard,
            seq: expect.any(Number),
            rows: expect.any(Number),
            durable: result.statusCode === 200,
          });
        }
      }),
      { seed: 20_260_312, numRuns: 300 },
    );
    // The generator reaches both sides of the validator.
    expect(statuses.get(202)).toBeGreaterThan(10);
    expect(statuses.get(400)).toBeGreaterThan(10);
  });
});
