import { describe, expect, it } from 'vitest';
import {
  PRICES_US_EAST_1,
  PriceBasis,
  type PriceRow,
  priceOf,
} from '../../../../bench/cost/billing/prices.js';

function rows(): [string, PriceRow][] {
  const out: [string, PriceRow][] = [];
  for (const [service, group] of Object.entries(PRICES_US_EAST_1)) {
    if (typeof group !== 'object') continue;
    for (const [name, row] of Object.entries(group as Record<string, PriceRow>)) {
      out.push([`${service}.${name}`, row]);
    }
  }
  return out;
}

describe('prices', () => {
  describe('PRICES_US_EAST_1', () => {
    it('names its region and the date its sources were read', () => {
      expect(PRICES_US_EAST_1.region).toBe('us-east-1');
      expect(PRICES_US_EAST_1.readOn).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    });

    it('gives every row a price, a unit, an https source and a basis', () => {
      expect(rows().length).toBeGreaterThanOrEqual(23);
      for (const [name, row] of rows()) {
        expect(row.usd, name).toBeGreaterThanOrEqual(0);
        expect(row.per, name).toBeGreaterThan(0);
        expect(row.unit.length, name).toBeGreaterThan(0);
        expect(row.source, name).toMatch(/^https:\/\//);
        expect(Object.values(PriceBasis), name).toContain(row.basis);
        if (row.sourceDate !== undefined)
          expect(row.sourceDate, name).toMatch(/^\d{4}-\d{2}(-\d{2})?$/);
      }
    });

    it('explains every figure no source confirmed', () => {
      const unconfirmed = rows().filter(([, row]) => row.basis === PriceBasis.unconfirmed);
      expect(unconfirmed.length).toBeGreaterThan(0);
      for (const [name, row] of unconfirmed) expect(row.note, name).toBeTruthy();
    });

    it('prices DynamoDB writes above reads, as on-demand request units are priced', () => {
      const { writeRequestUnit, readRequestUnit } = PRICES_US_EAST_1.dynamodb;
      expect(priceOf(writeRequestUnit, 1)).toBeGreaterThan(priceOf(readRequestUnit, 1));
    });
  });

  describe('priceOf', () => {
    it('divides by the quantity the price is quoted per', () => {
      expect(priceOf({ ...PRICES_US_EAST_1.s3.putCopyPostList, usd: 0.005, per: 1000 }, 2000)).toBe(
        0.01,
      );
      expect(priceOf({ ...PRICES_US_EAST_1.s3.delete }, 1e9)).toBe(0);
    });
  });
});
