/**
 * Step 7 on its own: a claim that finds nothing pending on a shard still in
 * the pending index (a marker left by a flusher of the earlier protocol, see
 * `leaveStaleMarker`) releases its lease and clears the marker only if no put
 * arrived since (condition on `nextSeq`).
 */
import { describe, expect, it } from 'vitest';
import { FaultPoint, SimulatedCrash } from '../../lib/flush/fault-points.js';
import { flushShard } from '../../lib/flush/flush-shard.js';
import { listPendingShards } from '../../lib/memtable/pending-index.js';
import { readShardRecord } from '../../lib/memtable/shard-record.js';
import { runTick } from '../../lib/ticker/tick.js';
import { crashAt } from '../support/fault-gates.js';
import { fixture, useDynalite } from '../support/harness.js';
import {
  type AckedBatch,
  drain,
  expectWalHolds,
  leaveStaleMarker,
  putBatch,
} from '../support/wal-chain.js';

const dynalite = useDynalite();
const SHARD = 'stale';

describe('flushShard', () => {
  describe('on a shard in the pending index with nothing pending', () => {
    it('clears the marker and the charged bytes, with no store call and no lease left', async () => {
      const f = await fixture(dynalite());
      await putBatch(f.put, SHARD, [{ n: 1 }]);
      await drain(f.flushDeps('ticker'), SHARD);
      await leaveStaleMarker(f, SHARD, 7);
      f.store.reset();
      expect(await flushShard(f.flushDeps('tidy'), SHARD)).toEqual({
        status: 'idle',
        shard: SHARD,
      });
      expect(f.store.counts().putIfAbsent).toBe(0);
      expect(await readShardRecord(f.table, SHARD)).toMatchObject({
        pending: false,
        bufferedBytes: 0,
        leaseOwner: undefined,
      });
      expect(await listPendingShards(f.table)).toEqual([]);
    });

    it('leaves the marker for the next tick to clear, with no store call, when crashed before clearing it', async () => {
      const f = await fixture(dynalite());
      const acked: AckedBatch[] = [await putBatch(f.put, SHARD, [{ n: 1 }])];
      await drain(f.flushDeps('ticker'), SHARD);
      await leaveStaleMarker(f, SHARD);
      await expect(
        flushShard(
          f.flushDeps('crashed', { faults: crashAt(FaultPoint.beforeClearPending).hook }),
          SHARD,
        ),
      ).rejects.toBeInstanceOf(SimulatedCrash);
      // It released its lease before tidying: nothing blocks the next tick.
      expect(await readShardRecord(f.table, SHARD)).toMatchObject({
        durableSeq: 1,
        pending: true,
        leaseOwner: undefined,
      });

      f.store.reset();
      const summary = await runTick({
        flush: f.flushDeps('tick'),
        concurrency: 1,
        maxShardsPerTick: 10,
      });
      expect(summary.outcomes).toEqual([{ status: 'idle', shard: SHARD }]);
      expect(Object.values(f.store.counts()).reduce((sum, n) => sum + n, 0)).toBe(0);
      expect(await listPendingShards(f.table)).toEqual([]);
      await expectWalHolds(f.memory, f.table, SHARD, acked);
    });

    it('keeps the marker of a put that allocated while it tidied', async () => {
      const f = await fixture(dynalite());
      const acked: AckedBatch[] = [await putBatch(f.put, SHARD, [{ n: 1 }])];
      await drain(f.flushDeps('ticker'), SHARD);
      await leaveStaleMarker(f, SHARD);
      const outcome = await flushShard(
        f.flushDeps('tidy', {
          faults: async (point) => {
            if (point === FaultPoint.beforeClearPending) {
              acked.push(await putBatch(f.put, SHARD, [{ n: 2 }]));
            }
          },
        }),
        SHARD,
      );
      expect(outcome).toEqual({ status: 'idle', shard: SHARD });
      expect(await readShardRecord(f.table, SHARD)).toMatchObject({ pending: true, nextSeq: 3 });
      expect(await listPendingShards(f.table)).toEqual([SHARD]);
      await drain(f.flushDeps('ticker'), SHARD);
      await expectWalHolds(f.memory, f.table, SHARD, acked);
    });
  });
});
