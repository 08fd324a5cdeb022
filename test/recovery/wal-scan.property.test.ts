/**
 * The scan replay and export read WAL objects with (`scanWal`: a chunk at a
 * time, canonical rows read from bytes, decompression ahead) against
 * `decodeWal`, the line-by-line reader: on any valid object they return the
 * same header and rows, and on any damaged one the same first error, with
 * decompressed chunks small enough that lines span them.
 */
import { gunzipSync, gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { scanWal } from '../../lib/recovery/wal-scan.js';
import { decodeWal } from '../../lib/wal/decode.js';
import { encodeWal } from '../../lib/wal/encode.js';
import type { JsonObject, WalHeader, WalObject, WalRow } from '../../lib/wal/format.js';
import { FrameReadAhead } from '../../lib/wal/frame-reader.js';
import { type BatchSpec, chunks, KEY, walObject } from '../wal/helpers.js';

const SEED = 20_261_130;

const rowArb = fc
  .dictionary(
    fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom('Zoë', '🚀', '日本', '"', '\\')),
    fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.constantFrom('}', '{"x":1}', '\\"', 'é🚀')),
    { maxKeys: 4 },
  )
  .map((row) => JSON.parse(JSON.stringify(row)) as JsonObject);
const keyArb = fc.oneof(fc.string({ maxLength: 10 }), fc.constantFrom('user-1', 'Zürich', 'a"b'));
const batchArb: fc.Arbitrary<BatchSpec> = fc.oneof(
  { weight: 1, arbitrary: fc.constant('void' as const) },
  {
    weight: 5,
    arbitrary: fc.array(
      fc.oneof(
        fc.record({ key: keyArb, row: rowArb }),
        fc.record({ row: rowArb }),
        fc.record({ key: keyArb, delete: fc.constant(true as const) }),
      ),
      { minLength: 1, maxLength: 6 },
    ),
  },
);
const objectArb = fc
  .array(batchArb, { minLength: 1, maxLength: 8 })
  .map((batches) => walObject(batches));

/** What scanWal reads, through a read-ahead that decompresses `chunkSize` bytes at a time. */
async function scanned(bytes: Uint8Array, chunkSize: number): Promise<WalObject> {
  let header: WalHeader | undefined;
  const rows: WalRow[] = [];
  const readAhead = new FrameReadAhead(KEY, chunks(bytes, 7), chunkSize);
  await scanWal('s1', 7, readAhead, {
    header: (h) => {
      header = h;
      return true;
    },
    row: (row) => void rows.push(row),
  });
  return { header: header!, rows };
}

/** The value `fn` returns, or the error it throws. */
async function outcome<T>(fn: () => T | Promise<T>): Promise<T | Error> {
  try {
    return await fn();
  } catch (error) {
    return error as Error;
  }
}

describe(scanWal, () => {
  it('reads any valid object as decodeWal does, whatever the chunk size', async () => {
    await fc.assert(
      fc.asyncProperty(objectArb, fc.integer({ min: 64, max: 512 }), async (object, size) => {
        const bytes = encodeWal(object);
        expect(await scanned(bytes, size)).toStrictEqual(decodeWal(KEY, bytes));
      }),
      { seed: SEED, numRuns: 300 },
    );
  });

  it('fails where decodeWal fails, with the same error, when bytes of the text change', async () => {
    const damage = fc.record({
      object: objectArb,
      size: fc.integer({ min: 64, max: 256 }),
      edits: fc.array(fc.record({ at: fc.nat(), byte: fc.integer({ min: 0, max: 255 }) }), {
        minLength: 1,
        maxLength: 3,
      }),
    });
    await fc.assert(
      fc.asyncProperty(damage, async ({ object, size, edits }) => {
        const text = gunzipSync(encodeWal(object));
        for (const { at, byte } of edits) text[at % text.length] = byte;
        const bytes = gzipSync(text);
        const expected = await outcome(() => decodeWal(KEY, bytes));
        const actual = await outcome(() => scanned(bytes, size));
        if (expected instanceof Error) {
          expect(actual).toBeInstanceOf(expected.constructor);
          expect((actual as Error).message).toBe(expected.message);
        } else {
          expect(actual).toStrictEqual(expected);
        }
      }),
      { seed: SEED, numRuns: 1500 },
    );
  });
});
