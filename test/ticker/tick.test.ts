import { afterEach, describe, expect, it, vi } from 'vitest';
import { UnavailableError } from '../../lib/errors.js';
import { readShardRecord } from '../../lib/memtable/shard-record.js';
import { Metric } from '../../lib/observability/metric-names.js';
import { metrics } from '../../lib/observability/telemetry.js';
import { putRows } from '../../lib/put/put-rows.js';
import { parsePutValue } from '../../lib/put/schema.js';
import { InstrumentedObjectStore } from '../../lib/store/instrumented-store.js';
import type { ObjectStore, PutIfAbsentResult } from '../../lib/store/object-store.js';
import { runTick, type TickDeps } from '../../lib/ticker/tick.js';
import { FlushTimeEstimate } from '../../lib/ticker/tick-plan.js';
import { type Fixture, fixture, useDynalite } from '../support/harness.js';

const dynalite = useDynalite();

async function putTo(f: Fixture, shards: string[]): Promise<void> {
  for (const shard of shards) {
    await putRows(f.put, {
      shard,
      body: parsePutValue({ rows: [{ shard }] }, 10_000),
      durability: 'buffered',
    });
  }
}

function tickDeps(f: Fixture, overrides: Partial<TickDeps> = {}): TickDeps {
  return { flush: f.flushDeps('ticker'), concurrency: 4, maxShardsPerTick: 64, ...overrides };
}

/**
 * A store whose writes wait until `expected` of them are in flight (or a
 * second passes), recording the most ever in flight at once: it shows every
 * write of a tick was under way together, whatever the table's pace.
 */
class LatchStore extends InstrumentedObjectStore {
  inFlight = 0;
  maxInFlight = 0;
  readonly #expected: number;
  readonly #waiters: (() => void)[] = [];

  constructor(inner: ObjectStore, expected: number) {
    super(inner);
    this.#expected = expected;
  }

  override async putIfAbsent(key: string, body: Uint8Array): Promise<PutIfAbsentResult> {
    this.maxInFlight = Math.max(this.maxInFlight, ++this.inFlight);
    if (this.inFlight >= this.#expected) for (const release of this.#waiters.splice(0)) release();
    else {
      await new Promise<void>((resolve) => {
        this.#waiters.push(resolve);
        setTimeout(resolve, 1_000);
      });
    }
    try {
      return await super.putIfAbsent(key, body);
    } finally {
      this.inFlight--;
    }
  }
}

/** A store whose writes take a while, recording the most ever in flight at once. */
class SlowWriteStore extends InstrumentedObjectStore {
  inFlight = 0;
  maxInFlight = 0;
  override async putIfAbsent(key: string, body: Uint8Array): Promise<PutIfAbsentResult> {
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      await new Promise((resolve) => setTimeout(resolve, 100));
      return await super.putIfAbsent(key, body);
    } finally {
      this.inFlight--;
    }
  }
}

