import { describe, expect, it } from 'vitest';
import {
  expectedActiveShards,
  fitTicks,
  type TickSample,
  tickCost,
} from '../../../bench/cost/tick-model.js';
import { InvalidInputError } from '../../../lib/errors.js';

/** Ticks generated from known coefficients, so the fit has a right answer. */
function synthetic(points: [number, number][]): TickSample[] {
  return points.map(([activeShards, batches]) => ({
    activeShards,
    batches,
    requests: 1 + 6 * activeShards,
    readUnits: 0.5 + 1.5 * activeShards + 4.75 * batches,
    writeUnits: 3 * activeShards + 19.25 * batches,
    indexWriteUnits: activeShards,
    s3Puts: activeShards,
    s3Gets: batches,
  }));
}

describe('cost bench tick model', () => {
  describe('fitTicks', () => {
    it('recovers the coefficients the ticks were made from', () => {
      const model = fitTicks(
        synthetic([
          [0, 0],
          [1, 10],
          [6, 10],
          [10, 100],
          [10, 95],
          [9, 10],
        ]),
      );
      expect(model.base.readUnits).toBeCloseTo(0.5, 9);
      expect(model.base.requests).toBeCloseTo(1, 9);
      expect(model.perActiveShard.writeUnits).toBeCloseTo(3, 9);
      expect(model.perActiveShard.s3Puts).toBeCloseTo(1, 9);
      expect(model.perBatch.writeUnits).toBeCloseTo(19.25, 9);
      expect(model.perBatch.readUnits).toBeCloseTo(4.75, 9);
      expect(model.maxWriteResidual).toBeLessThan(1e-6);
      expect(model.samples).toBe(6);
    });

    it('reports how far the worst tick is from the fitted line', () => {
      const samples = synthetic([
        [0, 0],
        [1, 10],
        [6, 10],
        [10, 100],
      ]);
      samples[3]!.writeUnits += 40;
      expect(fitTicks(samples).maxWriteResidual).toBeGreaterThan(1);
    });

    it('refuses ticks at fewer than three distinct points', () => {
      expect(() =>
        fitTicks(
          synthetic([
            [1, 10],
            [1, 10],
            [2, 20],
          ]),
        ),
      ).toThrow(InvalidInputError);
    });

    it('refuses points on one line, which do not separate shards from batches', () => {
      expect(() =>
        fitTicks(
          synthetic([
            [1, 10],
            [2, 20],
            [3, 30],
          ]),
        ),
      ).toThrow(/collinear/);
    });
  });

  describe('tickCost', () => {
    it('adds base, per-shard and per-batch parts, never below zero', () => {
      const model = fitTicks(
        synthetic([
          [0, 0],
          [1, 10],
          [6, 10],
          [10, 100],
        ]),
      );
      const cost = tickCost(model, 100, 1_000);
      expect(cost.writeUnits).toBeCloseTo(3 * 100 + 19.25 * 1_000, 6);
      expect(cost.s3Puts).toBeCloseTo(100, 6);
      const negative = { ...model, base: { ...model.base, readUnits: -10 } };
      expect(tickCost(negative, 0, 0).readUnits).toBe(0);
    });
  });

  describe('expectedActiveShards', () => {
    it('is every shard for one shard, none for no puts', () => {
      expect(expectedActiveShards(1, 10)).toBe(1);
      expect(expectedActiveShards(100, 0)).toBe(0);
    });

    it('is shards × (1 − (1 − 1/shards)^puts) for uniform picks', () => {
      expect(expectedActiveShards(10, 10)).toBeCloseTo(10 * (1 - 0.9 ** 10), 12);
      expect(expectedActiveShards(100, 1_000)).toBeCloseTo(100 * (1 - 0.99 ** 1_000), 12);
      expect(expectedActiveShards(100, 10)).toBeCloseTo(9.562, 3);
    });

    it('refuses fewer than one shard or negative puts', () => {
      expect(() => expectedActiveShards(0, 10)).toThrow(InvalidInputError);
      expect(() => expectedActiveShards(10, -1)).toThrow(InvalidInputError);
    });
  });
});
