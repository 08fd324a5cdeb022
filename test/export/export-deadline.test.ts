/**
 * The export deadline and the check after the manifest write (D1-D3 in
 * `lib/export/deadline.ts`): an export that stalls longer than the export
 * retention while other exports run retention must not leave a manifest
 * naming the snapshot parts the orphan sweep deleted meanwhile (simulation
 * seeds 617 and 1001423 found one).
 */
import { describe, expect, it } from 'vitest';
import {
  exportDeadlineMs,
  MIN_EXPORT_DEADLINE_MS,
  orphanAgeMs,
} from '../../lib/export/deadline.js';
import { type ExportDeps, ExportFaultPoint } from '../../lib/export/deps.js';
import { exportShard } from '../../lib/export/export-shard.js';
import { manifestKey } from '../../lib/manifest/format.js';
import { listExports, loadManifest } from '../../lib/recovery/export-source.js';
import { segmentKey } from '../../lib/segment/format.js';
import { snapshotPartKey } from '../../lib/snapshot/format.js';
import { exportDepsOf, TestShard } from '../recovery/support.js';
import { type Fixture, fixture, useDynalite } from '../support/harness.js';

const dynalite = useDynalite();
const RETENTION_MS = 60_000;
const SKEW_MS = 1_000;

/** A shard exported once (manifest at 1), with one more keyed WAL object (position 1). */
async function setUp() {
  const f = await fixture(dynalite(), {
    walRetentionMs: RETENTION_MS,
    exportRetentionMs: RETENTION_MS,
    clockSkewMs: SKEW_MS,
  });
  const s = new TestShard(f);
  await s.keyed([{ id: 'a', v: 1 }]);
  await s.flush();
  expect((await exportShard(exportDepsOf(f), 's1')).coveredPosition).toBe(1);
  await s.keyed([{ id: 'b', v: 2 }]);
  await s.flush();
  return { f, s };
}

/** What the stalled export stored (a compaction: its whole snapshot as one base part). */
const strandedPart = snapshotPartKey('s1', { from: 0, to: 2, kind: 'base', index: 0 });

/**
 * While the stalled export (target 2, its part stored, its manifest not) waits at `point`:
 * an export at 3, the retention period passing, and an export at 4 whose retention sweeps
 * orphans below 3, the stalled export's part among them.
 */
function stallAt(f: Fixture, s: TestShard, point: ExportFaultPoint, stallMs: number): ExportDeps {
  let stalled = false;
  return exportDepsOf(f, {
    faults: async (at) => {
      if (at !== point || stalled) return;
      stalled = true;
      expect(await f.memory.get(strandedPart)).toBeDefined();
      await s.keyed([{ id: 'c', v: 3 }]);
      await s.flush();
      expect((await exportShard(exportDepsOf(f), 's1')).coveredPosition).toBe(3);
      f.clock.advance(stallMs);
      await s.keyed([{ id: 'd', v: 4 }]);
      await s.flush();
      const sweeping = await exportShard(exportDepsOf(f), 's1');
      expect(sweeping.retention?.orphans).toMatchObject({ parts: 1, sweptBelow: 3 });
    },
  });
}

/** Keys that a manifest in the store names and the store does not hold. */
async function dangling(f: Fixture): Promise<string[]> {
  const out: string[] = [];
  for (const ref of await listExports(f.memory, 's1')) {
    const manifest = await loadManifest(f.memory, ref);
    const keys = [
      ...manifest.parts.map((part) => snapshotPartKey('s1', part)),
      ...manifest.segments.map((segment) => segmentKey('s1', segment.first)),
    ];
    for (const key of keys) if ((await f.memory.get(key)) === undefined) out.push(key);
  }
  return out;
}

