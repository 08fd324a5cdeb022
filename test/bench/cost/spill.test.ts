import { describe, expect, it } from 'vitest';
import { PRICES_US_EAST_1, type PriceTable } from '../../../bench/cost/billing/prices.js';
import {
  breakEvenBytes,
  itemUsd,
  type SpillInputs,
  sharePast,
  spillUsd,
} from '../../../bench/cost/spill.js';

const MONTH = 730 * 3600;
const base: SpillInputs = {
  itemOverheadBytes: 0,
  pointerItemBytes: 200,
  deletedAtCommit: false,
  itemLifetimeSeconds: 0,
  pitr: false,
  objectLifetimeSeconds: 0,
  monthSeconds: MONTH,
};

/** Prices with only the request lines, so the break-even can be worked by hand. */
const requestsOnly: PriceTable = {
  ...PRICES_US_EAST_1,
  dynamodb: {
    ...PRICES_US_EAST_1.dynamodb,
    readRequestUnit: { ...PRICES_US_EAST_1.dynamodb.readRequestUnit, usd: 0 },
  },
  s3: { ...PRICES_US_EAST_1.s3, get: { ...PRICES_US_EAST_1.s3.get, usd: 0 } },
};

describe('cost bench spill', () => {
  describe('breakEvenBytes', () => {
    it('is where 1 KB write units pass one S3 PUT plus the pointer item, worked by hand', () => {
      // S3 PUT $5/M = 8 write units at $0.625/M; the pointer item is 1 more: 9 units.
      // An item of 9 KB costs 9 units (a tie, spill not cheaper); past 9 KB it costs 10.
      expect(breakEvenBytes(base, requestsOnly, 64 * 1024, 1)).toBe(9 * 1024 + 1);
    });

    it('halves when the item is also deleted (a delete is billed like the write)', () => {
      // Each side pays its delete: 2 × units(item) vs 8 + 2 × 1; past 5 KB the item costs 12 > 10.
      const deleted = { ...base, deletedAtCommit: true };
      expect(breakEvenBytes(deleted, requestsOnly, 64 * 1024, 1)).toBe(5 * 1024 + 1);
    });

    it('falls as the item is stored longer, and is undefined when spilling never pays', () => {
      const stored = { ...base, itemLifetimeSeconds: 30 * 86_400, pitr: true };
      expect(breakEvenBytes(stored, PRICES_US_EAST_1)!).toBeLessThan(
        breakEvenBytes(base, PRICES_US_EAST_1)!,
      );
      const dearS3: PriceTable = {
        ...PRICES_US_EAST_1,
        s3: {
          ...PRICES_US_EAST_1.s3,
          putCopyPostList: { ...PRICES_US_EAST_1.s3.putCopyPostList, usd: 1_000 },
        },
      };
      expect(breakEvenBytes(base, dearS3, 64 * 1024)).toBeUndefined();
    });
  });

  describe('itemUsd and spillUsd', () => {
    it('prices the item by 1 KB write units and the spill by requests', () => {
      expect(itemUsd(19 * 1024, base, requestsOnly)).toBeCloseTo((19 * 0.625) / 1e6, 12);
      expect(spillUsd(19 * 1024, base, requestsOnly)).toBeCloseTo((5 + 0.625) / 1e6, 12);
    });
  });

  describe('sharePast', () => {
    it('counts sizes strictly above the threshold', () => {
      expect(sharePast([1, 2, 3, 4], 2)).toBe(0.5);
      expect(sharePast([1, 2], undefined)).toBe(0);
      expect(sharePast([], 1)).toBe(0);
    });
  });
});
