import { describe, expect, it } from 'vitest';
import { FaultPoint } from '../../lib/flush/fault-points.js';
import { type FlushOutcome, flushShard } from '../../lib/flush/flush-shard.js';
import { listPendingShards } from '../../lib/memtable/pending-index.js';
import { readShardRecord } from '../../lib/memtable/shard-record.js';
import { pauseAt } from '../support/fault-gates.js';
import { fixture, useDynalite } from '../support/harness.js';
import { type AckedBatch, drain, expectWalHolds, putBatch } from '../support/wal-chain.js';

const dynalite = useDynalite();
const SHARD = 'z1';

type Status = FlushOutcome['status'];

/** The newer flusher's outcome: which position it wrote, which seqs, and whether it adopted. */
const wrote = (position: number, firstSeq: number, lastSeq: number, adopted = false) =>
  ({ status: 'flushed', position, firstSeq, lastSeq, adopted }) as const;

/**
 * Per point the zombie is paused at: how it ends, whether its own commit
 * landed (always before the newer flusher claimed), and what the newer
 * flusher does meanwhile: takes P0, adopts the zombie's P0, or follows the
 * zombie's commit at P1.
 */
const CASES: Array<{
  point: FaultPoint;
  zombie: Status;
  committed: boolean;
  second: Partial<FlushOutcome>;
}> = [
  { point: FaultPoint.afterClaim, zombie: 'fenced', committed: false, second: wrote(0, 1, 5) },
  { point: FaultPoint.afterResolve, zombie: 'fenced', committed: false, second: wrote(0, 1, 5) },
  {
    point: FaultPoint.afterWalWrite,
    zombie: 'fenced',
    committed: false,
    second: wrote(0, 1, 3, true),
  },
  // Paused after its own commit: nothing is left to do.
  { point: FaultPoint.afterCommit, zombie: 'flushed', committed: true, second: wrote(1, 4, 5) },
];

/** The lease outlives the gap-seal timeout (as the defaults do), or the other way round. */
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
    it('covers every fault point of a flush that has batches to write', () => {
      // `beforeClearPending` is reached only by a claim that finds nothing pending (crash.test.ts).
      const points = Object.values(FaultPoint).filter((p) => p !== FaultPoint.beforeClearPending);
      expect(CASES.map((c) => c.point).sort()).toEqual(points.sort());
    });

    describe.each(CLOCKS)('with $name', ({ settings }) => {
      it.each(CASES)(
        'loses, duplicates and reorders nothing when paused at $point while a newer flusher commits',
        async ({ point, zombie: expected, committed, second: secondExpected }) => {
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
          expect(second).toMatchObject(secondExpected);
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

    it('returns idle with no store call when the shard was drained between its listing and its claim', async () => {
      const f = await fixture(dynalite());
      await putBatch(f.put, SHARD, rows(1));
      const listed = await listPendingShards(f.table);
      expect(await flushShard(f.flushDeps('first'), SHARD)).toMatchObject({ status: 'flushed' });
      f.store.reset();
      expect(listed).toEqual([SHARD]);
      expect(await flushShard(f.flushDeps('late'), SHARD)).toEqual({
        status: 'idle',
        shard: SHARD,
      });
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
