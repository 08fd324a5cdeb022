import { describe, expect, it } from 'vitest';
import { gridCeil, gridFloor, nextGridTick, nextTickAt, slotOf } from '../../lib/ticker/grid.js';

describe('grid', () => {
  describe('nextGridTick', () => {
    it.each([
      [0, 1_000, 1_000],
      [999, 1_000, 1_000],
      [1_000, 1_000, 2_000],
      [1_001, 250, 1_250],
      [1_773_000_123_456, 100, 1_773_000_123_500],
    ])('puts the next tick after %i at interval %i on %i', (now, interval, next) => {
      expect(nextGridTick(now, interval)).toBe(next);
    });

    it('predicts the same instant from any time within one interval', () => {
      const predictions = new Set([5_001, 5_400, 5_999].map((now) => nextGridTick(now, 1_000)));
      expect(predictions).toEqual(new Set([6_000]));
    });
  });

  describe('gridCeil and gridFloor', () => {
    it('keep an instant already on the grid and round others', () => {
      expect([gridCeil(2_000, 1_000), gridCeil(2_001, 1_000)]).toEqual([2_000, 3_000]);
      expect([gridFloor(2_000, 1_000), gridFloor(2_999, 1_000)]).toEqual([2_000, 2_000]);
    });
  });

  describe('slotOf', () => {
    it('keeps the due slot for an on-time or slightly early start', () => {
      expect(slotOf(3_000, 3_004, 1_000)).toBe(3_000);
      expect(slotOf(3_000, 2_999, 1_000)).toBe(3_000);
    });

    it('stands a late start for the latest slot it passed', () => {
      expect(slotOf(3_000, 5_500, 1_000)).toBe(5_000);
    });
  });

  describe('nextTickAt', () => {
    it('fires on the next slot when the tick ended within its interval', () => {
      expect(nextTickAt(3_000, 3_400, 1_000)).toEqual({ slotMs: 4_000, atMs: 4_000 });
    });

    it('fires as soon as an overrunning tick ends', () => {
      expect(nextTickAt(3_000, 5_500, 1_000)).toEqual({ slotMs: 4_000, atMs: 5_500 });
    });
  });
});
