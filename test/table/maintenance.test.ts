import { describe, expect, it } from 'vitest';
import { MemoryObjectStore } from '../../lib/store/memory-store.js';
import { appendTable } from '../../lib/table/append.js';
import { expireSnapshots } from '../../lib/table/expire.js';
import { TableFaultPoint } from '../../lib/table/fault-points.js';
import { loadCurrent } from '../../lib/table/metadata.js';
import { removeOrphans } from '../../lib/table/orphans.js';
import { readTable, testDeps, WalWriter } from './helpers.js';

const T0 = Date.UTC(2026, 11, 1, 10);
class Crash extends Error {}

/** A table `t` of shard `s` with `commits` appends of two rows each. */
async function tableWith(commits: number) {
  const store = new MemoryObjectStore();
  const deps = testDeps(store);
  const wal = new WalWriter(store, 's');
  for (let i = 0; i < commits; i++) {
    await wal.append([{ text: `{"i":${i}}` }, { text: `{"i":${i},"b":1}` }], T0 + i);
    expect((await appendTable(deps, 't', ['s'])).status).toBe('committed');
    deps.clock.ms += 60_000;
  }
  return { store, deps, wal };
}

const offsets = async (deps: ReturnType<typeof testDeps>) =>
  (await readTable(deps, 't')).map((r) => r.offset);
const tableKeys = (store: MemoryObjectStore) => store.keys().filter((k) => k.startsWith('tables/'));

describe('expireSnapshots', () => {
  it('keeps the newest snapshots and deletes only the manifest lists no kept snapshot reaches', async () => {
    const { store, deps } = await tableWith(5);
    const before = tableKeys(store).length;
    const report = await expireSnapshots(deps, 't');
    expect(report).toMatchObject({ kept: 3, version: 6 });
    expect(report.expired).toHaveLength(2);
    // Fast appends carry every manifest forward: only the two manifest lists go.
    expect(report.deleted).toBe(2);
    expect(tableKeys(store).length).toBe(before - 2 + 1);
    expect(await offsets(deps)).toEqual([...Array(10).keys()]);
    expect((await loadCurrent(store, 't'))?.metadata.snapshots).toHaveLength(3);
  });

  it('keeps snapshots younger than the age limit whatever the count', async () => {
    const { deps } = await tableWith(5);
    deps.config.snapshotMaxAgeMs = 10 * 60_000;
    expect((await expireSnapshots(deps, 't')).expired).toEqual([]);
  });

  for (const point of [TableFaultPoint.expireAfterCommit, TableFaultPoint.expireDuringDeletes]) {
    it(`loses no row and leaves only orphans when it died at ${point}`, async () => {
      const { store, deps, wal } = await tableWith(5);
      deps.faults = (at) => {
        if (at === point) throw new Crash(at);
      };
      await expect(expireSnapshots(deps, 't')).rejects.toBeInstanceOf(Crash);
      deps.faults = undefined;
      await expireSnapshots(deps, 't');
      await wal.append([{ text: '{"late":1}' }], T0 + 99);
      expect((await appendTable(deps, 't', ['s'])).status).toBe('committed');
      deps.clock.ms += deps.config.orphanAgeMs + 1;
      const orphans = await removeOrphans(deps, 't');
      expect(orphans.deleted).toBe(point === TableFaultPoint.expireAfterCommit ? 2 : 1);
      expect(await offsets(deps)).toEqual([...Array(11).keys()]);
      void store;
    });
  }
});

