import { describe, expect, it } from 'vitest';
import { exportShard } from '../../lib/export/export-shard.js';
import { readRetentionCursors } from '../../lib/export/retention-cursor.js';
import { manifestKey } from '../../lib/manifest/format.js';
import { aofKey, walPrefix } from '../../lib/paths.js';
import { rebuildShard } from '../../lib/recovery/rebuild.js';
import { replayShard } from '../../lib/recovery/replay.js';
import { verifyShard } from '../../lib/recovery/verify.js';
import { seededRandom } from '../../lib/seeded-random.js';
import { segmentKey } from '../../lib/segment/format.js';
import { snapshotPartKey } from '../../lib/snapshot/format.js';
import type { ObjectStore } from '../../lib/store/object-store.js';
import {
  exportDepsOf,
  overwrite,
  recoveryDepsOf,
  snapshotOf,
  TestShard,
} from '../recovery/support.js';
import { type Fixture, fixture, useDynalite } from '../support/harness.js';
import { writeLegacyExport } from '../support/legacy-aof.js';
import { keysOf, manifestAt, manifestState } from './helpers.js';

const dynalite = useDynalite();
const RETENTION_MS = 60_000;

/** Two WAL objects per round (a keyed row, then a keyless one), an export after each round. */
async function rounds(count: number, advanceMs: number, settings: Record<string, unknown> = {}) {
  const f = await fixture(dynalite(), {
    walRetentionMs: RETENTION_MS,
    exportRetentionMs: RETENTION_MS,
    ...settings,
  });
  const s = new TestShard(f);
  const reports = [];
  for (let round = 0; round < count; round++) {
    await s.keyed([{ id: `k${round}`, v: round }]);
    await s.flush();
    await s.keyless([{ round }]);
    await s.flush();
    reports.push(await exportShard(exportDepsOf(f), 's1'));
    f.clock.advance(advanceMs);
  }
  return { f, s, reports };
}

/** Every part and segment key the manifests at `positions` list. */
async function listedBy(f: Fixture, positions: number[]): Promise<Set<string>> {
  const keys = new Set<string>();
  for (const position of positions) {
    const manifest = await manifestAt(f.memory, position);
    for (const part of manifest.parts) keys.add(snapshotPartKey('s1', part));
    for (const segment of manifest.segments) keys.add(segmentKey('s1', segment.first));
  }
  return keys;
}

