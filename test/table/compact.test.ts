import { describe, expect, it } from 'vitest';
import { MemoryObjectStore } from '../../lib/store/memory-store.js';
import { appendTable } from '../../lib/table/append.js';
import { compactTable } from '../../lib/table/compact.js';
import { expireSnapshots } from '../../lib/table/expire.js';
import { TableFaultPoint } from '../../lib/table/fault-points.js';
import { currentSnapshot, loadCurrent } from '../../lib/table/metadata.js';
import { removeOrphans } from '../../lib/table/orphans.js';
import { tableHighWater } from '../../lib/table/progress.js';
import { currentDataFiles } from '../../lib/table/table-status.js';
import { readTable, testConfig, testDeps, WalWriter } from './helpers.js';

const T0 = Date.UTC(2026, 11, 1, 10);
class Crash extends Error {}

/** A table `t` over shards a and b with `commits` appends (one small file each per commit). */
async function smallFiles(commits: number) {
  const store = new MemoryObjectStore();
  const config = testConfig(
    '*=t',
    {},
    { t: { partition: 'day', columns: [{ name: 'v', type: 'decimal(6,2)' }] } },
  );
  const deps = testDeps(store, config);
  const a = new WalWriter(store, 'a');
  const b = new WalWriter(store, 'b');
  for (let i = 0; i < commits; i++) {
    await a.append([{ text: `{"v":${i}.25}` }, { text: `{"v":"x${i}"}` }], T0 + i);
    await b.append([{ key: `"k${i % 2}"`, text: `{"v":${i}}` }], T0 + i);
    expect((await appendTable(deps, 't', ['a', 'b'])).status).toBe('committed');
    deps.clock.ms += 60_000;
  }
  return { store, deps, a, b };
}

describe('compactTable', () => {
  it('merges the small files of a partition into one, changing no row and no high-water', async () => {
    const { store, deps } = await smallFiles(4);
    const before = await readTable(deps, 't');
    const hw = tableHighWater((await loadCurrent(store, 't'))?.metadata);
    expect(await currentDataFiles(deps, 't')).toHaveLength(4);
    const report = await compactTable(deps, 't');
    expect(report).toMatchObject({ status: 'compacted', replaced: 4, added: 1, rows: 12 });
    expect(await currentDataFiles(deps, 't')).toHaveLength(1);
    expect(await readTable(deps, 't')).toEqual(before);
    const loaded = (await loadCurrent(store, 't'))!;
    expect(tableHighWater(loaded.metadata)).toEqual(hw);
    expect(currentSnapshot(loaded.metadata)?.summary).toMatchObject({
      operation: 'replace',
      'total-records': '12',
      'deleted-data-files': '4',
    });
    expect((await compactTable(deps, 't')).status).toBe('nothing-to-do');
  });

  for (const point of [
    TableFaultPoint.compactAfterDataFile,
    TableFaultPoint.compactAfterManifests,
    TableFaultPoint.afterCommit,
  ]) {
    it(`loses and repeats no row when it died at ${point}`, async () => {
      const { deps, a } = await smallFiles(3);
      const before = await readTable(deps, 't');
      deps.faults = (at) => {
        if (at === point) throw new Crash(at);
      };
      await expect(compactTable(deps, 't')).rejects.toBeInstanceOf(Crash);
      deps.faults = undefined;
      await compactTable(deps, 't');
      expect(await readTable(deps, 't')).toEqual(before);
      await a.append([{ text: '{"v":9}' }], T0 + 9);
      expect((await appendTable(deps, 't', ['a', 'b'])).status).toBe('committed');
      deps.clock.ms += deps.config.orphanAgeMs + 1;
      await expireSnapshots(deps, 't');
      await removeOrphans(deps, 't');
      const after = await readTable(deps, 't');
      expect(after.filter((r) => r.shard === 'a').map((r) => r.offset)).toEqual([
        0, 1, 2, 3, 4, 5, 6,
      ]);
      expect(after.filter((r) => r.shard === 'b').map((r) => r.offset)).toEqual([0, 1, 2]);
    });
  }

  it('re-applies on the base an append committed meanwhile, and the append re-applies on a compaction', async () => {
    const { deps, a } = await smallFiles(3);
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    deps.faults = async (at) => {
      if (at === TableFaultPoint.compactAfterManifests) await held;
    };
    const compaction = compactTable(deps, 't');
    await new Promise((resolve) => setTimeout(resolve, 20));
    await a.append([{ text: '{"v":7}' }], T0 + 7);
    expect((await appendTable({ ...deps, faults: undefined }, 't', ['a'])).status).toBe(
      'committed',
    );
    release();
    expect(await compaction).toMatchObject({ status: 'compacted', conflicts: 1 });
    const rows = await readTable(deps, 't');
    expect(rows.filter((r) => r.shard === 'a').map((r) => r.offset)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(rows).toHaveLength(10);
  });

  it('starts over rather than re-apply when a racing compaction replaced its files first', async () => {
    const { deps } = await smallFiles(3);
    const before = await readTable(deps, 't');
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    deps.faults = async (at) => {
      if (at === TableFaultPoint.compactAfterManifests) await held;
    };
    const first = compactTable(deps, 't');
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect((await compactTable({ ...deps, faults: undefined }, 't')).status).toBe('compacted');
    release();
    expect(await first).toMatchObject({ status: 'nothing-to-do', conflicts: 1 });
    expect(await readTable(deps, 't')).toEqual(before);
  });

  it('leaves the replaced files to older snapshots until expiry, then deletes them', async () => {
    const { store, deps } = await smallFiles(3);
    const oldFiles = await currentDataFiles(deps, 't');
    await compactTable(deps, 't');
    const location = (await loadCurrent(store, 't'))!.metadata.location;
    const key = (uri: string) => `tables/t/${uri.slice(location.length + 1)}`;
    for (const file of oldFiles) expect(await store.get(key(file))).toBeDefined();
    deps.config.keepSnapshots = 1;
    await expireSnapshots(deps, 't');
    for (const file of oldFiles) expect(await store.get(key(file))).toBeUndefined();
    expect(await readTable(deps, 't')).toHaveLength(9);
  });
});
