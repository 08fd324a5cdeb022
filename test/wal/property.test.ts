import { gunzipSync, gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CorruptDataError } from '../../lib/errors.js';
import { SHARD_NAME_PATTERN, walKey } from '../../lib/paths.js';
import { decodeWal } from '../../lib/wal/decode.js';
import { encodeWal } from '../../lib/wal/encode.js';
import type { JsonObject, WalObject } from '../../lib/wal/format.js';
import { type BatchSpec, caught, readWalObject, walObject } from './helpers.js';

const SEED = 20_240_601;

// Rows pass through JSON once, as the put path's rows do (JSON has no -0, so neither do rows).
const rowArb = fc
  .dictionary(fc.string({ unit: 'binary', maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), {
    maxKeys: 4,
  })
  .map((row) => JSON.parse(JSON.stringify(row)) as JsonObject);

const keyArb = fc.string({ unit: 'binary', maxLength: 12 });

const walRowArb = fc.oneof(
  fc.record({ key: keyArb, row: rowArb }),
  fc.record({ row: rowArb }),
  fc.record({ key: keyArb, delete: fc.constant(true as const) }),
);

const batchArb: fc.Arbitrary<BatchSpec> = fc.oneof(
  { weight: 1, arbitrary: fc.constant('void' as const) },
  { weight: 4, arbitrary: fc.array(walRowArb, { minLength: 1, maxLength: 4 }) },
);

const walObjectArb: fc.Arbitrary<WalObject> = fc
  .record({
    batches: fc.array(batchArb, { minLength: 1, maxLength: 6 }),
    shard: fc.stringMatching(SHARD_NAME_PATTERN),
    position: fc.maxSafeNat(),
    epoch: fc.nat(),
    firstSeq: fc.nat(1e12),
    firstRowOffset: fc.nat(1e12),
  })
  .map(({ batches, ...header }) => walObject(batches, header));

/** The value `fn` returns or the error it throws. */
function attempt<T>(fn: () => T): T | Error {
  try {
    return fn();
  } catch (error) {
    return error as Error;
  }
}

const keyOf = ({ header }: WalObject) => walKey(header.shard, header.position);

describe('WAL format v1 properties', () => {
  it('round-trips any valid object through decodeWal and readWal', async () => {
    await fc.assert(
      fc.asyncProperty(walObjectArb, async (object) => {
        const bytes = encodeWal(object);
        expect(decodeWal(keyOf(object), bytes)).toStrictEqual(object);
        expect(await readWalObject(keyOf(object), bytes, 13)).toStrictEqual(object);
      }),
      { seed: SEED, numRuns: 200 },
    );
  });

  it('never returns a different object when one byte of the text is changed', async () => {
    const corruption = fc.record({
      object: walObjectArb,
      at: fc.nat(),
      xor: fc.integer({ min: 1, max: 255 }),
    });
    await fc.assert(
      fc.asyncProperty(corruption, async ({ object, at, xor }) => {
        const text = gunzipSync(encodeWal(object));
        const index = at % text.length;
        text[index] = text[index]! ^ xor;
        const bytes = gzipSync(text);
        const key = keyOf(object);
        const outcome = attempt(() => decodeWal(key, bytes));
        if (outcome instanceof Error) {
          expect(outcome).toBeInstanceOf(CorruptDataError);
          const streamed = await caught(() => readWalObject(key, bytes, 13));
          expect(streamed.message).toBe(outcome.message);
        } else {
          expect(outcome).toStrictEqual(object);
          expect(await readWalObject(key, bytes, 13)).toStrictEqual(object);
        }
      }),
      { seed: SEED, numRuns: 500 },
    );
  });
});
