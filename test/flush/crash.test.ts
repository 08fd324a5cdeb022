import { describe, expect, it } from 'vitest';
import { FaultPoint, SimulatedCrash } from '../../lib/flush/fault-points.js';
import { flushShard } from '../../lib/flush/flush-shard.js';
import { listPendingShards } from '../../lib/memtable/pending-index.js';
import { readShardRecord } from '../../lib/memtable/shard-record.js';
import { walKey } from '../../lib/paths.js';
import { FaultyObjectStore } from '../../lib/store/faulty-store.js';
import { MemoryObjectStore } from '../../lib/store/memory-store.js';
import { runTick } from '../../lib/ticker/tick.js';
import { crashAt } from '../support/fault-gates.js';
import { type Fixture, fixture, useDynalite } from '../support/harness.js';
import { type AckedBatch, drain, expectWalHolds, putBatch } from '../support/wal-chain.js';

const dynalite = useDynalite();
const SHARD = 'c1';

async function putSome(f: Fixture, from: number, to: number): Promise<AckedBatch[]> {
  const acked: AckedBatch[] = [];
  for (let i = from; i <= to; i++) acked.push(await putBatch(f.put, SHARD, [{ i }]));
  return acked;
}

const totalStoreCalls = (f: Fixture) =>
  Object.values(f.store.counts()).reduce((sum, n) => sum + n, 0);

describe('flushShard', () => {
  describe('crash between the WAL write and the commit', () => {
    it('adopts the object at P on the next flush instead of rewriting it', async () => {
      const f = await fixture(dynalite());
      const acked = await putSome(f, 1, 3);
      const crash = crashAt(FaultPoint.afterWalWrite);
      await expect(
        flushShard(f.flushDeps('crashed', { faults: crash.hook }), SHARD),
      ).rejects.toBeInstanceOf(SimulatedCrash);
      const written = await f.memory.get(walKey(SHARD, 0));
      expect(written).toBeDefined();
      expect(await readShardRecord(f.table, SHARD)).toMatchObject({ durableSeq: 0, walNextPos: 0 });

      // The dead flusher's lease still blocks claims, and costs no store call.
      f.store.reset();
      expect(await flushShard(f.flushDeps('early'), SHARD)).toMatchObject({ status: 'busy' });
      expect(totalStoreCalls(f)).toBe(0);

      acked.push(...(await putSome(f, 4, 5)));
      f.clock.advance(f.config.leaseMs + 1);
      const next = await flushShard(f.flushDeps('next'), SHARD);
      expect(next).toMatchObject({
        status: 'flushed',
        position: 0,
        firstSeq: 1,
        lastSeq: 3,
        adopted: true,
        more: true,
      });
      expect(f.memory.keys()).toEqual([walKey(SHARD, 0)]);
      expect(await f.memory.get(walKey(SHARD, 0))).toEqual(written);
      expect(await readShardRecord(f.table, SHARD)).toMatchObject({
        durableSeq: 3,
        walNextPos: 1,
        nextRowOffset: 3,
      });
      await drain(f.flushDeps('next'), SHARD);
      await expectWalHolds(f.memory, f.table, SHARD, acked);
    });

    it('adopts its own write when the store lost the acknowledgement', async () => {
      const dynaliteServer = dynalite();
      const memory = new MemoryObjectStore();
      const faulty = new FaultyObjectStore(memory, { script: { putIfAbsent: ['lostAck'] } });
      const f = await fixture(dynaliteServer, {}, faulty);
      const acked = await putSome(f, 1, 2);

      await expect(flushShard(f.flushDeps('a'), SHARD)).rejects.toThrow(/acknowledgement was lost/);
      expect(memory.keys()).toEqual([walKey(SHARD, 0)]);
      const written = await memory.get(walKey(SHARD, 0));
      expect(await readShardRecord(f.table, SHARD)).toMatchObject({
        durableSeq: 0,
        walNextPos: 0,
        leaseOwner: undefined,
      });

      // The lease was released on the transient error: no clock advance needed.
      const next = await flushShard(f.flushDeps('a'), SHARD);
      expect(next).toMatchObject({ status: 'flushed', position: 0, lastSeq: 2, adopted: true });
      expect(f.store.counts().putIfAbsent).toBe(2);
      expect(memory.keys()).toEqual([walKey(SHARD, 0)]);
      expect(await memory.get(walKey(SHARD, 0))).toEqual(written);
      await expectWalHolds(memory, f.table, SHARD, acked);
    });
  });

  describe('crash after the commit', () => {
    it('leaves the shard drained when the commit covered every batch (C5), and the next tick idle', async () => {
      const f = await fixture(dynalite());
      const acked = await putSome(f, 1, 3);
      await expect(
        flushShard(f.flushDeps('crashed', { faults: crashAt(FaultPoint.afterCommit).hook }), SHARD),
      ).rejects.toBeInstanceOf(SimulatedCrash);
      expect(await readShardRecord(f.table, SHARD)).toMatchObject({
        durableSeq: 3,
        walNextPos: 1,
        pending: false,
        bufferedBytes: 0,
      });
      expect(await listPendingShards(f.table)).toEqual([]);

      f.store.reset();
      const summary = await runTick({ flush: f.flushDeps('tick'), concurrency: 1 });
      expect(summary.outcomes).toEqual([]);
      expect(totalStoreCalls(f)).toBe(0);
      await expectWalHolds(f.memory, f.table, SHARD, acked);
    });
  });

  describe('crash at any point', () => {
    // Step 7 on its own (`beforeClearPending`) only tidies a stale marker: pending-marker.test.ts.
    const onTheFlushPath = Object.values(FaultPoint).filter(
      (point) => point !== FaultPoint.beforeClearPending,
    );
    it.each(onTheFlushPath)(
      'leaves a state the next flushes complete without loss or duplication when crashed at %s',
      async (point) => {
        const f = await fixture(dynalite(), { maxWalObjectBytes: 40 });
        const acked = await putSome(f, 1, 4);
        const crash = crashAt(point);
        await expect(
          flushShard(f.flushDeps('crashed', { faults: crash.hook }), SHARD),
        ).rejects.toBeInstanceOf(SimulatedCrash);
        expect(crash.passed.at(-1)).toBe(point);
        const committed = point === FaultPoint.afterCommit;
        const record = await readShardRecord(f.table, SHARD);
        expect(record?.walNextPos).toBe(committed ? 1 : 0);
        expect(record?.leaseOwner).toBe(committed ? undefined : 'crashed');

        acked.push(...(await putSome(f, 5, 6)));
        if (!committed) {
          expect(await flushShard(f.flushDeps('early'), SHARD)).toMatchObject({ status: 'busy' });
          f.clock.advance(f.config.leaseMs + 1);
        }
        const outcomes = await drain(f.flushDeps('next'), SHARD);
        expect(outcomes[0]).toMatchObject({
          status: 'flushed',
          position: committed ? 1 : 0,
          adopted: point === FaultPoint.afterWalWrite,
        });
        const objects = await expectWalHolds(f.memory, f.table, SHARD, acked);
        expect(objects.length).toBe(outcomes.length - 1 + (committed ? 1 : 0));
        expect(f.store.counts().putIfAbsent).toBe(
          objects.length + (point === FaultPoint.afterWalWrite ? 1 : 0),
        );
      },
    );
  });
});
