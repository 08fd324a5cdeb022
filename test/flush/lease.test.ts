import { describe, expect, it } from 'vitest';
import { SETTINGS } from '../../lib/config.js';
import type { LeaseTimers } from '../../lib/fence/lease-keeper.js';
import { FaultPoint } from '../../lib/flush/fault-points.js';
import { flushShard } from '../../lib/flush/flush-shard.js';
import { readBatchHead } from '../../lib/memtable/batch-heads.js';
import { readShardRecord } from '../../lib/memtable/shard-record.js';
import { pauseAt } from '../support/fault-gates.js';
import { fixture, useDynalite } from '../support/harness.js';
import { expireBatchItems } from '../support/shard-item.js';
import { putBatch } from '../support/wal-chain.js';

const dynalite = useDynalite();
const SHARD = 'lease';

/** Timers a test fires by hand. */
function manualTimers(): LeaseTimers & { fire: () => Promise<void>; pending: () => number } {
  const due = new Map<number, () => void>();
  let next = 0;
  return {
    setTimeout: (fn) => {
      due.set(++next, fn);
      return next;
    },
    clearTimeout: (handle) => void due.delete(handle as number),
    pending: () => due.size,
    fire: async () => {
      const fns = [...due.values()];
      due.clear();
      for (const fn of fns) fn();
      await new Promise((resolve) => setTimeout(resolve, 50)); // let the renewal land
    },
  };
}

describe('flushShard', () => {
  describe('flush lease', () => {
    it('is short by default: a crashed flusher blocks its shard for seconds, not a minute', () => {
      expect(SETTINGS.leaseMs.default).toBeLessThanOrEqual(5_000);
    });

    it('is renewed while a flush runs past it, so no second flusher claims the shard', async () => {
      const f = await fixture(dynalite(), { leaseMs: 3_000 });
      await putBatch(f.put, SHARD, [{ n: 1 }]);
      const timers = manualTimers();
      const pause = pauseAt(FaultPoint.afterResolve);
      const slow = flushShard(f.flushDeps('slow', { faults: pause.hook, timers }), SHARD);
      await pause.reached;
      const claimed = (await readShardRecord(f.table, SHARD))?.leaseExpiresAtMs ?? 0;

      for (let i = 0; i < 3; i++) {
        f.clock.advance(1_000);
        await timers.fire();
      }
      const renewed = (await readShardRecord(f.table, SHARD))?.leaseExpiresAtMs ?? 0;
      expect(renewed).toBe(f.clock.now() + 3_000);
      expect(renewed).toBeGreaterThan(claimed);
      expect(await flushShard(f.flushDeps('second'), SHARD)).toMatchObject({ status: 'busy' });

      pause.release();
      expect(await slow).toMatchObject({ status: 'flushed', lastSeq: 1 });
      expect(timers.pending()).toBe(0);
      expect((await readShardRecord(f.table, SHARD))?.leaseOwner).toBeUndefined();
    });

    it('lapses one lease after its flusher crashed, and the next flusher takes over', async () => {
      const f = await fixture(dynalite(), { leaseMs: 3_000 });
      await putBatch(f.put, SHARD, [{ n: 1 }]);
      const timers = manualTimers();
      const pause = pauseAt(FaultPoint.afterResolve);
      const crashed = flushShard(f.flushDeps('crashed', { faults: pause.hook, timers }), SHARD);
      await pause.reached;
      // A crashed process renews nothing: its timers never fire again.
      f.clock.advance(3_001);
      expect(await flushShard(f.flushDeps('next'), SHARD)).toMatchObject({
        status: 'flushed',
        lastSeq: 1,
      });
      pause.crash();
      await expect(crashed).rejects.toThrow('simulated crash');
    });

    it('stops renewing once a newer claim holds the shard', async () => {
      const f = await fixture(dynalite(), { leaseMs: 3_000 });
      await putBatch(f.put, SHARD, [{ n: 1 }]);
      const timers = manualTimers();
      const pause = pauseAt(FaultPoint.afterResolve);
      const zombie = flushShard(f.flushDeps('zombie', { faults: pause.hook, timers }), SHARD);
      await pause.reached;
      f.clock.advance(3_001); // the zombie missed its renewals
      await flushShard(f.flushDeps('next'), SHARD);
      await timers.fire(); // its late renewal must not touch the record
      expect(timers.pending()).toBe(0);
      pause.release();
      expect(await zombie).toMatchObject({ status: 'fenced' });
    });
  });
});

describe('resolveOldestPending', () => {
  describe('in a zombie resolving from a stale record', () => {
    it('seals no void below durableSeq where covered batch items expired', async () => {
      const f = await fixture(dynalite(), { leaseMs: 3_000, gapSealMs: 2_000 });
      await putBatch(f.put, SHARD, [{ n: 1 }]);
      const pause = pauseAt(FaultPoint.afterClaim);
      const zombie = flushShard(f.flushDeps('zombie', { faults: pause.hook }), SHARD);
      await pause.reached;
      f.clock.advance(3_001);
      expect(await flushShard(f.flushDeps('next'), SHARD)).toMatchObject({ status: 'flushed' });
      await expireBatchItems(f.table, SHARD, 1); // the zombie slept past the items' lifetime
      expect(await readBatchHead(f.table, SHARD, 1)).toBeUndefined();

      pause.release(); // it resolves seq 1 from its stale record: now a "gap" older than the seal
      expect(await zombie).toMatchObject({ status: 'fenced' });
      expect(await readBatchHead(f.table, SHARD, 1)).toBeUndefined();
    });
  });
});
