import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SETTINGS } from '../../lib/config.js';
import { ConfigError } from '../../lib/errors.js';
import { FlushTicker, runTicksUntil } from '../../lib/ticker/ticker.js';

const INTERVAL = 1_000;

/** A ticker whose work is recorded as `what@time`; tick durations come from `tickMs`. */
function recordingTicker(
  options: {
    tickMs?: (tickIndex: number) => number;
    flushMs?: number;
    failTick?: (tickIndex: number) => boolean;
    onError?: (error: unknown) => void;
  } = {},
) {
  const log: string[] = [];
  const tickStarts: number[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const work = async (label: string, ms: number, fail = false) => {
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    log.push(`${label}@${Date.now()}`);
    try {
      if (ms > 0) await new Promise((resolve) => setTimeout(resolve, ms));
      if (fail) throw new Error(`${label} failed`);
    } finally {
      inFlight--;
    }
  };
  const ticker = new FlushTicker({
    intervalMs: INTERVAL,
    tick: async () => {
      const index = tickStarts.length;
      tickStarts.push(Date.now());
      await work('tick', options.tickMs?.(index) ?? 0, options.failTick?.(index) ?? false);
    },
    flushShards: (shards) => work(`flush[${shards.join(',')}]`, options.flushMs ?? 0),
    onError: options.onError ?? (() => undefined),
  });
  return { ticker, log, tickStarts, maxInFlight: () => maxInFlight };
}

/** Stops `ticker`, letting fake time run until the running and final work are done. */
async function stopNow(ticker: FlushTicker): Promise<void> {
  const stopping = ticker.stop();
  await vi.runAllTimersAsync();
  await stopping;
}

/** Resolves `promise`, running the timers due now (requests are served at once). */
async function settle<T>(promise: Promise<T>): Promise<T> {
  await vi.advanceTimersByTimeAsync(0);
  return promise;
}

describe('FlushTicker', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: 0 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  describe('constructor', () => {
    it.each([0, -1, 1.5])('rejects interval %j with a ConfigError naming the setting', (ms) => {
      const make = () =>
        new FlushTicker({ intervalMs: ms, tick: async () => {}, flushShards: async () => {} });
      expect(make).toThrow(ConfigError);
      expect(make).toThrow(`${SETTINGS.flushIntervalMs.env}=${ms}`);
    });
  });

  describe('start (T1)', () => {
    it('fires the first tick at the first grid instant after start, not before', async () => {
      const { ticker, tickStarts } = recordingTicker();
      ticker.start();
      await vi.advanceTimersByTimeAsync(INTERVAL - 1);
      expect(tickStarts).toEqual([]);
      await vi.advanceTimersByTimeAsync(1);
      expect(tickStarts).toEqual([INTERVAL]);
      await vi.advanceTimersByTimeAsync(3 * INTERVAL);
      expect(tickStarts).toEqual([1_000, 2_000, 3_000, 4_000]);
      await stopNow(ticker);
    });

    it('ticks on multiples of the interval since the epoch whenever it was started', async () => {
      vi.setSystemTime(1_234);
      const { ticker, tickStarts } = recordingTicker({ tickMs: () => 37 });
      ticker.start();
      await vi.advanceTimersByTimeAsync(3 * INTERVAL);
      expect(tickStarts).toEqual([2_000, 3_000, 4_000]);
      await stopNow(ticker);
    });
  });

  describe('lead (T6)', () => {
    /** A ticker leading its slots by `leadMs`, recording `start→slot` of each tick. */
    function leadingTicker(leadMs: number, tickMs: (index: number) => number = () => 0) {
      const ticks: string[] = [];
      const ticker = new FlushTicker({
        intervalMs: INTERVAL,
        leadMs: () => leadMs,
        tick: async (slotMs) => {
          const index = ticks.push(`${Date.now()}→${slotMs}`) - 1;
          const ms = tickMs(index);
          if (ms > 0) await new Promise((resolve) => setTimeout(resolve, ms));
        },
        flushShards: async () => undefined,
      });
      return { ticker, ticks };
    }

    it('starts each tick its lead before its slot and hands it the slot', async () => {
      const { ticker, ticks } = leadingTicker(30);
      ticker.start();
      await vi.advanceTimersByTimeAsync(3 * INTERVAL);
      expect(ticks).toEqual(['970→1000', '1970→2000', '2970→3000']);
      await stopNow(ticker);
    });

    it('after an overrun, starts as soon as the tick ends, for the latest slot it passed (T2)', async () => {
      const { ticker, ticks } = leadingTicker(30, (i) => (i === 0 ? 1_500 : 0));
      ticker.start();
      await vi.advanceTimersByTimeAsync(4 * INTERVAL);
      // Tick 1 runs 970-2470: the next starts at once for slot 2000, then the grid resumes.
      expect(ticks).toEqual(['970→1000', '2470→2000', '2970→3000', '3970→4000']);
      await stopNow(ticker);
    });
  });

  describe('delay, not burst (T2)', () => {
    it('fires once as soon as a 3.5-interval tick ends, then returns to the grid', async () => {
      const { ticker, tickStarts } = recordingTicker({
        tickMs: (i) => (i === 0 ? 3.5 * INTERVAL : 0),
      });
      ticker.start();
      await vi.advanceTimersByTimeAsync(8 * INTERVAL);
      // Tick 1 runs 1000-4500: slots 2000 and 3000 collapse into the delayed
      // tick at 4500 (standing for slot 4000); the grid resumes at 5000.
      expect(tickStarts).toEqual([1_000, 4_500, 5_000, 6_000, 7_000, 8_000]);
      await stopNow(ticker);
    });

    it('runs slow ticks back to back, each starting when the previous ends, never two at once', async () => {
      const { ticker, tickStarts, maxInFlight } = recordingTicker({
        tickMs: () => 3.5 * INTERVAL,
      });
      ticker.start();
      await vi.advanceTimersByTimeAsync(20 * INTERVAL);
      expect(tickStarts).toEqual([1_000, 4_500, 8_000, 11_500, 15_000, 18_500]);
      expect(maxInFlight()).toBe(1);
      await stopNow(ticker);
    });
  });

  describe('requests before ticks (T3)', () => {
    it('serves a request queued while a tick is due before that tick', async () => {
      const { ticker, log } = recordingTicker();
      ticker.start();
      // The event loop stalled past the tick's due time; a request arrived meanwhile.
      vi.setSystemTime(1_500);
      const served = ticker.requestFlush('a');
      await vi.advanceTimersByTimeAsync(0);
      await served;
      expect(log).toEqual(['flush[a]@1500', 'tick@1500']);
      await stopNow(ticker);
    });

    it('wakes an idle loop at once for a request, leaving the tick schedule alone', async () => {
      const { ticker, log } = recordingTicker();
      ticker.start();
      await vi.advanceTimersByTimeAsync(100);
      const served = ticker.requestFlush('a');
      await vi.advanceTimersByTimeAsync(0);
      await served;
      expect(log).toEqual(['flush[a]@100']);
      await vi.advanceTimersByTimeAsync(INTERVAL);
      expect(log).toEqual(['flush[a]@100', 'tick@1000']);
      await stopNow(ticker);
    });

    it('serves requests queued during a tick right after it, before the next tick', async () => {
      const { ticker, log } = recordingTicker({ tickMs: () => 500 });
      ticker.start();
      await vi.advanceTimersByTimeAsync(1_200);
      const served = Promise.all([ticker.requestFlush('a'), ticker.requestFlush('b')]);
      await vi.advanceTimersByTimeAsync(300);
      await served;
      await vi.advanceTimersByTimeAsync(1_000);
      // The next tick keeps its grid slot: the request took time from the gap, not the grid.
      expect(log).toEqual(['tick@1000', 'flush[a,b]@1500', 'tick@2000']);
      await stopNow(ticker);
    });

    it('coalesces repeated requests for one shard and resolves every requester', async () => {
      const { ticker, log } = recordingTicker();
      ticker.start();
      await settle(Promise.all([ticker.requestFlush('a'), ticker.requestFlush('a')]));
      expect(log).toEqual(['flush[a]@0']);
      await stopNow(ticker);
    });

    it('rejects only the requesters of a failed flush, and keeps ticking', async () => {
      let fail = true;
      const ticker = new FlushTicker({
        intervalMs: INTERVAL,
        tick: async () => {},
        flushShards: async () => {
          if (fail) throw new Error('store down');
        },
        onError: () => undefined,
      });
      ticker.start();
      const failed = ticker.requestFlush('a').catch((error: unknown) => error);
      expect(await settle(failed)).toEqual(new Error('store down'));
      fail = false;
      await expect(settle(ticker.requestFlush('a'))).resolves.toBeUndefined();
      await stopNow(ticker);
    });
  });

  describe('one at a time (T4)', () => {
    it('never runs a tick and a request batch together under a steady request stream', async () => {
      const { ticker, log, maxInFlight } = recordingTicker({ tickMs: () => 700, flushMs: 150 });
      ticker.start();
      const served: Promise<void>[] = [];
      for (let t = 0; t < 10_000; t += 300) {
        served.push(ticker.requestFlush(`s${t % 900}`));
        await vi.advanceTimersByTimeAsync(300);
      }
      await Promise.all(served);
      await stopNow(ticker);
      expect(maxInFlight()).toBe(1);
      expect(log.filter((line) => line.startsWith('tick')).length).toBeGreaterThan(3);
    });
  });

  describe('stop (T5)', () => {
    it('waits for the running tick, then runs queued requests and a final tick, leaving no timer', async () => {
      const { ticker, log } = recordingTicker({ tickMs: () => 500 });
      ticker.start();
      await vi.advanceTimersByTimeAsync(1_200);
      const request = ticker.requestFlush('x');
      let stopped = false;
      const stopping = ticker.stop().then(() => {
        stopped = true;
      });
      await vi.advanceTimersByTimeAsync(299);
      expect(stopped).toBe(false);
      await vi.advanceTimersByTimeAsync(1_000);
      await stopping;
      await request;
      expect(log).toEqual(['tick@1000', 'flush[x]@1500', 'tick@1500']);
      expect(vi.getTimerCount()).toBe(0);
      await vi.advanceTimersByTimeAsync(5 * INTERVAL);
      expect(log).toHaveLength(3);
    });

    it('serves requests queued during the final tick', async () => {
      let ticker!: FlushTicker;
      const log: string[] = [];
      let late: Promise<void> | undefined;
      ticker = new FlushTicker({
        intervalMs: INTERVAL,
        tick: async () => {
          log.push('tick');
          late ??= ticker.requestFlush('late');
        },
        flushShards: async (shards) => void log.push(`flush[${shards}]`),
      });
      ticker.start();
      await stopNow(ticker);
      await late;
      expect(log).toEqual(['tick', 'flush[late]']);
      expect(vi.getTimerCount()).toBe(0);
    });

    it('still runs the final tick and requests when the running tick fails', async () => {
      const errors: unknown[] = [];
      const { ticker, log } = recordingTicker({
        tickMs: () => 500,
        failTick: (i) => i === 0,
        onError: (error) => errors.push(error),
      });
      ticker.start();
      await vi.advanceTimersByTimeAsync(1_200);
      const request = ticker.requestFlush('x');
      const stopping = ticker.stop();
      await vi.advanceTimersByTimeAsync(1_000);
      await expect(stopping).resolves.toBeUndefined();
      await request;
      expect(log).toEqual(['tick@1000', 'flush[x]@1500', 'tick@1500']);
      expect(errors).toHaveLength(1);
      expect(vi.getTimerCount()).toBe(0);
    });
  });

  describe('errors', () => {
    it('logs a failed tick by default and keeps ticking (no unhandled rejection)', async () => {
      const starts: number[] = [];
      const ticker = new FlushTicker({
        intervalMs: INTERVAL,
        tick: async () => {
          starts.push(Date.now());
          if (starts.length === 1) throw new Error('dynamodb down');
        },
        flushShards: async () => {},
      });
      ticker.start();
      await vi.advanceTimersByTimeAsync(2 * INTERVAL);
      expect(starts).toEqual([1_000, 2_000]);
      await stopNow(ticker);
    });

    it('surfaces a failed final tick from stop(), after serving queued requests', async () => {
      const served: string[][] = [];
      const ticker = new FlushTicker({
        intervalMs: INTERVAL,
        tick: async () => {
          throw new Error('final tick failed');
        },
        flushShards: async (shards) => void served.push(shards),
      });
      ticker.start();
      const stopping = ticker.stop();
      const request = ticker.requestFlush('x');
      await expect(stopping).rejects.toThrow('final tick failed');
      await request;
      expect(served).toEqual([['x']]);
      expect(vi.getTimerCount()).toBe(0);
    });

    it('keeps ticking after a tick throws, reporting the error', async () => {
      const errors: unknown[] = [];
      const { ticker, tickStarts } = recordingTicker({
        failTick: (i) => i === 0,
        onError: (error) => errors.push(error),
      });
      ticker.start();
      await vi.advanceTimersByTimeAsync(3 * INTERVAL);
      expect(tickStarts).toEqual([1_000, 2_000, 3_000]);
      expect(errors).toEqual([new Error('tick failed')]);
      await stopNow(ticker);
    });
  });
});

