import { gunzipSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_ROW_BYTES,
  gzipRatio,
  putBodyText,
  ROW_SIZE_SPREAD,
  RowVariant,
  rowGenerator,
} from '../../../bench/cost/rows.js';
import { InvalidInputError } from '../../../lib/errors.js';

const bytesOf = (row: unknown) => Buffer.byteLength(JSON.stringify(row));

describe('cost bench rows', () => {
  describe('rowGenerator', () => {
    it('gives the same rows for the same seed and variant', () => {
      const a = rowGenerator({ variant: RowVariant.event, seed: 7 }).take(50);
      const b = rowGenerator({ variant: RowVariant.event, seed: 7 }).take(50);
      expect(JSON.stringify(a)).toBe(JSON.stringify(b));
    });

    it('gives other rows for another seed', () => {
      const a = rowGenerator({ variant: RowVariant.event, seed: 7 }).take(5);
      const b = rowGenerator({ variant: RowVariant.event, seed: 8 }).take(5);
      expect(JSON.stringify(a)).not.toBe(JSON.stringify(b));
    });

    it('sizes rows around the target, each within the spread', () => {
      for (const variant of Object.values(RowVariant)) {
        const rows = rowGenerator({ variant, seed: 3 }).take(2_000);
        const sizes = rows.map(bytesOf);
        const mean = sizes.reduce((s, n) => s + n, 0) / sizes.length;
        expect(Math.abs(mean - DEFAULT_ROW_BYTES) / DEFAULT_ROW_BYTES, variant).toBeLessThan(0.02);
        const spread = Math.round(DEFAULT_ROW_BYTES * ROW_SIZE_SPREAD);
        expect(Math.min(...sizes), variant).toBeGreaterThanOrEqual(DEFAULT_ROW_BYTES - spread);
        expect(Math.max(...sizes), variant).toBeLessThanOrEqual(DEFAULT_ROW_BYTES + spread);
      }
    });

    it('honours another target size', () => {
      const rows = rowGenerator({ variant: RowVariant.event, seed: 3, targetBytes: 2_048 }).take(
        500,
      );
      const mean = rows.map(bytesOf).reduce((s, n) => s + n, 0) / rows.length;
      expect(Math.abs(mean - 2_048) / 2_048).toBeLessThan(0.02);
    });

    it('repeats a small set of hosts, skewed, and advances ISO timestamps', () => {
      const rows = rowGenerator({ variant: RowVariant.event, seed: 11 }).take(2_000);
      const hosts = new Map<string, number>();
      for (const row of rows) hosts.set(String(row.host), (hosts.get(String(row.host)) ?? 0) + 1);
      expect(hosts.size).toBeLessThanOrEqual(40);
      const counts = [...hosts.values()].sort((a, b) => b - a);
      expect(counts[0]!).toBeGreaterThan(5 * counts.at(-1)!);
      const times = rows.map((row) => Date.parse(String(row.ts)));
      expect(times.every((t, i) => i === 0 || t > times[i - 1]!)).toBe(true);
      expect(String(rows[0]!.ts)).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    });

    it('mixes value types in event rows', () => {
      const [row] = rowGenerator({ variant: RowVariant.event, seed: 1 }).take(1);
      const types = new Set(
        Object.values(row!).map((v) =>
          v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v,
        ),
      );
      for (const t of ['string', 'number', 'boolean', 'array', 'object'])
        expect(types).toContain(t);
    });

    it('refuses a target below 400 bytes, naming the field', () => {
      expect(() => rowGenerator({ variant: RowVariant.event, seed: 1, targetBytes: 100 })).toThrow(
        InvalidInputError,
      );
      expect(() => rowGenerator({ variant: RowVariant.event, seed: 1, targetBytes: 100 })).toThrow(
        /targetBytes/,
      );
    });
  });

  describe('gzipRatio', () => {
    it('is raw over gzip bytes, and event rows compress far better than random ones', () => {
      const event = putBodyText(rowGenerator({ variant: RowVariant.event, seed: 5 }).take(100));
      const random = putBodyText(rowGenerator({ variant: RowVariant.random, seed: 5 }).take(100));
      const expected = Buffer.byteLength(event) / gzipSync(Buffer.from(event), { level: 6 }).length;
      expect(gzipRatio(event, 6)).toBeCloseTo(expected, 10);
      expect(gzipRatio(event)).toBeGreaterThan(3);
      expect(gzipRatio(random)).toBeLessThan(2);
    });
  });

  describe('putBodyText', () => {
    it('is the JSON put body {"rows": [...]} holding the rows as given', () => {
      const rows = rowGenerator({ variant: RowVariant.random, seed: 2 }).take(3);
      const body = JSON.parse(gunzipSync(gzipSync(putBodyText(rows))).toString()) as {
        rows: unknown[];
      };
      expect(body.rows).toEqual(rows);
    });
  });
});
