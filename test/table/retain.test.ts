import { describe, expect, it } from 'vitest';
import { MemoryObjectStore } from '../../lib/store/memory-store.js';
import { appendTable } from '../../lib/table/append.js';
import { expireSnapshots } from '../../lib/table/expire.js';
import { TableFaultPoint } from '../../lib/table/fault-points.js';
import { currentSnapshot, loadCurrent } from '../../lib/table/metadata.js';
import { removeOrphans } from '../../lib/table/orphans.js';
import { tableHighWater } from '../../lib/table/progress.js';
import { retainHistory } from '../../lib/table/retain.js';
import { currentDataFiles } from '../../lib/table/table-status.js';
import { type ReadRow, readTable, testConfig, testDeps, WalWriter } from './helpers.js';

const T0 = Date.UTC(2026, 11, 1, 10);
class Crash extends Error {}

/**
 * A table `t` gathering shards a (keyless rows) and b (a keyed row and a
 * keyless one per object), `commits` appends of one WAL object each.
 */
async function history(commits: number) {
  const store = new MemoryObjectStore();
  const config = testConfig(
    '*=t',
    {},
    { t: { partition: 'day', columns: [{ name: 'v', type: 'long' }] } },
  );
  const deps = testDeps(store, config);
  const a = new WalWriter(store, 'a');
  const b = new WalWriter(store, 'b');
  for (let i = 0; i < commits; i++) {
    await a.append([{ text: `{"v":${i}}` }, { text: `{"v":${i + 100}}` }], T0 + i);
    await b.append([{ key: `"k${i % 2}"`, text: `{"v":${i}}` }, { text: `{"w":${i}}` }], T0 + i);
    expect((await appendTable(deps, 't', ['a', 'b'])).status).toBe('committed');
    deps.clock.ms += 60_000;
  }
  return { store, deps, a, b };
}

const keptFrom = (floors: Record<string, number>) => async (shards: readonly string[]) =>
  new Map(shards.map((shard) => [shard, floors[shard] ?? 0]));

/** What retention must leave of `rows`: keyed rows, and keyless ones at or above their shard's floor. */
const kept = (rows: ReadRow[], floors: Record<string, number>) =>
  rows.filter((r) => r.key !== null || r.position >= (floors[r.shard] ?? 0));

