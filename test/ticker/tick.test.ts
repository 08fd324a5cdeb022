import { describe, expect, it, vi } from 'vitest';
import { UnavailableError } from '../../lib/errors.js';
import { readShardRecord } from '../../lib/memtable/shard-record.js';
import { putRows } from '../../lib/put/put-rows.js';
import { InstrumentedObjectStore } from '../../lib/store/instrumented-store.js';
import type { ObjectStore, PutIfAbsentResult } from '../../lib/store/object-store.js';
import { runTick, type TickDeps } from '../../lib/ticker/tick.js';
import { type Fixture, fixture, useDynalite } from '../support/harness.js';

const dynalite = useDynalite();

async function putTo(f: Fixture, shards: string[]): Promise<void> {
  for (const shard of shards) {
    await putRows(f.put, { shard, body: { rows: [{ shard }] }, durability: 'buffered' });
  }
}

function tickDeps(f: Fixture, overrides: Partial<TickDeps> = {}): TickDeps {
  return { flush: f.flushDeps('ticker'), concurrency: 4, maxShardsPerTick: 64, ...overrides };
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

  it('flushes maxShardsPerTick shards itself and fans the rest out, one entry per shard', async () => {
    const f = await fixture(dynalite());
    const shards = ['s0', 's1', 's2', 's3', 's4'];
    await putTo(f, shards);
    const fanOut = vi.fn(async (_shards: string[]) => {});
    const summary = await runTick(tickDeps(f, { maxShardsPerTick: 2, fanOut }));
    expect(fanOut).toHaveBeenCalledTimes(1);
    expect(fanOut).toHaveBeenCalledWith(['s2', 's3', 's4']);
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
});
