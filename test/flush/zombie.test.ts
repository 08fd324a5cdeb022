import { describe, expect, it } from 'vitest';
import { FaultPoint } from '../../lib/flush/fault-points.js';
import { type FlushOutcome, flushShard } from '../../lib/flush/flush-shard.js';
import { readShardRecord } from '../../lib/memtable/shard-record.js';
import { pauseAt } from '../support/fault-gates.js';
import { fixture, useDynalite } from '../support/harness.js';
import { type AckedBatch, drain, expectWalHolds, putBatch } from '../support/wal-chain.js';

const dynalite = useDynalite();
const SHARD = 'z1';

type Status = FlushOutcome['status'];

/**
 * What the zombie ends with, per point it was paused at, and whether its own
 * commit landed (before the newer flusher claimed). Two clocks: the lease
 * outlives the gap-seal timeout (the defaults), or the other way round.
 */
const CASES: Array<{ point: FaultPoint; zombie: Status; committed: boolean }> = [
  // Paused before claiming: it claims afterwards as a fresh flusher and flushes what came since.
  { point: FaultPoint.afterRead, zombie: 'flushed', committed: true },
  { point: FaultPoint.afterClaim, zombie: 'fenced', committed: false },
  { point: FaultPoint.afterResolve, zombie: 'fenced', committed: false },
  { point: FaultPoint.afterWalWrite, zombie: 'fenced', committed: false },
  // Paused after its own commit: it committed before the newer flusher claimed; only tidying is left.
  { point: FaultPoint.afterCommit, zombie: 'flushed', committed: true },
  { point: FaultPoint.beforeClearPending, zombie: 'flushed', committed: true },
];

/** What the newer flusher does meanwhile: takes P0, adopts the zombie's P0, or follows its commit at P1. */
const SECOND: Record<FaultPoint, Partial<FlushOutcome>> = {
  [FaultPoint.afterRead]: {
    status: 'flushed',
    position: 0,
    firstSeq: 1,
    lastSeq: 5,
    adopted: false,
  },
  [FaultPoint.afterClaim]: {
    status: 'flushed',
    position: 0,
    firstSeq: 1,
    lastSeq: 5,
    adopted: false,
  },
  [FaultPoint.afterResolve]: {
    status: 'flushed',
    position: 0,
    firstSeq: 1,
    lastSeq: 5,
    adopted: false,
  },
  [FaultPoint.afterWalWrite]: {
    status: 'flushed',
    position: 0,
    firstSeq: 1,
    lastSeq: 3,
    adopted: true,
  },
  [FaultPoint.afterCommit]: {
    status: 'flushed',
    position: 1,
    firstSeq: 4,
    lastSeq: 5,
    adopted: false,
  },
  [FaultPoint.beforeClearPending]: {
    status: 'flushed',
    position: 1,
    firstSeq: 4,
    lastSeq: 5,
    adopted: false,
  },
};

const CLOCKS = [
  { name: 'lease longer than gap seal', settings: { leaseMs: 60_000, gapSealMs: 30_000 } },
  { name: 'gap seal longer than lease', settings: { leaseMs: 10_000, gapSealMs: 30_000 } },
];

const rows = (i: number) => [
  { i, part: 'a' },
  { i, part: 'b' },
];

describe('flushShard', () => {
  describe('zombie flusher', () => {
    it('covers every fault point', () => {
      expect(CASES.map((c) => c.point).sort()).toEqual(Object.values(FaultPoint).sort());
    });

    describe.each(CLOCKS)('with $name', ({ settings }) => {
      it.each(CASES)(
        'loses, duplicates and reorders nothing when paused at $point while a newer flusher commits',
        async ({ point, zombie: expected, committed }) => {
          const f = await fixture(dynalite(), settings);
          const acked: AckedBatch[] = [];
          for (let i = 1; i <= 3; i++) acked.push(await putBatch(f.put, SHARD, rows(i)));

          const pause = pauseAt(point);
          const zombieRun = flushShard(f.flushDeps('zombie', { faults: pause.hook }), SHARD);
          await pause.reached;

          // Puts keep arriving while the zombie sleeps; then its lease runs out.
          for (let i = 4; i <= 5; i++) acked.push(await putBatch(f.put, SHARD, rows(i)));
          f.clock.advance(f.config.leaseMs + 1);

          const second = await flushShard(f.flushDeps('second'), SHARD);
          expect(second).toMatchObject(SECOND[point]);
          if (second.status !== 'flushed') return;

          for (let i = 6; i <= 7; i++) acked.push(await putBatch(f.put, SHARD, rows(i)));
          pause.release();
          const outcome = await zombieRun;

          expect(outcome.status).toBe(expected);
          expect(pause.passed.includes(FaultPoint.afterCommit)).toBe(committed);
          if (outcome.status === 'fenced') {
            expect(outcome.position).toBe(0);
            expect(outcome.epoch).toBeLessThan(second.epoch);
          }
          const record = await readShardRecord(f.table, SHARD);
          expect(record?.poison).toBeUndefined();

          f.clock.advance(f.config.gapSealMs + 1);
          await drain(f.flushDeps('third'), SHARD);
          await expectWalHolds(f.memory, f.table, SHARD, acked);
        },
      );
    });

    it('returns idle, not a gap, when a racing flusher drained the shard between its read and claim', async () => {
      const f = await fixture(dynalite());
      await putBatch(f.put, SHARD, rows(1));
      const pause = pauseAt(FaultPoint.afterRead);
      const lateRun = flushShard(f.flushDeps('late', { faults: pause.hook }), SHARD);
      await pause.reached;
      expect(await flushShard(f.flushDeps('first'), SHARD)).toMatchObject({ status: 'flushed' });
      f.store.reset();
      pause.release();
      expect(await lateRun).toEqual({ status: 'idle', shard: SHARD });
      expect(f.store.counts().putIfAbsent).toBe(0);
      const record = await readShardRecord(f.table, SHARD);
      expect(record).toMatchObject({ pending: false, leaseOwner: undefined });
    });
  });

  describe('two flushers racing', () => {
    it('keeps one effective flusher while puts and flushes run concurrently', async () => {
      const f = await fixture(dynalite(), { maxWalObjectBytes: 200 });
      const acked: AckedBatch[] = [];
      const statuses = new Set<Status>();
      let next = 0;
      for (let round = 0; round < 12; round++) {
        const puts = Array.from({ length: 4 }, () => putBatch(f.put, SHARD, [{ n: next++ }]));
        const flushes = ['a', 'b'].map((owner) => flushShard(f.flushDeps(owner), SHARD));
        const [batches, outcomes] = await Promise.all([Promise.all(puts), Promise.all(flushes)]);
        acked.push(...batches);
        for (const outcome of outcomes) statuses.add(outcome.status);
      }
      // A live lease admits one claimant: the loser is busy, never fenced, never poisoned.
      expect([...statuses].filter((s) => s === 'fenced' || s === 'poisoned')).toEqual([]);
      expect(statuses.has('flushed')).toBe(true);
      await drain(f.flushDeps('c'), SHARD);
      await expectWalHolds(f.memory, f.table, SHARD, acked);
    });
  });
});