describe('removeOrphans', () => {
  it('removes the files a crashed append left once they are old enough, and nothing referenced', async () => {
    const { store, deps, wal } = await tableWith(2);
    await wal.append([{ text: '{"x":1}' }], T0 + 50);
    deps.faults = (at) => {
      if (at === TableFaultPoint.appendAfterManifestList) throw new Crash(at);
    };
    await expect(appendTable(deps, 't', ['s'])).rejects.toBeInstanceOf(Crash);
    deps.faults = undefined;
    const young = await removeOrphans(deps, 't');
    expect(young.deleted).toBe(0);
    deps.clock.ms += deps.config.orphanAgeMs + 1;
    const keysBefore = tableKeys(store);
    const report = await removeOrphans(deps, 't');
    // The crashed attempt's data file, manifest and manifest list.
    expect(report.deleted).toBe(3);
    expect(tableKeys(store).length).toBe(keysBefore.length - 3);
    expect(await offsets(deps)).toEqual([0, 1, 2, 3]);
    expect((await appendTable(deps, 't', ['s'])).status).toBe('committed');
    expect(await offsets(deps)).toEqual([0, 1, 2, 3, 4]);
  });

  for (const point of [TableFaultPoint.orphansAfterScan, TableFaultPoint.orphansDuringDeletes]) {
    it(`loses no row when it died at ${point}`, async () => {
      const { deps, wal } = await tableWith(2);
      await wal.append([{ text: '{"x":1}' }], T0 + 50);
      deps.faults = (at) => {
        if (at === TableFaultPoint.appendAfterManifestList) throw new Crash(at);
      };
      await expect(appendTable(deps, 't', ['s'])).rejects.toBeInstanceOf(Crash);
      deps.clock.ms += deps.config.orphanAgeMs + 1;
      deps.faults = (at) => {
        if (at === point) throw new Crash(at);
      };
      await expect(removeOrphans(deps, 't')).rejects.toBeInstanceOf(Crash);
      deps.faults = undefined;
      await removeOrphans(deps, 't');
      expect(await offsets(deps)).toEqual([0, 1, 2, 3]);
    });
  }

  it('never removes the files of an append that commits while it runs', async () => {
    const { store, deps, wal } = await tableWith(1);
    await wal.append([{ text: '{"x":1}' }], T0 + 50);
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    // The append has written its files and waits; the removal scans meanwhile.
    deps.faults = async (at) => {
      if (at === TableFaultPoint.appendAfterManifestList) await held;
    };
    const append = appendTable(deps, 't', ['s']);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const other = { ...deps, faults: undefined };
    const removal = await removeOrphans(other, 't');
    expect(removal.deleted).toBe(0);
    release();
    expect((await append).status).toBe('committed');
    expect(await offsets(deps)).toEqual([0, 1, 2]);
    void store;
  });

  it('starts an append over rather than commit files older than half the orphan age', async () => {
    const { deps, wal } = await tableWith(1);
    await wal.append([{ text: '{"x":1}' }], T0 + 50);
    let stalled = false;
    deps.faults = (at) => {
      if (at === TableFaultPoint.appendAfterManifest && !stalled) {
        stalled = true;
        deps.clock.ms += deps.config.orphanAgeMs;
      }
    };
    const report = await appendTable(deps, 't', ['s']);
    expect(report.status).toBe('committed');
    // The stalled attempt's files (a data file and a manifest) are orphans, already old enough.
    expect((await removeOrphans(deps, 't')).deleted).toBe(2);
    expect(await offsets(deps)).toEqual([0, 1, 2]);
  });
});

describe('removeOrphans on metadata files', () => {
  it('removes metadata versions more than METADATA_VERSIONS_KEPT old, and the table still loads', async () => {
    const { store, deps, wal } = await tableWith(3);
    const { METADATA_VERSIONS_KEPT } = await import('../../lib/table/orphans.js');
    // Versions 1..3 exist; pretend the table is far ahead by committing enough appends.
    for (let i = 0; i < METADATA_VERSIONS_KEPT; i++) {
      await wal.append([{ text: `{"more":${i}}` }], T0 + 100 + i);
      expect((await appendTable(deps, 't', ['s'])).status).toBe('committed');
      deps.clock.ms += 60_000;
    }
    const versions = () => store.keys().filter((k) => k.endsWith('.metadata.json')).length;
    expect(versions()).toBe(METADATA_VERSIONS_KEPT + 3);
    await removeOrphans(deps, 't');
    expect(versions()).toBe(METADATA_VERSIONS_KEPT);
    expect((await loadCurrent(store, 't'))?.version).toBe(METADATA_VERSIONS_KEPT + 3);
    expect(await offsets(deps)).toHaveLength(6 + METADATA_VERSIONS_KEPT);
  });
});
