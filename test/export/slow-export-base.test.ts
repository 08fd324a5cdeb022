/**
 * A slow export's base (D4 in `lib/export/deadline.ts`, T1 in
 * `lib/export/retention.ts`): an export still within its deadline while two
 * later exports complete must not write a manifest naming the parts and
 * segments of its base that their retention retired meanwhile.
 */
import { describe, expect, it } from 'vitest';
import { exportDeadlineMs, orphanAgeMs } from '../../lib/export/deadline.js';
import { type ExportDeps, ExportFaultPoint } from '../../lib/export/deps.js';
import { exportShard } from '../../lib/export/export-shard.js';
import type { Manifest } from '../../lib/manifest/format.js';
import { listExports, loadManifest } from '../../lib/recovery/export-source.js';
import { segmentKey } from '../../lib/segment/format.js';
import { snapshotPartKey } from '../../lib/snapshot/format.js';
import { exportDepsOf, type Snapshot, TestShard } from '../recovery/support.js';
import { type Fixture, fixture, useDynalite } from '../support/harness.js';
import { keysOf, manifestAt, manifestState } from './helpers.js';

const dynalite = useDynalite();
const RETENTION_MS = 60_000;
const SKEW_MS = 1_000;
const KEYS = Array.from({ length: 20 }, (_, i) => `k${i}`);

/** The base export's snapshot part: the manifest at 1 names it, the slow export's too. */
const basePart = snapshotPartKey('s1', { from: 0, to: 1, kind: 'base', index: 0 });

/**
 * A shard exported once at 1 (20 keys and a keyless row: a base part and a segment), that
 * export then older than the export retention, and one more WAL object (position 1).
 */
async function setUp(settings: { historyRetentionMs?: number; retentionMs?: number } = {}) {
  const retentionMs = settings.retentionMs ?? RETENTION_MS;
  const f = await fixture(dynalite(), {
    walRetentionMs: retentionMs,
    exportRetentionMs: retentionMs,
    clockSkewMs: SKEW_MS,
    historyRetentionMs: settings.historyRetentionMs,
  });
  const s = new TestShard(f);
  await s.keyed(KEYS.map((id) => ({ id, v: 0 })));
  await s.keyless([{ line: 'before' }]);
  await s.flush();
  expect((await exportShard(exportDepsOf(f), 's1')).coveredPosition).toBe(1);
  f.clock.advance(retentionMs + 1);
  await s.keyed([{ id: 'k0', v: 1 }]);
  await s.flush();
  return { f, s };
}

/** The base export's objects: its snapshot part and its segment (position 0). */
async function baseObjects(f: Fixture): Promise<string[]> {
  const manifest = await manifestAt(f.memory, 1);
  return [
    ...manifest.parts.map((part) => snapshotPartKey('s1', part)),
    ...manifest.segments.map((segment) => segmentKey('s1', segment.first)),
  ];
}

interface Held {
  deps: ExportDeps;
  /** The model's snapshot at the slow export's target, taken when it was held. */
  atTarget: () => Snapshot;
}

/** How the later exports run while the slow one is held. */
interface Later {
  /** Clock advance before the first of them (default 0). */
  beforeMs?: number;
  /** Clock advance after the second (default 0). */
  afterMs?: number;
  /** Whether the first compacts (its deltas pass half the base; default true). */
  compact?: boolean;
}

/**
 * Export dependencies that hold the slow export at `point` (its target 2, its base the export
 * at 1) while two later exports complete with their retention (at 3 and 4). When the first
 * compacts, neither lists the base part any more.
 */
function holdAt(f: Fixture, s: TestShard, point: ExportFaultPoint, later: Later = {}): Held {
  let held = false;
  let snapshot: Snapshot | undefined;
  const deps = exportDepsOf(f, {
    faults: async (at) => {
      if (at !== point || held) return;
      held = true;
      snapshot = s.model.snapshot();
      f.clock.advance(later.beforeMs ?? 0);
      const compact = later.compact ?? true;
      await s.keyed((compact ? KEYS : ['k3']).map((id) => ({ id, v: 2 })));
      await s.flush();
      const second = await exportShard(exportDepsOf(f), 's1');
      expect(second).toMatchObject({ coveredPosition: 3, writes: { compacted: compact } });
      await s.keyed([{ id: 'k1', v: 3 }]);
      await s.flush();
      const third = await exportShard(exportDepsOf(f), 's1');
      expect(third.coveredPosition).toBe(4);
      f.clock.advance(later.afterMs ?? 0);
    },
  });
  return { deps, atTarget: () => snapshot! };
}

/** Keys that a manifest in the store names and the store does not hold, by manifest. */
async function dangling(f: Fixture): Promise<Record<number, string[]>> {
  const out: Record<number, string[]> = {};
  for (const ref of await listExports(f.memory, 's1')) {
    const manifest: Manifest = await loadManifest(f.memory, ref);
    const keys = [
      ...manifest.parts.map((part) => snapshotPartKey('s1', part)),
      ...manifest.segments.map((segment) => segmentKey('s1', segment.first)),
    ];
    const gone: string[] = [];
    for (const key of keys) if ((await f.memory.get(key)) === undefined) gone.push(key);
    if (gone.length > 0) out[ref.coveredPosition] = gone;
  }
  return out;
}

