/**
 * Simulation on a fake clock of what one scheduled invocation per minute
 * yields at a 1 s interval: the loop as it was (the next tick one interval
 * after the previous ends, stopping 5 s early) against the grid loop.
 */
import { describe, expect, it } from 'vitest';
import { runTicksUntil } from '../../lib/ticker/ticker.js';

const INTERVAL = 1_000;
const MINUTE = 60_000;

/** A clock moved only by ticks (each `tickMs(start)` long) and sleeps. */
function fakeClock(tickMs: (startMs: number) => number) {
  let now = 0;
  const starts: number[] = [];
  return {
    starts,
    now: () => now,
    at: (ms: number) => {
      now = Math.max(now, ms);
    },
    sleep: async (ms: number) => {
      now += ms;
    },
    tick: async () => {
      starts.push(now);
      now += tickMs(now);
    },
  };
}

/**
 * The loop before the grid, as `runTicksUntil` and `runScheduledTicks` ran it:
 * a tick at once, the next one interval after each ends, and none that could
 * not start with the 5 s reserve left before the minute's end.
 */
async function legacyMinute(clock: ReturnType<typeof fakeClock>, startMs: number) {
  const reserveMs = 5_000;
  const deadlineMs = startMs + MINUTE;
  clock.at(startMs);
  for (;;) {
    await clock.tick();
    const nextAt = clock.now() + INTERVAL;
    if (nextAt + reserveMs > deadlineMs) return;
    await clock.sleep(nextAt - clock.now());
  }
}

/** The grid loop over the minute starting at `startMs`, invoked `lateMs` after it. */
async function gridMinute(clock: ReturnType<typeof fakeClock>, startMs: number, lateMs = 0) {
  clock.at(startMs + lateMs);
  await runTicksUntil({
    intervalMs: INTERVAL,
    fromMs: startMs,
    untilMs: startMs + MINUTE,
    deadlineMs: Number.MAX_SAFE_INTEGER,
    ...clock,
  });
}

function gaps(starts: readonly number[]): number[] {
  return starts.slice(1).map((start, i) => start - starts[i]!);
}

describe('one scheduled minute of 1 s ticks', () => {
  describe('the loop before the grid', () => {
    it.each([
      [50, 53],
      [200, 46],
      [500, 37],
      [1_000, 28],
    ])(
      'ran %i ms ticks %i times a minute, leaving a 5-6 s gap at the boundary',
      async (tickMs, perMinute) => {
        const clock = fakeClock(() => tickMs);
        await legacyMinute(clock, 0);
        expect(clock.starts).toHaveLength(perMinute);
        await legacyMinute(clock, MINUTE);
        const boundaryGap = clock.starts[perMinute]! - clock.starts[perMinute - 1]!;
        expect(boundaryGap).toBeGreaterThanOrEqual(5_000);
        expect(boundaryGap).toBeLessThanOrEqual(6_000);
      },
    );
  });

  describe('the grid loop', () => {
    it.each([50, 200, 500, 1_000])(
      'runs %i ms ticks 60 times a minute, each on a whole second',
      async (tickMs) => {
        const clock = fakeClock(() => tickMs);
        await gridMinute(clock, 0);
        expect(clock.starts).toHaveLength(60);
        expect(clock.starts).toEqual(Array.from({ length: 60 }, (_, i) => i * INTERVAL));
      },
    );

    it.each([50, 500])(
      'leaves no gap at the minute boundary for %i ms ticks, even invoked 150 ms late',
      async (tickMs) => {
        const clock = fakeClock(() => tickMs);
        await gridMinute(clock, 0);
        await gridMinute(clock, MINUTE, 150);
        await gridMinute(clock, 2 * MINUTE, 150);
        expect(clock.starts).toHaveLength(180);
        // The late invocation's first tick fires at once for its missed slot.
        expect(clock.starts.slice(59, 62)).toEqual([59_000, 60_150, 61_000]);
        expect(Math.max(...gaps(clock.starts))).toBe(INTERVAL + 150);
      },
    );

    it.each([
      [1_500, 40],
      [2_500, 24],
    ])(
      'runs %i ms ticks back to back, delayed, never bursting: %i a minute',
      async (tickMs, perMinute) => {
        const clock = fakeClock(() => tickMs);
        await gridMinute(clock, 0);
        expect(clock.starts).toHaveLength(perMinute);
        // Each tick starts exactly when the previous ends: no idle time, no queue.
        expect(new Set(gaps(clock.starts))).toEqual(new Set([tickMs]));
      },
    );

    it('returns to the grid after one overrunning tick', async () => {
      const clock = fakeClock((start) => (start === 2_000 ? 2_500 : 50));
      await gridMinute(clock, 0);
      expect(clock.starts.slice(0, 6)).toEqual([0, 1_000, 2_000, 4_500, 5_000, 6_000]);
      // Slot 3 s collapsed into the delayed tick that stood for slot 4 s.
      expect(clock.starts).toHaveLength(59);
    });
  });
});