describe('retention', () => {
  it('retires nothing while every export is younger than the retention', async () => {
    const { f, reports } = await rounds(3, 1_000);
    expect(reports.at(-1)?.retention).toMatchObject({ retired: [], wal: { deleted: 0 } });
    expect(reports.at(-1)?.retention?.note).toContain('older than the WAL retention');
    expect(keysOf(f.memory).wal).toEqual([0, 1, 2, 3, 4, 5]);
    expect(keysOf(f.memory).manifests).toEqual([2, 4, 6]);
  });

  it('keeps the newest two exports with what they list, retires older ones and the WAL below the second', async () => {
    const { f, s, reports } = await rounds(4, RETENTION_MS + 1);
    const last = reports.at(-1)!.retention!;
    expect(last).toMatchObject({ kept: [6, 8], wal: { retiredBelow: 6 } });
    expect(keysOf(f.memory).manifests).toEqual([6, 8]);
    expect(keysOf(f.memory).wal).toEqual([6, 7]);
    // Nothing is left that the kept manifests do not list, and everything they list is there.
    const listed = await listedBy(f, [6, 8]);
    const { segments, parts } = keysOf(f.memory);
    expect(new Set([...segments, ...parts])).toEqual(listed);
    for (const position of [6, 8]) {
      expect(await manifestState(f.memory, position)).toBeDefined();
    }
    expect(await manifestState(f.memory, 8)).toStrictEqual(s.model.snapshot());
  });

  it('keeps the WAL after the second newest export even with no WAL retention at all', async () => {
    const { f, s } = await rounds(3, 1_000, { walRetentionMs: 0 });
    expect(keysOf(f.memory).wal).toEqual([4, 5]);
    const newest = (await f.memory.get(manifestKey('s1', 6)))!;
    await overwrite(f, manifestKey('s1', 6), newest.subarray(0, 40));
    const replay = await replayShard(f.store, 's1', { keepRows: true, keepKeyless: true });
    expect(replay.export?.coveredPosition).toBe(4);
    expect(snapshotOf(replay.state)).toStrictEqual(s.model.snapshot());
  });

  it('keeps what a fallback needs: with the newest manifest corrupt, rebuild reads from the previous one', async () => {
    const { f, s } = await rounds(4, RETENTION_MS + 1);
    const newest = (await f.memory.get(manifestKey('s1', 8)))!;
    await overwrite(f, manifestKey('s1', 8), newest.subarray(0, 40));
    const report = await rebuildShard(recoveryDepsOf(f), 's1');
    expect(report).toMatchObject({
      status: 'rebuilt',
      export: { coveredPosition: 6 },
      replayed: { fromPosition: 6, toPosition: 8 },
    });
    expect(
      snapshotOf((await replayShard(f.store, 's1', { keepRows: true, keepKeyless: true })).state),
    ).toStrictEqual(s.model.snapshot());
  });

  it('leaves a shard that verifies and rebuilds from its export alone', async () => {
    const { f, s } = await rounds(4, RETENTION_MS + 1);
    expect((await verifyShard(recoveryDepsOf(f), 's1')).findings).toEqual([]);
    const report = await rebuildShard(recoveryDepsOf(f), 's1');
    expect(report).toMatchObject({
      status: 'rebuilt',
      export: { coveredPosition: 8 },
      replayed: { objects: 0 },
    });
    expect(
      snapshotOf((await replayShard(f.store, 's1', { keepRows: true, keepKeyless: true })).state),
    ).toStrictEqual(s.model.snapshot());
  });

  it('lists the WAL from the cursor the last run recorded, not from position 0', async () => {
    const { f } = await rounds(4, RETENTION_MS + 1);
    expect(await readRetentionCursors(f.table, 's1')).toMatchObject({ walRetiredBelow: 6 });
    const listings: Array<string | undefined> = [];
    const deps = exportDepsOf(f);
    const inner = deps.store;
    const store: ObjectStore = {
      putIfAbsent: (k, b) => inner.putIfAbsent(k, b),
      putStreamIfAbsent: (k, b) => inner.putStreamIfAbsent(k, b),
      get: (k) => inner.get(k),
      getStream: (k) => inner.getStream(k),
      delete: (k) => inner.delete(k),
      list: (prefix, options) => {
        if (prefix === walPrefix('s1')) listings.push(options?.startAfter);
        return inner.list(prefix, options);
      },
    };
    const s = new TestShard(f);
    await s.keyless([{ more: 1 }]);
    await s.flush();
    await s.keyless([{ more: 2 }]);
    await s.flush();
    f.clock.advance(RETENTION_MS + 1);
    const report = await exportShard({ ...deps, store }, 's1');
    // The fold lists from the base (8); retention from the cursor (6), never from 0.
    expect(listings).toContain('shards/s1/wal/00000000000000000005');
    expect(listings).not.toContain(undefined);
    expect(report.retention?.wal).toMatchObject({ retiredBelow: 8, deleted: 2, fromPosition: 6 });
  });

  it('drops segments past the history retention from the manifest, records the floor, deletes them once unlisted', async () => {
    const { f, s, reports } = await rounds(5, RETENTION_MS + 1, {
      historyRetentionMs: 2 * RETENTION_MS + 1,
    });
    const manifest = await manifestAt(f.memory, 10);
    // A segment is stamped by the export of its round; at round 5 those of rounds 1-3 are past it.
    expect(manifest.header.historyFloor).toBe(6);
    expect(manifest.segments.map((seg) => seg.first)).toEqual([7, 9]);
    expect(reports.at(-1)?.historyFloor).toBe(6);
    expect((await manifestAt(f.memory, 8)).segments.map((seg) => seg.first)).toEqual([5, 7]);
    // The manifest at 8 (kept) still lists position 5's segment; those at 1 and 3 are gone.
    expect(keysOf(f.memory).segments).toEqual([5, 7, 9].map((p) => segmentKey('s1', p)));
    // T6: history is kept from the lowest floor of the manifests left (the one at 8).
    const floors = await Promise.all(
      keysOf(f.memory).manifests.map(
        async (p) => (await manifestAt(f.memory, p)).header.historyFloor,
      ),
    );
    expect(Math.min(...floors)).toBeGreaterThan(0);
    expect((await readRetentionCursors(f.table, 's1')).historyKeptFrom).toBe(Math.min(...floors));
    const replay = await replayShard(f.store, 's1', { keepRows: true, keepKeyless: true });
    const live = s.model.snapshot();
    expect(snapshotOf(replay.state)).toStrictEqual({
      keyed: live.keyed,
      keyless: live.keyless.filter((row) => row.offset >= 6),
    });
    expect((await verifyShard(recoveryDepsOf(f), 's1')).findings).toEqual([]);
  });

  it('keeps the history cursor where it was while a manifest does not verify', async () => {
    const { f, s } = await rounds(4, RETENTION_MS + 1, {
      historyRetentionMs: 2 * RETENTION_MS + 1,
    });
    const before = (await readRetentionCursors(f.table, 's1')).historyKeptFrom;
    expect(before).toBeGreaterThan(0);
    const kept = keysOf(f.memory).manifests;
    const oldest = (await f.memory.get(manifestKey('s1', kept[0]!)))!;
    await overwrite(f, manifestKey('s1', kept[0]!), oldest.subarray(0, 40));
    for (let round = 0; round < 3; round++) {
      await s.keyless([{ round }]);
      await s.flush();
      await exportShard(exportDepsOf(f), 's1');
      f.clock.advance(RETENTION_MS + 1);
    }
    expect(
      (await manifestAt(f.memory, keysOf(f.memory).manifests.at(-1)!)).header.historyFloor,
    ).toBeGreaterThan(before);
    expect((await readRetentionCursors(f.table, 's1')).historyKeptFrom).toBe(before);
  });

  it('sweeps an orphan part once an export older than the retention covers its range', async () => {
    const { f } = await rounds(2, 1_000);
    const orphan = snapshotPartKey('s1', { from: 0, to: 2, kind: 'delta', index: 7 });
    await f.memory.putIfAbsent(orphan, new Uint8Array([1]));
    const s = new TestShard(f);
    await s.keyless([{ n: 1 }]);
    await s.flush();
    const young = await exportShard(exportDepsOf(f), 's1');
    expect(young.retention?.orphans.parts).toBe(0);
    f.clock.advance(RETENTION_MS + 1);
    await s.keyless([{ n: 2 }]);
    await s.flush();
    const old = await exportShard(exportDepsOf(f), 's1');
    expect(old.retention?.orphans).toMatchObject({ parts: 1 });
    expect(await f.memory.get(orphan)).toBeUndefined();
  });

  it('keeps every legacy export, however old, until two manifests verify, then retires them', async () => {
    const f = await fixture(dynalite(), {
      walRetentionMs: RETENTION_MS,
      exportRetentionMs: RETENTION_MS,
    });
    const s = new TestShard(f);
    const legacyAt: number[] = [];
    for (let round = 0; round < 2; round++) {
      await s.keyless([{ round }]);
      await s.flush();
      legacyAt.push(await writeLegacyExport(f, 's1'));
      f.clock.advance(RETENTION_MS + 1);
    }
    const legacyKeys = () => legacyAt.filter((at) => f.memory.keys().includes(aofKey('s1', at)));
    // One manifest: a legacy export is unverified, so none counts as its fallback yet.
    await s.keyless([{ round: 2 }]);
    await s.flush();
    const first = await exportShard(exportDepsOf(f), 's1');
    expect(first.retention).toMatchObject({ retired: [] });
    expect(legacyKeys()).toEqual([1, 2]);
    // Two manifests at or below the watermark: the legacy exports go like any older export.
    f.clock.advance(RETENTION_MS + 1);
    await s.keyless([{ round: 3 }]);
    await s.flush();
    const second = await exportShard(exportDepsOf(f), 's1');
    expect(second.retention?.retired).toEqual([1, 2]);
    expect(legacyKeys()).toEqual([]);
    expect(keysOf(f.memory).manifests).toEqual([3, 4]);
  });

  it('never removes what the newest two valid exports need, whatever the history and the clock', async () => {
    const random = seededRandom(90_210);
    const f = await fixture(dynalite(), {
      walRetentionMs: 5_000,
      exportRetentionMs: 3_000,
      historyRetentionMs: random() < 0.5 ? 0 : 20_000,
    });
    const s = new TestShard(f);
    for (let step = 0; step < 40; step++) {
      const roll = random();
      if (roll < 0.35) await s.keyed([{ id: `k${Math.floor(random() * 6)}`, v: step }]);
      else if (roll < 0.5) await s.keyed([{ id: `k${Math.floor(random() * 6)}`, $delete: true }]);
      else await s.keyless([{ step }]);
      if (random() < 0.5) await s.flush();
      f.clock.advance(Math.floor(random() * 4_000));
      if (random() < 0.4) {
        await s.flush();
        await exportShard(exportDepsOf(f), 's1');
        const manifests = keysOf(f.memory).manifests;
        // T6: no manifest in S3 keeps history from below the cursor.
        const keptFrom = (await readRetentionCursors(f.table, 's1')).historyKeptFrom;
        for (const position of manifests) {
          const floor = (await manifestAt(f.memory, position)).header.historyFloor;
          expect(floor, `historyFloor of ${position}`).toBeGreaterThanOrEqual(keptFrom);
        }
        for (const position of manifests.slice(-2)) {
          const listed = await listedBy(f, [position]);
          const present = new Set([...keysOf(f.memory).segments, ...keysOf(f.memory).parts]);
          for (const key of listed) expect(present.has(key), `${key} of ${position}`).toBe(true);
        }
        const fallback = manifests.at(-2);
        if (fallback !== undefined) {
          const wal = keysOf(f.memory).wal;
          const record = (await f.memory.get(manifestKey('s1', manifests.at(-1)!)))!;
          expect(record).toBeDefined();
          for (let p = fallback; p < manifests.at(-1)!; p++) expect(wal).toContain(p);
        }
      }
    }
    await s.flush();
    expect(
      snapshotOf((await replayShard(f.store, 's1', { keepRows: true })).state).keyed,
    ).toStrictEqual(s.model.snapshot().keyed);
  });
});