describe('retainHistory', () => {
  it('removes keyless rows below each shard’s cursor, keeps keyed rows and everything above, and the high-water', async () => {
    const { store, deps } = await history(4);
    const before = await readTable(deps, 't');
    const loadedBefore = (await loadCurrent(store, 't'))!;
    const floors = { a: 2, b: 3 };

    const report = await retainHistory({ ...deps, historyKeptFrom: keptFrom(floors) }, 't', [
      'a',
      'b',
    ]);

    // a: positions 0 and 1 (two rows each); b: the keyless rows of positions 0-2.
    expect(report).toMatchObject({ status: 'removed', rows: 7 });
    const after = await readTable(deps, 't');
    expect(after).toEqual(kept(before, floors));
    expect(after.filter((r) => r.shard === 'b' && r.key !== null)).toHaveLength(4);
    const loaded = (await loadCurrent(store, 't'))!;
    expect(tableHighWater(loaded.metadata)).toEqual(tableHighWater(loadedBefore.metadata));
    expect(currentSnapshot(loaded.metadata)?.summary).toMatchObject({
      operation: 'overwrite',
      'total-records': String(before.length - 7),
    });
    expect(
      (await retainHistory({ ...deps, historyKeptFrom: keptFrom(floors) }, 't', ['a', 'b'])).status,
    ).toBe('nothing-to-do');
  });

  it('commits a delete when every row of the files it rewrites leaves', async () => {
    const store = new MemoryObjectStore();
    const deps = testDeps(store, testConfig('a=t'));
    const a = new WalWriter(store, 'a');
    for (let i = 0; i < 3; i++) {
      await a.append([{ text: `{"v":${i}}` }], T0 + i);
      expect((await appendTable(deps, 't', ['a'])).status).toBe('committed');
      deps.clock.ms += 60_000;
    }
    const report = await retainHistory({ ...deps, historyKeptFrom: keptFrom({ a: 2 }) }, 't', [
      'a',
    ]);
    expect(report).toMatchObject({ status: 'removed', rewritten: 2, added: 0, rows: 2 });
    const snapshot = currentSnapshot((await loadCurrent(store, 't'))!.metadata)!;
    expect(snapshot.summary).toMatchObject({ operation: 'delete', 'total-records': '1' });
    expect((await readTable(deps, 't')).map((r) => r.position)).toEqual([2]);
  });

  it('changes nothing for shards whose history is kept whole, or that the table does not route', async () => {
    const { deps } = await history(3);
    const before = await readTable(deps, 't');
    expect(
      await retainHistory({ ...deps, historyKeptFrom: keptFrom({}) }, 't', ['a', 'b']),
    ).toMatchObject({
      status: 'nothing-to-do',
    });
    expect(
      await retainHistory({ ...deps, historyKeptFrom: keptFrom({ a: 3 }) }, 't', ['b']),
    ).toMatchObject({
      status: 'nothing-to-do',
    });
    expect(await readTable(deps, 't')).toEqual(before);
  });

  it('reads only the files whose bounds may hold rows below a cursor', async () => {
    const { store, deps } = await history(4);
    const files = await currentDataFiles(deps, 't');
    expect(files).toHaveLength(4);
    const read: string[] = [];
    const counting = new Proxy(store, {
      get(target, name) {
        if (name === 'get') {
          return (key: string) => {
            if (key.includes('/data/')) read.push(key);
            return target.get(key);
          };
        }
        const value = Reflect.get(target, name);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const report = await retainHistory(
      { ...deps, store: counting, historyKeptFrom: keptFrom({ a: 1 }) },
      't',
      ['a', 'b'],
    );
    expect(report).toMatchObject({ status: 'removed', rewritten: 1, rows: 2 });
    // The first commit's file (positions 0 of a and b); the other three start at position 1 or above.
    expect(read).toHaveLength(1);

    // A shard of keyed rows only: its files count no row without a key, so none is read.
    const k = new WalWriter(store, 'k');
    for (let i = 0; i < 2; i++) {
      await k.append([{ key: `"k${i}"`, text: `{"v":${i}}` }], T0 + i);
      expect((await appendTable(deps, 'u', ['k'])).status).toBe('committed');
      deps.clock.ms += 60_000;
    }
    read.length = 0;
    expect(
      await retainHistory({ ...deps, store: counting, historyKeptFrom: keptFrom({ k: 9 }) }, 'u', [
        'k',
      ]),
    ).toMatchObject({ status: 'nothing-to-do' });
    expect(read).toEqual([]);
  });

  for (const point of [
    TableFaultPoint.retainAfterDataFiles,
    TableFaultPoint.retainAfterManifests,
    TableFaultPoint.afterCommit,
  ]) {
    it(`loses no row it must keep and keeps none it removes when it died at ${point}`, async () => {
      const { deps, a } = await history(3);
      const floors = { a: 2, b: 1 };
      const expected = kept(await readTable(deps, 't'), floors);
      deps.faults = (at) => {
        if (at === point) throw new Crash(at);
      };
      await expect(
        retainHistory({ ...deps, historyKeptFrom: keptFrom(floors) }, 't', ['a', 'b']),
      ).rejects.toBeInstanceOf(Crash);
      deps.faults = undefined;
      await retainHistory({ ...deps, historyKeptFrom: keptFrom(floors) }, 't', ['a', 'b']);
      expect(await readTable(deps, 't')).toEqual(expected);
      await a.append([{ text: '{"v":9}' }], T0 + 9);
      expect((await appendTable(deps, 't', ['a', 'b'])).status).toBe('committed');
      deps.clock.ms += deps.config.orphanAgeMs + 1;
      await expireSnapshots(deps, 't');
      await removeOrphans(deps, 't');
      const after = await readTable(deps, 't');
      expect(after.filter((r) => r.shard === 'a').map((r) => r.offset)).toEqual([4, 5, 6]);
      expect(after.filter((r) => r.shard === 'b').map((r) => [r.offset, r.key])).toEqual([
        [0, '"k0"'],
        [2, '"k1"'],
        [3, null],
        [4, '"k0"'],
        [5, null],
      ]);
    });
  }

  it('re-applies on the base an append committed meanwhile', async () => {
    const { deps, a } = await history(3);
    const floors = { a: 2 };
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    deps.faults = async (at) => {
      if (at === TableFaultPoint.retainAfterManifests) await held;
    };
    const retention = retainHistory({ ...deps, historyKeptFrom: keptFrom(floors) }, 't', [
      'a',
      'b',
    ]);
    await new Promise((resolve) => setTimeout(resolve, 20));
    await a.append([{ text: '{"v":7}' }], T0 + 7);
    expect((await appendTable({ ...deps, faults: undefined }, 't', ['a'])).status).toBe(
      'committed',
    );
    release();
    expect(await retention).toMatchObject({ status: 'removed', conflicts: 1, rows: 4 });
    const rows = await readTable(deps, 't');
    expect(rows.filter((r) => r.shard === 'a').map((r) => r.offset)).toEqual([4, 5, 6]);
    expect(rows.filter((r) => r.shard === 'b')).toHaveLength(6);
  });
});
