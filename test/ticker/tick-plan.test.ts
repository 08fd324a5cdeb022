import { describe, expect, it } from 'vitest';
import {
  FlushTimeEstimate,
  fanOutLists,
  fixedFlushConcurrency,
  planTick,
  TICK_SIZING,
  type TickPlanInput,
} from '../../lib/ticker/tick-plan.js';

const MIB = 1024 * 1024;

function plan(overrides: Partial<TickPlanInput>) {
  return planTick({
    activeShards: 10,
    intervalMs: 1_000,
    flushMs: 120,
    canFanOut: true,
    maxWalObjectBytes: 32 * MIB,
    ...overrides,
  });
}

describe('planTick', () => {
  it('flushes every shard it keeps at once, so commits land one flush after the tick', () => {
    expect(plan({ activeShards: 3 })).toMatchObject({ concurrency: 3, here: 3 });
    expect(plan({ activeShards: 40 })).toMatchObject({ concurrency: 40, here: 40 });
  });

  it('keeps fewer shards at a shorter interval and fans out the rest', () => {
    // 48 at once × (60 ms of a 100 ms interval / 120 ms) rounds down to 24 here.
    expect(plan({ activeShards: 100, intervalMs: 100 })).toMatchObject({
      concurrency: 24,
      here: 24,
    });
  });

  it('caps concurrency and fans out what does not fit the budget', () => {
    const { concurrency, here } = plan({ activeShards: 1_000, flushMs: 150 });
    expect(concurrency).toBe(TICK_SIZING.maxConcurrency);
    // 48 at once × (600 ms / 150 ms) = 192 flushed here; 808 fanned out.
    expect(here).toBe(192);
  });

  it('flushes fewer shards here when measured flushes are slower (a CPU-bound invocation)', () => {
    expect(plan({ activeShards: 1_000, flushMs: 600 }).here).toBe(48);
    expect(plan({ activeShards: 1_000, flushMs: 60_000 }).here).toBe(1);
  });

  it('flushes every shard here when nothing can fan out', () => {
    expect(plan({ activeShards: 1_000, canFanOut: false }).here).toBe(1_000);
  });

  it('without an interval, flushes everything here at the base concurrency', () => {
    expect(plan({ activeShards: 500, intervalMs: undefined })).toMatchObject({
      concurrency: TICK_SIZING.baseConcurrency,
      here: 500,
    });
  });

  it('applies the overrides as given', () => {
    const given = plan({ activeShards: 1_000, concurrency: 3, maxShardsPerTick: 64 });
    expect(given).toEqual({
      concurrency: 3,
      here: 64,
      flushBytes: 32 * MIB,
      budgetMs: 600,
      perMessage: 240,
    });
  });

  it('shrinks the byte cap of each flush as concurrency grows past the base, bounding memory', () => {
    const small = plan({ activeShards: 8 });
    expect(small.flushBytes).toBe(32 * MIB);
    const wide = plan({ activeShards: 1_000 });
    expect(wide.flushBytes).toBe(Math.floor((32 * MIB * 8) / 48));
    expect(wide.concurrency * wide.flushBytes).toBeLessThanOrEqual(
      TICK_SIZING.baseConcurrency * 32 * MIB,
    );
    expect(plan({ activeShards: 1_000, maxWalObjectBytes: 2 * MIB }).flushBytes).toBe(MIB);
  });
});

describe('planTick and perMessage', () => {
  it('names in one fan-out message what one worker flushes within the budget', () => {
    // A worker flushes 48 at once: 48 × 600 ms / 80 ms = 360 shards.
    expect(plan({ activeShards: 10_000, flushMs: 80 }).perMessage).toBe(360);
    expect(plan({ activeShards: 10_000, flushMs: 60_000 }).perMessage).toBe(1);
  });

  it('never names more than maxShardsPerMessage, so a message stays within SQS limits', () => {
    expect(plan({ activeShards: 10_000, flushMs: 1 }).perMessage).toBe(
      TICK_SIZING.maxShardsPerMessage,
    );
    expect(plan({ activeShards: 10_000, intervalMs: undefined }).perMessage).toBe(
      TICK_SIZING.maxShardsPerMessage,
    );
    // The most names of 64 characters, as JSON, stay under 100 KiB (SQS takes 256 KiB).
    const longest = Array.from({ length: TICK_SIZING.maxShardsPerMessage }, () => 'a'.repeat(64));
    expect(JSON.stringify({ shards: longest, reason: 'fan-out' }).length).toBeLessThan(100 * 1024);
  });
});

describe('fanOutLists', () => {
  const names = (n: number) => Array.from({ length: n }, (_, i) => `s${i}`);

  it('splits into the fewest lists of at most perMessage, balanced to within one', () => {
    expect(fanOutLists(names(25), 10).map((list) => list.length)).toEqual([9, 8, 8]);
    expect(fanOutLists(names(20), 10).map((list) => list.length)).toEqual([10, 10]);
    expect(fanOutLists(names(3), 10)).toEqual([['s0', 's1', 's2']]);
    expect(fanOutLists([], 10)).toEqual([]);
  });

  it('keeps every shard once, in order', () => {
    expect(fanOutLists(names(9_640), 360).flat()).toEqual(names(9_640));
  });
});

describe('fixedFlushConcurrency', () => {
  it('is the override, else the base concurrency', () => {
    expect(fixedFlushConcurrency({ flushConcurrency: 16 })).toBe(16);
    expect(fixedFlushConcurrency({ flushConcurrency: undefined })).toBe(
      TICK_SIZING.baseConcurrency,
    );
  });
});

describe('FlushTimeEstimate', () => {
  describe('observe', () => {
    it('moves halfway to each tick mean and ignores a tick without flushes', () => {
      const estimate = new FlushTimeEstimate(100);
      estimate.observe([200, 400]);
      expect(estimate.ms).toBe(200);
      estimate.observe([]);
      expect(estimate.ms).toBe(200);
      estimate.observe([100]);
      expect(estimate.ms).toBe(150);
    });
  });
});
