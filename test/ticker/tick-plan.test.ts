import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  FlushTimeEstimate,
  fanOutLists,
  fixedFlushConcurrency,
  lateLists,
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
    workers: 40,
    ...overrides,
  });
}

const names = (n: number) => Array.from({ length: n }, (_, i) => `s${i}`);

/** The lists a tick makes of `shards` under `input`'s plan (as `runTick` splits them). */
function split(input: Partial<TickPlanInput>) {
  const shards = names(input.activeShards ?? 10);
  const p = plan(input);
  const lists = fanOutLists(shards.slice(p.here), p.perMessage);
  return { plan: p, shards, lists };
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
      workers: 40,
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
    expect(plan({ activeShards: 30, flushMs: 60_000 }).perMessage).toBe(1);
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

describe('planTick and the workers (P6)', () => {
  it('hands over no more lists than workers, growing each list instead, when a flush is slow', () => {
    // 48 × 600 ms / 1,000 ms = 28 shards a worker within the budget: 357 lists for 9,972 shards.
    const { plan: p, lists } = split({ activeShards: 10_000, flushMs: 1_000 });
    expect(p).toMatchObject({ here: 28, concurrency: 28, workers: 40 });
    expect(lists).toHaveLength(40);
    expect(lists.every((list) => list.length <= 250)).toBe(true);
    expect(p.perMessage).toBe(250);
  });

  it('keeps the budget-sized lists while they do not outnumber the workers', () => {
    // 9,640 shards at 360 a worker: 27 lists, within 40.
    const { plan: p, lists } = split({ activeShards: 10_000, flushMs: 80 });
    expect(p.perMessage).toBe(360);
    expect(lists).toHaveLength(27);
  });

  it('keeps one worker for a late hand-off when the tick keeps more than its first wave', () => {
    // 360 kept, 48 at once: up to 312 may be handed over late (P2).
    const { plan: p, shards, lists } = split({ activeShards: 30_000, flushMs: 80 });
    expect(p).toMatchObject({ here: 360, concurrency: 48 });
    expect(lists).toHaveLength(39);
    const late = lateLists(p, shards.slice(p.concurrency, p.here), lists.length);
    expect(late).toHaveLength(1);
    expect(lists.length + late.length).toBe(p.workers);
  });

  it('sends more lists than workers, each of at most maxShardsPerMessage names, past what full lists hold', () => {
    // 39 lists of 1,500 hold 58,500; 99,640 shards need 67 lists, which queue for the 40 workers.
    const { plan: p, shards, lists } = split({ activeShards: 100_000, flushMs: 80 });
    expect(p.perMessage).toBe(TICK_SIZING.maxShardsPerMessage);
    expect(lists).toHaveLength(67);
    expect(lists.every((list) => list.length <= TICK_SIZING.maxShardsPerMessage)).toBe(true);
    expect(lists.flat()).toEqual(shards.slice(p.here));
    const late = lateLists(p, shards.slice(p.concurrency, p.here), lists.length);
    expect(late).toEqual([shards.slice(p.concurrency, p.here)]);
  });

  it('puts every shard it does not keep on exactly one list, and never more lists than workers unless the lists are full', () => {
    fc.assert(
      fc.property(
        fc.record({
          activeShards: fc.integer({ min: 0, max: 20_000 }),
          flushMs: fc.integer({ min: 1, max: 5_000 }),
          intervalMs: fc.option(fc.integer({ min: 10, max: 60_000 }), { nil: undefined }),
          workers: fc.integer({ min: 2, max: 60 }),
          maxShardsPerTick: fc.option(fc.integer({ min: 1, max: 5_000 }), { nil: undefined }),
        }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (input, lateShare) => {
          const { plan: p, shards, lists } = split(input);
          // A late hand-off (P2) takes a tail of what the tick kept, past its first wave.
          const lateFrom = Math.max(
            p.concurrency,
            p.here - Math.floor(lateShare * (p.here - p.concurrency)),
          );
          const late =
            input.intervalMs !== undefined && p.here > p.concurrency
              ? lateLists(p, shards.slice(lateFrom, p.here), lists.length)
              : [];
          const kept = shards.slice(0, late.length > 0 ? lateFrom : p.here);
          const joined = [...kept, ...late.flat(), ...lists.flat()];
          // Every shard once, in order (a loop: toEqual on 20,000 names is slow).
          expect(joined.length).toBe(shards.length);
          expect(joined.every((shard, i) => shard === shards[i])).toBe(true);
          const all = [...lists, ...late];
          for (const list of all) {
            expect(list.length).toBeGreaterThan(0);
            expect(list.length).toBeLessThanOrEqual(TICK_SIZING.maxShardsPerMessage);
          }
          const full = (count: number, of: number) =>
            count <= 1 || of > (count - 1) * TICK_SIZING.maxShardsPerMessage;
          // Past the workers only when the lists could not be fewer at full size.
          const plannedFull = full(lists.length, shards.length - p.here);
          if (lists.length > p.workers) expect(plannedFull).toBe(true);
          if (all.length > p.workers) {
            expect(plannedFull && full(late.length, p.here - lateFrom)).toBe(true);
          }
        },
      ),
      { seed: 23, numRuns: 200 },
    );
  });
});

describe('fanOutLists', () => {
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