describe('runTick', () => {
  it('makes no object store call when no shard was ever written', async () => {
    const f = await fixture(dynalite());
    const summary = await runTick(tickDeps(f));
    expect(summary).toMatchObject({ activeShards: 0, fannedOut: 0, failed: 0, outcomes: [] });
    expect(f.store.counts()).toEqual({ putIfAbsent: 0, get: 0, getStream: 0, list: 0, delete: 0 });
  });

  it('makes no object store call for shards that are fully flushed', async () => {
    const f = await fixture(dynalite());
    await putTo(f, ['a', 'b']);
    await runTick(tickDeps(f));
    f.store.reset();
    for (let i = 0; i < 3; i++) {
      const summary = await runTick(tickDeps(f));
      expect(summary.activeShards).toBe(0);
    }
    expect(f.store.counts()).toEqual({ putIfAbsent: 0, get: 0, getStream: 0, list: 0, delete: 0 });
  });

  it('writes exactly one WAL object per active shard per tick, leaving idle shards alone', async () => {
    const f = await fixture(dynalite());
    await putTo(f, ['idle']);
    await runTick(tickDeps(f));
    f.store.reset();
    const active = ['s0', 's1', 's2', 's3', 's4'];
    for (let round = 0; round < 3; round++) await putTo(f, active);
    const summary = await runTick(tickDeps(f));
    expect(summary.activeShards).toBe(5);
    expect(summary.outcomes.map((o) => [o.shard, o.status])).toEqual(
      active.map((shard) => [shard, 'flushed']),
    );
    expect(f.store.counts().putIfAbsent).toBe(5);
    for (const shard of active) {
      expect(await readShardRecord(f.table, shard)).toMatchObject({
        durableSeq: 3,
        walNextPos: 1,
        pending: false,
      });
    }
    expect(f.memory.keys().filter((key) => key.includes('/idle/'))).toHaveLength(1);
  });

  it('flushes maxShardsPerTick shards itself and fans the rest out as one list per worker', async () => {
    const f = await fixture(dynalite());
    const shards = ['s0', 's1', 's2', 's3', 's4'];
    await putTo(f, shards);
    const fanOut = vi.fn(async (_lists: string[][]) => {});
    const summary = await runTick(tickDeps(f, { maxShardsPerTick: 2, fanOut }));
    expect(fanOut).toHaveBeenCalledTimes(1);
    expect(fanOut).toHaveBeenCalledWith([['s2', 's3', 's4']]);
    expect(summary).toMatchObject({ activeShards: 5, fannedOut: 3 });
    expect(summary.outcomes.map((o) => o.shard)).toEqual(['s0', 's1']);
    expect(f.store.counts().putIfAbsent).toBe(2);
    for (const shard of ['s2', 's3', 's4']) {
      expect(await readShardRecord(f.table, shard)).toMatchObject({ durableSeq: 0, pending: true });
    }
  });

  it('flushes every active shard itself when no fan-out is wired', async () => {
    const f = await fixture(dynalite());
    await putTo(f, ['s0', 's1', 's2']);
    const summary = await runTick(tickDeps(f, { maxShardsPerTick: 1 }));
    expect(summary).toMatchObject({ activeShards: 3, fannedOut: 0 });
    expect(f.store.counts().putIfAbsent).toBe(3);
  });

  it('never has more than `concurrency` flushes writing at once', async () => {
    const f = await fixture(dynalite());
    const shards = Array.from({ length: 7 }, (_, i) => `c${i}`);
    await putTo(f, shards);
    const slow = new SlowWriteStore(f.memory as ObjectStore);
    const summary = await runTick(
      tickDeps(f, { flush: f.flushDeps('ticker', { store: slow }), concurrency: 2 }),
    );
    expect(summary.outcomes.filter((o) => o.status === 'flushed')).toHaveLength(7);
    expect(slow.maxInFlight).toBe(2);
    expect(slow.counts().putIfAbsent).toBe(7);
  });

  it('counts a shard whose flush fails transiently as failed, keeps it pending, and flushes the rest', async () => {
    const f = await fixture(dynalite());
    await putTo(f, ['bad', 'good']);
    class FlakyStore extends InstrumentedObjectStore {
      override async putIfAbsent(key: string, body: Uint8Array): Promise<PutIfAbsentResult> {
        if (key.includes('/bad/')) throw new UnavailableError('S3 503 SlowDown');
        return super.putIfAbsent(key, body);
      }
    }
    const flaky = new FlakyStore(f.memory);
    const summary = await runTick(tickDeps(f, { flush: f.flushDeps('ticker', { store: flaky }) }));
    expect(summary).toMatchObject({ activeShards: 2, failed: 1 });
    expect(summary.outcomes.map((o) => [o.shard, o.status])).toEqual([['good', 'flushed']]);
    expect(await readShardRecord(f.table, 'bad')).toMatchObject({
      durableSeq: 0,
      pending: true,
      leaseOwner: undefined,
    });
    const retry = await runTick(tickDeps(f));
    expect(retry.outcomes.map((o) => [o.shard, o.status])).toEqual([['bad', 'flushed']]);
  });

  it('flushes every active shard at once when nothing can fan out and no override is set', async () => {
    const f = await fixture(dynalite());
    const shards = Array.from({ length: 12 }, (_, i) => `d${i}`);
    await putTo(f, shards);
    const latch = new LatchStore(f.memory as ObjectStore, 12);
    const summary = await runTick({
      flush: f.flushDeps('ticker', { store: latch }),
      intervalMs: 1_000,
      flushTime: new FlushTimeEstimate(250),
    });
    expect(summary.plan).toMatchObject({ concurrency: 12, here: 12 });
    expect(latch.maxInFlight).toBe(12);
    expect(summary.outcomes.filter((o) => o.status === 'flushed')).toHaveLength(12);
  });

  it('keeps what fits the interval at the measured flush time and fans out the rest', async () => {
    const f = await fixture(dynalite());
    const shards = Array.from({ length: 12 }, (_, i) => `e${String(i).padStart(2, '0')}`);
    await putTo(f, shards);
    const latch = new LatchStore(f.memory as ObjectStore, 4);
    const fanned: string[] = [];
    const flushTime = new FlushTimeEstimate(6_000);
    const summary = await runTick({
      flush: f.flushDeps('ticker', { store: latch }),
      intervalMs: 1_000,
      flushTime,
      fanOut: async (lists) => void fanned.push(...lists.flat()),
    });
    // 48 at once × 600 ms of budget / 6 s per flush: 4 here, 4 at once.
    expect(summary.plan).toMatchObject({ concurrency: 4, here: 4 });
    expect(latch.maxInFlight).toBe(4);
    expect(fanned).toEqual(shards.slice(4));
    // The flushes it ran teach the estimate (they took well under 6 s).
    expect(flushTime.ms).toBeLessThan(4_000);
  });

  it('hands the shards it has not started to workers once its budget runs out', async () => {
    const f = await fixture(dynalite());
    const shards = Array.from({ length: 12 }, (_, i) => `l${String(i).padStart(2, '0')}`);
    await putTo(f, shards);
    const slow = new SlowWriteStore(f.memory as ObjectStore);
    const fanned: string[] = [];
    let clock = 0;
    const summary = await runTick({
      // A clock that moves 10 ms per reading: the 60 ms budget of a 100 ms interval runs out early.
      flush: f.flushDeps('ticker', { store: slow, now: () => (clock += 10) }),
      intervalMs: 100,
      concurrency: 2,
      flushTime: new FlushTimeEstimate(1),
      fanOut: async (lists) => void fanned.push(...lists.flat()),
    });
    expect(summary.plan).toMatchObject({ concurrency: 2, here: 12, budgetMs: 60 });
    const flushedHere = summary.outcomes.map((o) => o.shard);
    expect(flushedHere.length).toBeGreaterThan(0);
    expect(flushedHere.length).toBeLessThan(6);
    expect(summary.fannedOut).toBe(12 - flushedHere.length);
    expect([...flushedHere, ...fanned].sort()).toEqual(shards);
    expect(summary.failed).toBe(0);
  });

  it('hands the shards past its budget over at once, while its own flushes are still running', async () => {
    const f = await fixture(dynalite());
    const shards = Array.from({ length: 12 }, (_, i) => `m${String(i).padStart(2, '0')}`);
    await putTo(f, shards);
    class CountingStore extends SlowWriteStore {
      written = 0;
      override async putIfAbsent(key: string, body: Uint8Array): Promise<PutIfAbsentResult> {
        // The second flush writes for longer: the first ends, and the budget is found spent, well before it.
        if (key.includes('/m01/')) await new Promise((resolve) => setTimeout(resolve, 400));
        const result = await super.putIfAbsent(key, body);
        this.written++;
        return result;
      }
    }
    const slow = new CountingStore(f.memory as ObjectStore);
    const writtenAtHandOff: number[] = [];
    let clock = 0;
    const summary = await runTick({
      flush: f.flushDeps('ticker', { store: slow, now: () => (clock += 10) }),
      intervalMs: 100,
      concurrency: 2,
      flushTime: new FlushTimeEstimate(1),
      fanOut: async () => void writtenAtHandOff.push(slow.written),
    });
    expect(summary.fannedOut).toBeGreaterThan(0);
    // One hand-off, before the last of the tick's own flushes had written: not after they all ended.
    expect(writtenAtHandOff).toHaveLength(1);
    expect(writtenAtHandOff[0]).toBeLessThan(summary.outcomes.length);
  });

  it('hands fanned-out shards over in one call, as balanced lists of what a worker flushes in the budget', async () => {
    const f = await fixture(dynalite());
    const shards = Array.from({ length: 25 }, (_, i) => `f${String(i).padStart(2, '0')}`);
    await putTo(f, shards);
    const handed: string[][][] = [];
    const summary = await runTick({
      ...tickDeps(f, { maxShardsPerTick: 1 }),
      intervalMs: 1_000,
      // 48 at once × 600 ms of budget / 2,880 ms a flush: 10 shards a worker.
      flushTime: new FlushTimeEstimate(2_880),
      fanOut: async (lists) => void handed.push(lists),
    });
    expect(summary.plan.perMessage).toBe(10);
    expect(summary.fannedOut).toBe(24);
    expect(handed).toHaveLength(1);
    expect(handed[0]!.map((list) => list.length)).toEqual([8, 8, 8]);
    expect(handed[0]!.flat()).toEqual(shards.slice(1));
  });

  it('hands over no more lists than there are workers, its late hand-off included, each shard on one list', async () => {
    const f = await fixture(dynalite());
    const shards = Array.from({ length: 35 }, (_, i) => `w${String(i).padStart(2, '0')}`);
    await putTo(f, shards);
    const handed: string[][][] = [];
    const summary = await runTick({
      ...tickDeps(f, { maxShardsPerTick: 6, concurrency: 2 }),
      intervalMs: 1_000,
      flushWorkers: 3,
      // 10 shards a worker within the budget would make three lists of the 29 past
      // the 6 kept; the estimate is spent at once, so all but the first wave go late.
      flushTime: new FlushTimeEstimate(2_880),
      fanOut: async (lists) => void handed.push(lists),
    });
    expect(summary.plan).toMatchObject({ here: 6, concurrency: 2, workers: 3, perMessage: 15 });
    expect(handed.map((lists) => lists.map((list) => list.length))).toEqual([[15, 14], [4]]);
    const flushedHere = summary.outcomes.map((o) => o.shard);
    expect(flushedHere).toEqual(shards.slice(0, 2));
    expect([...flushedHere, ...handed.flat(2)].sort()).toEqual(shards);
  });

  it('leaves the shards of a failed hand-off pending, and the next tick hands them over again', async () => {
    const f = await fixture(dynalite());
    const shards = ['h0', 'h1', 'h2', 'h3'];
    await putTo(f, shards);
    const failing = async () => {
      throw new UnavailableError('SQS unreachable (test)');
    };
    const first = await runTick(tickDeps(f, { maxShardsPerTick: 1, fanOut: failing }));
    expect(first).toMatchObject({ activeShards: 4, fannedOut: 3, failed: 0 });
    expect(first.outcomes.map((o) => [o.shard, o.status])).toEqual([['h0', 'flushed']]);
    for (const shard of shards.slice(1)) {
      expect(await readShardRecord(f.table, shard)).toMatchObject({ durableSeq: 0, pending: true });
    }
    const handed: string[] = [];
    const second = await runTick(
      tickDeps(f, {
        maxShardsPerTick: 1,
        fanOut: async (lists) => void handed.push(...lists.flat()),
      }),
    );
    // h0 is drained; the next tick lists the three the failed hand-off left and hands them over again.
    expect(second.activeShards).toBe(3);
    expect([...second.outcomes.map((o) => o.shard), ...handed].sort()).toEqual(shards.slice(1));
  });
});