describe('FlushTicker wall clock steps (T7)', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: 0 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  /** A ticker on a wall clock that is fake time plus `offset.ms` (steps are set by the test). */
  function steppingTicker(leadMs = 0) {
    const offset = { ms: 0 };
    const slots: number[] = [];
    const firedAt: number[] = [];
    const ticker = new FlushTicker({
      intervalMs: INTERVAL,
      now: () => Date.now() + offset.ms,
      leadMs: () => leadMs,
      tick: async (slotMs) => {
        slots.push(slotMs);
        firedAt.push(Date.now());
      },
      flushShards: async () => {},
    });
    return { ticker, offset, slots, firedAt };
  }

  it('ticks within one interval when the wall clock steps back 30 s', async () => {
    const { ticker, offset, slots, firedAt } = steppingTicker();
    ticker.start();
    await vi.advanceTimersByTimeAsync(1_500);
    expect(slots).toEqual([1_000]);
    offset.ms = -30_000; // the wall clock now reads -28_500
    await vi.advanceTimersByTimeAsync(INTERVAL);
    expect(firedAt).toEqual([1_000, 2_000]);
    // The slot is on the grid the clock now shows, and the grid goes on from there.
    expect(slots).toEqual([1_000, -28_000]);
    await vi.advanceTimersByTimeAsync(2 * INTERVAL);
    expect(slots).toEqual([1_000, -28_000, -27_000, -26_000]);
    await stopNow(ticker);
  });

  it('ticks within one interval when the clock steps back while a tick leads its slot', async () => {
    const { ticker, offset, firedAt } = steppingTicker(100);
    ticker.start();
    await vi.advanceTimersByTimeAsync(950);
    expect(firedAt).toEqual([900]);
    offset.ms = -30_000;
    await vi.advanceTimersByTimeAsync(INTERVAL);
    expect(firedAt).toEqual([900, 1_900]);
    await stopNow(ticker);
  });

  it('fires one tick for the latest slot, not a burst, when the clock steps forward 30 s', async () => {
    const { ticker, offset, slots, firedAt } = steppingTicker();
    ticker.start();
    await vi.advanceTimersByTimeAsync(1_500);
    offset.ms = 30_000; // the wall clock now reads 31_500; the next timer fires at 32_000 on it
    await vi.advanceTimersByTimeAsync(2 * INTERVAL);
    expect(firedAt).toEqual([1_000, 2_000, 3_000]);
    expect(slots).toEqual([1_000, 32_000, 33_000]);
    await stopNow(ticker);
  });
});