describe('exportShard', () => {
  describe("a slow export's base", () => {
    it('is kept while two later exports complete, so the slow manifest names only what exists', async () => {
      const { f, s } = await setUp();
      const named = await baseObjects(f);
      expect(named).toContain(basePart);
      const { deps, atTarget } = holdAt(f, s, ExportFaultPoint.afterArchive, { afterMs: 1_000 });

      const slow = await exportShard(deps, 's1', { retention: false });

      expect(slow).toMatchObject({ status: 'exported', coveredPosition: 2 });
      expect(slow.base?.coveredPosition).toBe(1);
      const manifest = await manifestAt(f.memory, 2);
      expect(manifest.parts.map((part) => snapshotPartKey('s1', part))).toContain(basePart);
      expect(await dangling(f)).toEqual({});
      // The slow manifest reads back whole: the state at its target.
      expect(await manifestState(f.memory, 2)).toStrictEqual(atTarget());
      expect(keysOf(f.memory).manifests).toEqual([1, 2, 3, 4]);
    });

    it('keeps the base segments that history retention dropped from the later exports', async () => {
      // The base's segment is 60,001 ms old when the slow export folds (it keeps it) and
      // 61,001 ms when the later ones do (they drop it); none of them compacts.
      const { f, s } = await setUp({ historyRetentionMs: RETENTION_MS + 501 });
      const [, segment] = await baseObjects(f);
      const { deps } = holdAt(f, s, ExportFaultPoint.afterArchive, {
        beforeMs: 1_000,
        compact: false,
      });
      const slow = await exportShard(deps, 's1', { retention: false });
      expect(slow.status).toBe('exported');
      expect(
        (await manifestAt(f.memory, 2)).segments.map((g) => segmentKey('s1', g.first)),
      ).toEqual([segment]);
      expect((await manifestAt(f.memory, 4)).segments).toEqual([]);
      expect(await dangling(f)).toEqual({});
    });

    // A is the retention, or twice the deadline's 1 s floor plus the skew when that is longer.
    for (const { retentionMs, heldMs } of [
      { retentionMs: RETENTION_MS, heldMs: 1_000 },
      { retentionMs: 500, heldMs: 500 },
    ]) {
      it(`is retired, with the slow manifest, once the export after it is older than A, not 1 ms before (retention ${retentionMs} ms)`, async () => {
        const { f, s } = await setUp({ retentionMs });
        const { deps } = holdAt(f, s, ExportFaultPoint.afterArchive, { afterMs: heldMs });
        expect(orphanAgeMs(deps)).toBe(retentionMs === 500 ? 3_000 : retentionMs);
        expect((await exportShard(deps, 's1', { retention: false })).status).toBe('exported');
        const retireAfter = async (ms: number) => {
          f.clock.advance(ms);
          await s.keyed([{ id: 'k2', v: 4 }]);
          await s.flush();
          return (await exportShard(exportDepsOf(f), 's1')).retention;
        };
        // The exports after the base (the slow one, then 3 and 4) were created heldMs ago.
        expect((await retireAfter(orphanAgeMs(deps) - heldMs - 1))?.retired).toEqual([]);
        expect(await f.memory.get(basePart)).toBeDefined();
        expect((await retireAfter(1))?.retired).toEqual([1, 2, 3]);
        expect(await f.memory.get(basePart)).toBeUndefined();
        expect(keysOf(f.memory).manifests).toEqual([4, 5, 6]);
        expect(await dangling(f)).toEqual({});
      });
    }

    it('deletes the slow manifest again when its base was retired during a stall after the deadline check', async () => {
      const { f, s } = await setUp();
      // Held past A after the later exports: their retention (run at the end) retires the base.
      const { deps } = holdAt(f, s, ExportFaultPoint.beforeWrite);
      let resumed = false;
      const stalled = exportDepsOf(f, {
        faults: async (at, shard) => {
          await deps.faults?.(at, shard);
          if (at !== ExportFaultPoint.beforeWrite || resumed) return;
          resumed = true;
          f.clock.advance(orphanAgeMs(deps) + 1);
          await s.keyed([{ id: 'k2', v: 4 }]);
          await s.flush();
          const sweeping = await exportShard(exportDepsOf(f), 's1');
          expect(sweeping.retention?.retired).toEqual([1, 3]);
        },
      });
      expect(exportDeadlineMs(deps)).toBeLessThan(orphanAgeMs(deps));

      const slow = await exportShard(stalled, 's1', { retention: false });

      expect(slow.status).toBe('failed');
      expect(slow.reason).toContain(`first: ${basePart}`);
      expect(slow.reason).toContain('the manifest was deleted again');
      expect(keysOf(f.memory).manifests).toEqual([4, 5]);
      expect(await dangling(f)).toEqual({});
    });
  });
});
