import { describe, expect, it } from 'vitest';
import { MemoryObjectStore } from '../../lib/store/memory-store.js';
import { appendTable } from '../../lib/table/append.js';
import { currentSnapshot, loadCurrent } from '../../lib/table/metadata.js';
import { tableHighWater } from '../../lib/table/progress.js';
import { readTable, testDeps, WalWriter } from './helpers.js';

describe('appendTable', () => {
  describe('a first commit', () => {
    it('appends every row of the WAL with its columns, and a re-run appends nothing', async () => {
      const store = new MemoryObjectStore();
      const deps = testDeps(store);
      const wal = new WalWriter(store, 'clicks-0');
      const t0 = Date.UTC(2026, 11, 1, 10);
      await wal.append([{ text: '{"a":1}' }, { text: '{"a":1.50}' }], t0);
      // WAL v2 records no per-batch time: the object's createdAtMs stands in.
      await wal.append(
        [
          { key: '"k1"', text: '{"v":"x"}' },
          { key: '"k1"', delete: true },
        ],
        t0 + 1000,
      );

      const report = await appendTable(deps, 'clicks_0', ['clicks-0']);
      expect(report).toMatchObject({
        status: 'committed',
        version: 1,
        rows: 4,
        appended: { 'clicks-0': [0, 2] },
      });
      const rows = await readTable(deps, 'clicks_0');
      expect(
        rows.map((r) => [r.shard, r.seq, r.offset, r.position, r.ingested_at, r.key, r.op, r.row]),
      ).toEqual([
        ['clicks-0', 1, 0, 0, t0, null, 'append', '{"a":1}'],
        ['clicks-0', 1, 1, 0, t0, null, 'append', '{"a":1.50}'],
        ['clicks-0', 2, 2, 1, t0 + 1000, '"k1"', 'upsert', '{"v":"x"}'],
        ['clicks-0', 2, 3, 1, t0 + 1000, '"k1"', 'delete', null],
      ]);

      deps.clock.ms += 60_000;
      expect((await appendTable(deps, 'clicks_0', ['clicks-0'])).status).toBe('nothing-new');
      await wal.append([{ text: '{"a":2}' }], t0 + 2000);
      const second = await appendTable(deps, 'clicks_0', ['clicks-0']);
      expect(second).toMatchObject({
        status: 'committed',
        version: 2,
        rows: 1,
        appended: { 'clicks-0': [2, 3] },
      });
      expect((await readTable(deps, 'clicks_0')).map((r) => r.offset)).toEqual([0, 1, 2, 3, 4]);
      const loaded = await loadCurrent(store, 'clicks_0');
      expect(tableHighWater(loaded?.metadata)).toEqual({ 'clicks-0': 3 });
      expect(currentSnapshot(loaded!.metadata)?.summary['total-records']).toBe('5');
    });
  });

  describe('with a byte budget smaller than the new WAL', () => {
    it('takes turns between shards, so a busy shard never starves the others', async () => {
      const store = new MemoryObjectStore();
      const deps = testDeps(store);
      deps.config.maxCommitBytes = 1;
      const a = new WalWriter(store, 'a');
      const b = new WalWriter(store, 'b');
      for (let round = 0; round < 4; round++) {
        await a.append([{ text: `{"a":${round}}` }], Date.UTC(2026, 11, 1) + round);
        if (round === 0) await b.append([{ text: '{"b":0}' }], Date.UTC(2026, 11, 1));
        expect((await appendTable(deps, 't', ['a', 'b'])).status).toBe('committed');
        deps.clock.ms += 60_000;
      }
      expect(tableHighWater((await loadCurrent(store, 't'))?.metadata)).toEqual({ a: 3, b: 1 });
    });
  });
});
