import { describe, expect, it } from 'vitest';
import { flushShard } from '../../lib/flush/flush-shard.js';
import { encodeBatchRows } from '../../lib/memtable/batch-codec.js';
import { listPendingShards } from '../../lib/memtable/pending-index.js';
import { walPrefix } from '../../lib/paths.js';
import { runTick, type TickDeps } from '../../lib/ticker/tick.js';
import { type Fixture, fixture, useDynalite } from '../support/harness.js';
import { rowsOf } from '../support/rows.js';
import {
  type AckedBatch,
  drain,
  expectWalHolds,
  putBatch,
  readWalChain,
} from '../support/wal-chain.js';

const dynalite = useDynalite();
const SHARD = 'o1';

function tickDeps(f: Fixture, owner: string): TickDeps {
  return {
    flush: f.flushDeps(owner),
    concurrency: f.config.flushConcurrency,
    maxShardsPerTick: f.config.maxShardsPerTick,
  };
}

/** Ticks until no shard is pending; returns the tick count. */
async function tickUntilDrained(f: Fixture, maxTicks = 50): Promise<number> {
  for (let tick = 1; tick <= maxTicks; tick++) {
    await runTick(tickDeps(f, `tick-${tick}`));
    if ((await listPendingShards(f.table)).length === 0) return tick;
  }
  throw new Error(`not drained after ${maxTicks} ticks`);
}

const totalStoreCalls = (f: Fixture) =>
  Object.values(f.store.counts()).reduce((sum, n) => sum + n, 0);

describe('flushShard', () => {
  describe('ordering', () => {
    it('holds every acked batch once, in seq order, when 50 puts race on one shard', async () => {
      const f = await fixture(dynalite(), { maxWalObjectBytes: 400 });
      const acked = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          putBatch(f.put, SHARD, [
            { put: i, row: 0 },
            ...(i % 3 === 0 ? [{ put: i, row: 1 }] : []),
          ]),
        ),
      );
      // Allocation is linearizable: 50 distinct seqs, 1..50.
      expect(acked.map((b) => b.seq).sort((a, b) => a - b)).toEqual(
        Array.from({ length: 50 }, (_, i) => i + 1),
      );
      const ticks = await tickUntilDrained(f);
      const objects = await expectWalHolds(f.memory, f.table, SHARD, acked);
      // The cap split the backlog: several objects, one per tick.
      expect(objects.length).toBeGreaterThan(1);
      expect(objects.length).toBe(ticks);
      expect(objects.at(-1)?.header.lastSeq).toBe(50);
      expect(objects.reduce((sum, o) => sum + o.header.rowCount, 0)).toBe(50 + 17);
    });

    it('keeps seq order when ticks run while puts are still arriving', async () => {
      const f = await fixture(dynalite(), { maxWalObjectBytes: 300 });
      const acked: AckedBatch[] = [];
      const puts = Array.from({ length: 40 }, async (_, i) => {
        acked.push(await putBatch(f.put, SHARD, [{ put: i }]));
      });
      const ticks = (async () => {
        for (let tick = 0; tick < 8; tick++) await runTick(tickDeps(f, `early-${tick}`));
      })();
      await Promise.all([...puts, ticks]);
      await tickUntilDrained(f);
      await expectWalHolds(f.memory, f.table, SHARD, acked);
    });
  });

  describe('size cap', () => {
    it('splits pending batches across positions in order, one object per flush', async () => {
      const f = await fixture(dynalite(), { maxWalObjectBytes: 100 });
      const acked: AckedBatch[] = [];
      const bytesBySeq = new Map<number, number>();
      for (let i = 0; i < 12; i++) {
        const rows = [{ i, pad: 'x'.repeat(i % 4) }];
        acked.push(await putBatch(f.put, SHARD, rows));
        bytesBySeq.set(i + 1, encodeBatchRows(rowsOf(rows)).jsonBytes);
      }
      let flushes = 0;
      for (;;) {
        const before = f.store.counts().putIfAbsent;
        const outcome = await flushShard(f.flushDeps('a'), SHARD);
        if (outcome.status === 'idle') break;
        flushes++;
        expect(outcome.status).toBe('flushed');
        expect(f.store.counts().putIfAbsent - before).toBe(1);
      }
      const objects = await expectWalHolds(f.memory, f.table, SHARD, acked);
      expect(objects.length).toBe(flushes);
      expect(objects.length).toBeGreaterThan(2);
      for (const [index, { header }] of objects.entries()) {
        const bytes = [];
        for (let seq = header.firstSeq; seq <= header.lastSeq; seq++)
          bytes.push(bytesBySeq.get(seq)!);
        const total = bytes.reduce((a, b) => a + b, 0);
        // The cap is reached by the last batch in, never before it; only the final object may fall short.
        expect(total - bytes.at(-1)!).toBeLessThan(100);
        if (index < objects.length - 1) expect(total).toBeGreaterThanOrEqual(100);
      }
    });
  });

  describe('store cost', () => {
    it('makes no store call of any kind when nothing is pending', async () => {
      const f = await fixture(dynalite());
      expect(await flushShard(f.flushDeps('a'), 'never-written')).toEqual({
        status: 'idle',
        shard: 'never-written',
      });
      await putBatch(f.put, SHARD, [{ a: 1 }]);
      await drain(f.flushDeps('a'), SHARD);
      f.store.reset();
      expect(await flushShard(f.flushDeps('b'), SHARD)).toEqual({ status: 'idle', shard: SHARD });
      expect(totalStoreCalls(f)).toBe(0);
    });
  });
});

describe('runTick', () => {
  describe('active and idle shards', () => {
    it('writes exactly one object per active shard and touches no idle shard', async () => {
      const f = await fixture(dynalite());
      const active = ['act-0', 'act-1', 'act-2', 'act-3', 'act-4'];
      const idle = ['idle-0', 'idle-1', 'idle-2'];
      // Idle shards have history: written and drained before the tick.
      for (const shard of idle) {
        await putBatch(f.put, shard, [{ shard }]);
        await drain(f.flushDeps('setup'), shard);
      }
      const acked = new Map<string, AckedBatch[]>();
      for (const shard of active) {
        const batches = [];
        for (let i = 0; i < 3; i++) batches.push(await putBatch(f.put, shard, [{ shard, i }]));
        acked.set(shard, batches);
      }
      const keysBefore = f.memory.keys();
      f.store.reset();

      const summary = await runTick(tickDeps(f, 'tick'));

      expect(summary.activeShards).toBe(active.length);
      expect(summary.outcomes.map((o) => o.status)).toEqual(active.map(() => 'flushed'));
      expect(f.store.counts()).toEqual({
        putIfAbsent: active.length,
        get: 0,
        getStream: 0,
        list: 0,
        delete: 0,
      });
      const written = f.memory.keys().filter((key) => !keysBefore.includes(key));
      expect(written.sort()).toEqual(active.map((shard) => `${walPrefix(shard)}${'0'.repeat(20)}`));
      for (const shard of active) await expectWalHolds(f.memory, f.table, shard, acked.get(shard)!);
      expect((await readWalChain(f.memory, idle[0]!)).length).toBe(1);

      f.store.reset();
      const next = await runTick(tickDeps(f, 'tick-2'));
      expect(next.activeShards).toBe(0);
      expect(totalStoreCalls(f)).toBe(0);
    });
  });
});
