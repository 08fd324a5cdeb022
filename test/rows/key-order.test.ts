/** `compareKeyOrders` and `sortByKeyId` agree with `compareKeyIds`, the order exports are written in. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareKeyIds } from '../../lib/rows/key-id.js';
import { compareKeyOrders, keyOrder, sortByKeyId } from '../../lib/rows/key-order.js';

const SEED = 20_261_130;

/** Key ids as the WAL stores them: string literals (escapes included) and number texts. */
const keyIdArb = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 8 }).map((key) => JSON.stringify(key)),
  fc.constantFrom('"a"', '"a "', '"a!"', '"a\\""', '"\\u0000"', '""'),
  fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true })).map(String),
  fc.constantFrom('1E2', '100', '-0', '1e+400', '12345678901234567890'),
);

describe('key-order', () => {
  describe('compareKeyOrders', () => {
    it('has the sign of compareKeyIds for any two key ids', () => {
      fc.assert(
        fc.property(keyIdArb, keyIdArb, (a, b) => {
          expect(Math.sign(compareKeyOrders(keyOrder(a), keyOrder(b)))).toBe(
            Math.sign(compareKeyIds(a, b)),
          );
        }),
        { seed: SEED, numRuns: 5000 },
      );
    });
  });

  describe('sortByKeyId', () => {
    it('sorts entries as compareKeyIds does', () => {
      fc.assert(
        fc.property(fc.uniqueArray(keyIdArb, { maxLength: 40 }), (ids) => {
          const sorted = sortByKeyId(ids.map((id, i) => [id, i] as [string, number]));
          expect(sorted.map(([id]) => id)).toEqual([...ids].sort(compareKeyIds));
        }),
        { seed: SEED, numRuns: 500 },
      );
    });
  });
});
