import { describe, expect, it } from 'vitest';
import { allocateSeq } from '../../lib/memtable/allocate.js';
import { putRows } from '../../lib/put/put-rows.js';
import { parsePutValue } from '../../lib/put/schema.js';
import { oldestAgeMs, oldestPendingAtMs } from '../../lib/ticker/pending-age.js';
import { runTick } from '../../lib/ticker/tick.js';
import { type Fixture, fixture, useDynalite } from '../support/harness.js';
import { restoreShardItem, snapshotShardItem } from '../support/shard-item.js';

const dynalite = useDynalite();

async function put(f: Fixture, shard: string): Promise<void> {
  await putRows(f.put, {
    shard,
    body: parsePutValue({ rows: [{ shard }] }, 10_000),
    durability: 'buffered',
  });
}

/** Allocates a seq whose batch is never written: a gap. */
async function allocateOnly(f: Fixture, shard: string): Promise<void> {
  await allocateSeq(f.table, {
    shard,
    bytes: 10,
    nowMs: f.clock.now(),
    maxBufferedBytes: f.config.maxBufferedBytes,
    retryAfterSeconds: 1,
  });
}

describe('oldestPendingAtMs', () => {
  it('is undefined for a shard never written or fully flushed', async () => {
    const f = await fixture(dynalite());
    expect(await oldestPendingAtMs(f.table, 'none')).toBeUndefined();
    await put(f, 'done');
    await runTick({ flush: f.flushDeps('t'), concurrency: 1 });
    expect(await oldestPendingAtMs(f.table, 'done')).toBeUndefined();
  });

  it('is the allocation of the first batch pending since the last commit', async () => {
    const f = await fixture(dynalite());
    await put(f, 's');
    await runTick({ flush: f.flushDeps('t'), concurrency: 1 });
    const firstPending = f.clock.now() + 1_000;
    f.clock.advance(1_000);
    await put(f, 's');
    f.clock.advance(1_000);
    await put(f, 's');
    expect(await oldestPendingAtMs(f.table, 's')).toBe(firstPending);
  });

  it('dates a gap by its own allocation, though a later batch was written', async () => {
    const f = await fixture(dynalite());
    const allocatedAt = f.clock.now();
    await allocateOnly(f, 'g');
    f.clock.advance(3_000);
    await put(f, 'g');
    expect(await oldestPendingAtMs(f.table, 'g')).toBe(allocatedAt);
  });

  describe('on a record written before pendingSinceMs existed', () => {
    async function withoutStamp(f: Fixture, shard: string): Promise<void> {
      const { pendingSinceMs: _, ...item } = await snapshotShardItem(f.table, shard);
      await restoreShardItem(f.table, item);
    }

    it('dates a gap by the next written batch, which was allocated after it', async () => {
      const f = await fixture(dynalite());
      await allocateOnly(f, 'g');
      f.clock.advance(3_000);
      await put(f, 'g');
      await withoutStamp(f, 'g');
      expect(await oldestPendingAtMs(f.table, 'g')).toBe(f.clock.now());
    });

    it("dates a gap with nothing written above it by the shard's last allocation", async () => {
      const f = await fixture(dynalite());
      const allocatedAt = f.clock.now();
      await allocateOnly(f, 'g');
      f.clock.advance(3_000);
      await withoutStamp(f, 'g');
      expect(await oldestPendingAtMs(f.table, 'g')).toBe(allocatedAt);
    });
  });
});

describe('oldestAgeMs', () => {
  it('is the largest age, or 0 for none', () => {
    expect(oldestAgeMs([])).toBe(0);
    expect(oldestAgeMs([20, 5_000, 300])).toBe(5_000);
  });
});