describe('exportShard', () => {
  describe('deadline', () => {
    it('is half the export retention less the clock skew, at least 1 s, and the sweep waits twice it plus the skew', async () => {
      const { f } = await setUp();
      expect(exportDeadlineMs(exportDepsOf(f))).toBe((RETENTION_MS - SKEW_MS) / 2);
      expect(orphanAgeMs(exportDepsOf(f))).toBe(RETENTION_MS);
      // A retention too short for any export: the deadline keeps its floor, the sweep waits longer.
      const short = exportDepsOf(f, { exportRetentionMs: 500 });
      expect(exportDeadlineMs(short)).toBe(MIN_EXPORT_DEADLINE_MS);
      expect(orphanAgeMs(short)).toBe(2 * MIN_EXPORT_DEADLINE_MS + SKEW_MS);
    });

    it('writes no manifest when the export stalled past the retention while retention swept', async () => {
      const { f, s } = await setUp();
      const stalled = stallAt(f, s, ExportFaultPoint.afterArchive, RETENTION_MS + 1);
      const report = await exportShard(stalled, 's1', { retention: false });
      expect(report.status).toBe('failed');
      expect(report.reason).toContain('past its deadline of 29500 ms');
      expect(await f.memory.get(manifestKey('s1', 2))).toBeUndefined();
      expect(await f.memory.get(strandedPart)).toBeUndefined();
      expect(await dangling(f)).toEqual([]);
    });

    it('writes the manifest when the export ran exactly the deadline, refuses 1 ms past it', async () => {
      for (const [ranMs, status] of [
        [29_500, 'exported'],
        [29_501, 'failed'],
      ] as const) {
        const { f } = await setUp();
        let slept = false;
        const slow = exportDepsOf(f, {
          faults: (at) => {
            if (at !== ExportFaultPoint.afterArchive || slept) return;
            slept = true;
            f.clock.advance(ranMs);
          },
        });
        const report = await exportShard(slow, 's1');
        expect(report.status).toBe(status);
        expect((await f.memory.get(manifestKey('s1', 2))) !== undefined).toBe(
          status === 'exported',
        );
      }
    });
  });

  describe('orphan sweep under a retention shorter than the deadline floor', () => {
    it('waits twice the deadline plus the skew, not the retention, before sweeping', async () => {
      const f = await fixture(dynalite(), {
        walRetentionMs: 500,
        exportRetentionMs: 500,
        clockSkewMs: SKEW_MS,
      });
      const s = new TestShard(f);
      const round = async (id: string) => {
        await s.keyed([{ id, v: 1 }]);
        await s.flush();
        return exportShard(exportDepsOf(f), 's1');
      };
      await round('a');
      await round('b');
      // What a crashed export left (keyed rows only: no manifest lists a segment).
      const orphan = segmentKey('s1', 0);
      await f.memory.putIfAbsent(orphan, new Uint8Array([1, 2, 3]));
      f.clock.advance(600); // past the retention, within A = 2 * 1 s + 1 s
      expect((await round('c')).retention?.orphans.segments).toBe(0);
      expect(await f.memory.get(orphan)).toBeDefined();
      f.clock.advance(2 * MIN_EXPORT_DEADLINE_MS + SKEW_MS);
      expect((await round('d')).retention?.orphans.segments).toBe(1);
      expect(await f.memory.get(orphan)).toBeUndefined();
    });
  });

  describe('manifest confirmation', () => {
    it('deletes its manifest again when retention swept what it names during a stall after the deadline check', async () => {
      const { f, s } = await setUp();
      const stalled = stallAt(f, s, ExportFaultPoint.beforeWrite, RETENTION_MS + 1);
      const report = await exportShard(stalled, 's1', { retention: false });
      expect(report.status).toBe('failed');
      expect(report.reason).toContain(`first: ${strandedPart}`);
      expect(report.reason).toContain('the manifest was deleted again');
      expect(await f.memory.get(manifestKey('s1', 2))).toBeUndefined();
      expect(await dangling(f)).toEqual([]);
      // The next export is unaffected: it builds on the manifest at 4.
      expect((await exportShard(exportDepsOf(f), 's1')).status).toBe('up-to-date');
    });

    it('keeps its manifest when everything it names is still there after a stall', async () => {
      const { f, s } = await setUp();
      let stalled = false;
      const deps = exportDepsOf(f, {
        faults: async (at) => {
          if (at !== ExportFaultPoint.beforeWrite || stalled) return;
          stalled = true;
          // Another export and its retention, within the retention period: nothing is swept.
          await s.keyed([{ id: 'c', v: 3 }]);
          await s.flush();
          await exportShard(exportDepsOf(f), 's1');
          f.clock.advance(RETENTION_MS / 4);
        },
      });
      const report = await exportShard(deps, 's1', { retention: false });
      expect(report.status).toBe('exported');
      expect(await f.memory.get(manifestKey('s1', 2))).toBeDefined();
      expect(await dangling(f)).toEqual([]);
    });
  });
});