describe('runTick and OldestPendingAgeMs', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  function gauge() {
    const spy = vi.spyOn(metrics, 'addMetric');
    return () =>
      spy.mock.calls.filter(([name]) => name === Metric.oldestPendingAgeMs).map(([, , v]) => v);
  }

  it('emits 0 on a tick with no active shard', async () => {
    const f = await fixture(dynalite());
    const emitted = gauge();
    const summary = await runTick(tickDeps(f));
    expect(summary.oldestPendingAgeMs).toBe(0);
    expect(emitted()).toEqual([0]);
  });

  it('emits the age of the oldest batch the flushes covered', async () => {
    const f = await fixture(dynalite());
    await putTo(f, ['a']);
    f.clock.advance(4_000);
    await putTo(f, ['b']);
    f.clock.advance(1_000);
    const emitted = gauge();
    const summary = await runTick(tickDeps(f));
    expect(summary.oldestPendingAgeMs).toBe(5_000);
    expect(emitted()).toEqual([5_000]);
  });

  it('dates the oldest pending batch of a shard whose flush keeps failing, tick after tick', async () => {
    const f = await fixture(dynalite());
    await putTo(f, ['stuck']);
    f.clock.advance(2_000);
    await putTo(f, ['fine', 'stuck']);
    class DownForStuck extends InstrumentedObjectStore {
      override async putIfAbsent(key: string, body: Uint8Array): Promise<PutIfAbsentResult> {
        if (key.includes('/stuck/')) throw new UnavailableError('S3 503 SlowDown');
        return super.putIfAbsent(key, body);
      }
    }
    const deps = tickDeps(f, {
      flush: f.flushDeps('ticker', { store: new DownForStuck(f.memory) }),
    });
    const emitted = gauge();
    f.clock.advance(1_000);
    expect((await runTick(deps)).oldestPendingAgeMs).toBe(3_000);
    f.clock.advance(10_000);
    expect((await runTick(deps)).oldestPendingAgeMs).toBe(13_000);
    expect(emitted()).toEqual([3_000, 13_000]);
  });
});