describe('runTicksUntil', () => {
  /** A fake clock: each tick takes `tickMs(i)`; sleep just moves the clock. */
  function fakeLoop(tickMs: (index: number) => number, startAt = 0) {
    let now = startAt;
    const starts: number[] = [];
    const ends: number[] = [];
    const sleeps: number[] = [];
    return {
      starts,
      ends,
      sleeps,
      now: () => now,
      sleep: async (ms: number) => {
        sleeps.push(ms);
        now += ms;
      },
      tick: async () => {
        now += tickMs(starts.push(now) - 1);
        ends.push(now);
      },
    };
  }

  it('ticks on every grid slot of its window, sleeping only until each slot', async () => {
    const loop = fakeLoop(() => 1_000);
    const ticks = await runTicksUntil({
      intervalMs: 10_000,
      fromMs: 0,
      untilMs: 60_000,
      deadlineMs: Number.MAX_SAFE_INTEGER,
      ...loop,
    });
    expect(ticks).toBe(6);
    expect(loop.starts).toEqual([0, 10_000, 20_000, 30_000, 40_000, 50_000]);
    expect(loop.sleeps).toEqual([9_000, 9_000, 9_000, 9_000, 9_000]);
  });

  it('starts each tick its lead before its slot, standing for the slot (T6)', async () => {
    const loop = fakeLoop(() => 1_000);
    const slots: number[] = [];
    const ticks = await runTicksUntil({
      intervalMs: 10_000,
      fromMs: 0,
      untilMs: 40_000,
      deadlineMs: Number.MAX_SAFE_INTEGER,
      ...loop,
      tick: async (slotMs) => {
        slots.push(slotMs);
        await loop.tick();
      },
      leadMs: () => 30,
    });
    expect(ticks).toBe(4);
    // The first slot is the window's start: the loop begins there, with no time to lead it.
    expect(loop.starts).toEqual([0, 9_970, 19_970, 29_970]);
    expect(slots).toEqual([0, 10_000, 20_000, 30_000]);
  });

  it('starts no tick at or after the deadline', async () => {
    const loop = fakeLoop(() => 0);
    const ticks = await runTicksUntil({
      intervalMs: 10_000,
      fromMs: 0,
      untilMs: 60_000,
      deadlineMs: 40_000,
      ...loop,
    });
    expect(loop.starts).toEqual([0, 10_000, 20_000, 30_000]);
    expect(ticks).toBe(4);
  });

  it('ticks at once for the latest slot it missed when it starts late, then on the grid', async () => {
    const loop = fakeLoop(() => 100, 23_456);
    await runTicksUntil({
      intervalMs: 10_000,
      fromMs: 0,
      untilMs: 60_000,
      deadlineMs: Number.MAX_SAFE_INTEGER,
      ...loop,
    });
    expect(loop.starts).toEqual([23_456, 30_000, 40_000, 50_000]);
  });

  it('runs nothing when it starts after its window', async () => {
    const loop = fakeLoop(() => 100, 60_000);
    const ticks = await runTicksUntil({
      intervalMs: 10_000,
      fromMs: 0,
      untilMs: 60_000,
      deadlineMs: Number.MAX_SAFE_INTEGER,
      ...loop,
    });
    expect(ticks).toBe(0);
    expect(loop.starts).toEqual([]);
  });

  it('starts its first tick on the first slot of a window that does not start on the grid', async () => {
    const loop = fakeLoop(() => 0, 1_500);
    await runTicksUntil({
      intervalMs: 7_000,
      fromMs: 1_500,
      untilMs: 61_500,
      deadlineMs: Number.MAX_SAFE_INTEGER,
      ...loop,
    });
    expect(loop.starts).toEqual([7_000, 14_000, 21_000, 28_000, 35_000, 42_000, 49_000, 56_000]);
  });

  it('delays rather than bursts after a tick that outlasts the interval, then returns to the grid', async () => {
    const durations = [25_000, 0, 0, 0];
    const loop = fakeLoop((i) => durations[i] ?? 0);
    await runTicksUntil({
      intervalMs: 10_000,
      fromMs: 0,
      untilMs: 60_000,
      deadlineMs: Number.MAX_SAFE_INTEGER,
      ...loop,
    });
    // Slots 10 s and 20 s collapse into the tick at 25 s (slot 20 s); the grid resumes at 30 s.
    expect(loop.starts).toEqual([0, 25_000, 30_000, 40_000, 50_000]);
  });

  it('starts no tick after its window ends, even for a slot inside it that a long tick delayed', async () => {
    const loop = fakeLoop((i) => (i === 4 ? 15_000 : 0));
    await runTicksUntil({
      intervalMs: 10_000,
      fromMs: 0,
      untilMs: 60_000,
      deadlineMs: Number.MAX_SAFE_INTEGER,
      ...loop,
    });
    // The tick at 40 s runs to 55 s: slot 50 s fires at 55 s; the next window owns 60 s.
    expect(loop.starts).toEqual([0, 10_000, 20_000, 30_000, 40_000, 55_000]);
  });
});
