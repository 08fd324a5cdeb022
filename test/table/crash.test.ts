import { describe, expect, it } from 'vitest';
import { MemoryObjectStore } from '../../lib/store/memory-store.js';
import { appendTable } from '../../lib/table/append.js';
import { TableFaultPoint } from '../../lib/table/fault-points.js';
import { loadCurrent } from '../../lib/table/metadata.js';
import { tableHighWater } from '../../lib/table/progress.js';
import { readTable, testDeps, WalWriter } from './helpers.js';

const T0 = Date.UTC(2026, 11, 1, 10);

class Crash extends Error {}

async function twoShards(store: MemoryObjectStore) {
  const a = new WalWriter(store, 'a');
  const b = new WalWriter(store, 'b');
  for (let i = 0; i < 3; i++) {
    await a.append([{ text: `{"a":${i}}` }, { text: `{"a":${i},"x":true}` }], T0 + i);
    await b.append([{ key: `"k${i}"`, text: `{"b":${i}}` }], T0 + i);
  }
  return { a, b };
}

/** Offsets per shard, in order: each row exactly once means 0..n-1 without repeats. */
function offsetsByShard(rows: Awaited<ReturnType<typeof readTable>>) {
  const out: Record<string, number[]> = {};
  for (const row of rows) {
    out[row.shard] ??= [];
    out[row.shard]!.push(row.offset);
  }
  return out;
}

describe('appendTable', () => {
  describe('after a crash', () => {
    const appendPoints = [
      TableFaultPoint.appendAfterDataFiles,
      TableFaultPoint.appendAfterManifest,
      TableFaultPoint.appendAfterManifestList,
      TableFaultPoint.afterCommit,
    ];
    for (const point of appendPoints) {
      it(`appends every row exactly once when the run died at ${point}`, async () => {
        const store = new MemoryObjectStore();
        const { a } = await twoShards(store);
        const deps = testDeps(store);
        deps.faults = (at) => {
          if (at === point) throw new Crash(at);
        };
        await expect(appendTable(deps, 'all', ['a', 'b'])).rejects.toBeInstanceOf(Crash);
        deps.faults = undefined;
        deps.clock.ms += 60_000;
        await appendTable(deps, 'all', ['a', 'b']);
        await a.append([{ text: '{"a":9}' }], T0 + 9);
        deps.clock.ms += 60_000;
        await appendTable(deps, 'all', ['a', 'b']);
        expect(offsetsByShard(await readTable(deps, 'all'))).toEqual({
          a: [0, 1, 2, 3, 4, 5, 6],
          b: [0, 1, 2],
        });
        expect(tableHighWater((await loadCurrent(store, 'all'))?.metadata)).toEqual({ a: 4, b: 3 });
      });
    }
  });

  describe('racing committers', () => {
    it('commits each position once when two committers of the same shards race', async () => {
      for (let seed = 1; seed <= 10; seed++) {
        const store = new MemoryObjectStore();
        const { a, b } = await twoShards(store);
        const one = testDeps(store, undefined, seed);
        const two = testDeps(store, undefined, seed + 100);
        const yieldAt = async () => {
          for (let i = 0; i < seed % 4; i++) await Promise.resolve();
        };
        one.faults = yieldAt;
        const reports = await Promise.all([
          appendTable(one, 'all', ['a', 'b']),
          appendTable(two, 'all', ['a', 'b']),
        ]);
        expect(reports.filter((r) => r.status === 'committed').length).toBeGreaterThanOrEqual(1);
        await a.append([{ text: '{"late":1}' }], T0 + 50);
        await b.append([{ key: '"k9"', delete: true }], T0 + 50);
        one.clock.ms += 60_000;
        two.clock.ms += 60_000;
        await Promise.all([
          appendTable(one, 'all', ['a', 'b']),
          appendTable(two, 'all', ['a', 'b']),
        ]);
        expect(offsetsByShard(await readTable(one, 'all'))).toEqual({
          a: [0, 1, 2, 3, 4, 5, 6],
          b: [0, 1, 2, 3],
        });
      }
    });

    it('re-applies its append on the new base when the winner appended other shards', async () => {
      const store = new MemoryObjectStore();
      await twoShards(store);
      const one = testDeps(store, undefined, 1);
      const two = testDeps(store, undefined, 2);
      let release: () => void = () => {};
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      one.faults = async (point) => {
        if (point === TableFaultPoint.appendAfterManifestList) await held;
      };
      const first = appendTable(one, 'all', ['a']);
      await new Promise((resolve) => setTimeout(resolve, 20));
      const second = await appendTable(two, 'all', ['b']);
      expect(second.status).toBe('committed');
      release();
      const report = await first;
      expect(report).toMatchObject({ status: 'committed', version: 2, conflicts: 1 });
      expect(offsetsByShard(await readTable(one, 'all'))).toEqual({
        a: [0, 1, 2, 3, 4, 5],
        b: [0, 1, 2],
      });
    });

    it('starts over when the winner appended the same shard', async () => {
      const store = new MemoryObjectStore();
      const { a } = await twoShards(store);
      const one = testDeps(store, undefined, 1);
      const two = testDeps(store, undefined, 2);
      let release: () => void = () => {};
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      one.faults = async (point) => {
        if (point === TableFaultPoint.appendAfterManifestList) await held;
      };
      const first = appendTable(one, 'all', ['a']);
      await new Promise((resolve) => setTimeout(resolve, 20));
      await a.append([{ text: '{"a":"new"}' }], T0 + 20);
      expect((await appendTable(two, 'all', ['a'])).status).toBe('committed');
      release();
      const report = await first;
      // Its rows were all committed by the winner: nothing left to append.
      expect(report).toMatchObject({ status: 'nothing-new', conflicts: 1 });
      expect(offsetsByShard(await readTable(one, 'all'))).toEqual({ a: [0, 1, 2, 3, 4, 5, 6] });
    });
  });
});
