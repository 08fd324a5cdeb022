import { describe, expect, it } from 'vitest';
import { FINAL_LINE_PATTERN, finalLine } from '../../../bench/cost/final-line.js';
import { STANDARD, STANDARD_LABEL } from '../../../bench/cost/workload.js';
import { InvalidInputError } from '../../../lib/errors.js';

describe('cost bench final line', () => {
  describe('finalLine', () => {
    it('prints exactly the line the issue asks for', () => {
      expect(finalLine(0.1234)).toBe(
        'cost: 0.123 USD/GB (standard: 1 KB rows, 100 rows/put, 100 puts/s over 10 shards, 1 s ticks, on-demand)',
      );
    });

    it('rounds X to three decimals and matches the published pattern', () => {
      const line = finalLine(0.30949);
      expect(line).toMatch(FINAL_LINE_PATTERN);
      expect(FINAL_LINE_PATTERN.exec(line)?.[1]).toBe('0.309');
      expect(finalLine(1.5)).toMatch(/^cost: 1\.500 USD\/GB /);
    });

    it('refuses a cost that is not a positive number', () => {
      for (const bad of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
        expect(() => finalLine(bad)).toThrow(InvalidInputError);
      }
    });
  });

  describe('STANDARD_LABEL', () => {
    it('describes the STANDARD workload it labels', () => {
      expect(STANDARD).toMatchObject({
        rowBytes: 1024,
        rowsPerPut: 100,
        putsPerSecond: 100,
        shards: 10,
        intervalMs: 1_000,
        transport: 'http',
        idempotent: false,
      });
      expect(STANDARD_LABEL).toBe(
        'standard: 1 KB rows, 100 rows/put, 100 puts/s over 10 shards, 1 s ticks, on-demand',
      );
    });
  });
});
