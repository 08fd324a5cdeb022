/**
 * A rebuild whose catch-up stops (an object appended after its replay does
 * not continue the chain) lifts its fence: the poison goes back to what it
 * was, the rebuild's mark and lease go, and a shard with nothing pending
 * leaves the pending index the fence put it in, drained.
 */
import { describe, expect, it } from 'vitest';
import { listPendingShards } from '../../lib/memtable/pending-index.js';
import { readShardRecord, updateShardRecord } from '../../lib/memtable/shard-record.js';
import { walKey } from '../../lib/paths.js';
import { RebuildFaultPoint } from '../../lib/recovery/fault-points.js';
import { rebuildShard } from '../../lib/recovery/rebuild.js';
import { fixture, useDynalite } from '../support/harness.js';
import { recoveryDepsOf, TestShard } from './support.js';

const dynalite = useDynalite();
const SHARD = 's1';

/** Writes a corrupt object where the next append goes, once the fence is up. */
function corruptAppendAfterFence(f: Awaited<ReturnType<typeof fixture>>, position: number) {
  return async (point: RebuildFaultPoint) => {
    if (point !== RebuildFaultPoint.afterFence) return;
    await f.memory.putIfAbsent(
      walKey(SHARD, position),
      new TextEncoder().encode('not a wal object'),
    );
  };
}

describe('rebuildShard', () => {
  describe('when its catch-up stops', () => {
    it('lifts the fence and takes a shard with nothing pending out of the pending index', async () => {
      const f = await fixture(dynalite());
      const s = new TestShard(f, SHARD);
      await s.keyless([{ n: 1 }]);
      await s.flush();
      const report = await rebuildShard(
        { ...recoveryDepsOf(f), faults: corruptAppendAfterFence(f, 1) },
        SHARD,
      );
      expect(report.status).toBe('stopped');
      expect(report.stoppedAt).toMatchObject({ reason: 'corrupt', position: 1 });
      expect(await readShardRecord(f.table, SHARD)).toMatchObject({
        poison: undefined,
        rebuildEpoch: undefined,
        leaseOwner: undefined,
        pending: false,
        bufferedBytes: 0,
      });
      expect(await listPendingShards(f.table)).toEqual([]);
    });

    it('puts back the poison the shard had, and keeps a pending shard in the index', async () => {
      const f = await fixture(dynalite());
      const s = new TestShard(f, SHARD);
      await s.keyless([{ n: 1 }]);
      await s.flush();
      await s.keyless([{ n: 2 }]);
      await updateShardRecord(
        f.table,
        SHARD,
        { update: 'SET poison = :p', values: { ':p': { S: 'diverged at position 1' } } },
        'poison',
      );
      const report = await rebuildShard(
        { ...recoveryDepsOf(f), faults: corruptAppendAfterFence(f, 1) },
        SHARD,
      );
      expect(report.status).toBe('stopped');
      expect(await readShardRecord(f.table, SHARD)).toMatchObject({
        poison: 'diverged at position 1',
        rebuildEpoch: undefined,
        leaseOwner: undefined,
        pending: true,
      });
      expect(await listPendingShards(f.table)).toEqual([SHARD]);
    });
  });
});
