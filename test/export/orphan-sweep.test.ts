/**
 * Retention's orphan sweep (T3 in `lib/export/retention.ts`) at its bounds:
 * the sweep bound O is the covered position of the newest valid manifest
 * older than the export retention. Strictly below O, segments and parts no
 * kept manifest lists are orphans; at or above it, one may be an export
 * still in flight, and is kept.
 */
import { describe, expect, it } from 'vitest';
import { exportShard } from '../../lib/export/export-shard.js';
import { readRetentionCursors } from '../../lib/export/retention-cursor.js';
import { segmentKey } from '../../lib/segment/format.js';
import { snapshotPartKey } from '../../lib/snapshot/format.js';
import { exportDepsOf, TestShard } from '../recovery/support.js';
import { fixture, useDynalite } from '../support/harness.js';
import { keysOf } from './helpers.js';

const dynalite = useDynalite();
const RETENTION_MS = 60_000;

/** Rounds of a keyed then a keyless WAL object, each exported, `advanceMs` apart. */
async function rounds(count: number, advanceMs: number, settings: Record<string, unknown> = {}) {
  const f = await fixture(dynalite(), {
    walRetentionMs: RETENTION_MS,
    exportRetentionMs: RETENTION_MS,
    ...settings,
  });
  const s = new TestShard(f);
  for (let round = 0; round < count; round++) {
    await s.keyed([{ id: `k${round}`, v: round }]);
    await s.flush();
    await s.keyless([{ round }]);
    await s.flush();
    await exportShard(exportDepsOf(f), 's1');
    f.clock.advance(advanceMs);
  }
  return { f, s };
}

const planted = new Uint8Array([1, 2, 3]);

describe('retention', () => {
  describe('orphan sweep', () => {
    it('keeps unlisted objects at or above the newest old manifest, sweeps those below it', async () => {
      // Manifests at 2 and 4, both older than the retention once the clock moved on.
      const { f, s } = await rounds(2, RETENTION_MS + 1);
      // What exports in flight from the manifest at 4 write, before their own manifest exists.
      const atBound = segmentKey('s1', 4);
      const aboveBound = segmentKey('s1', 5);
      const spanning = snapshotPartKey('s1', { from: 2, to: 6, kind: 'delta', index: 9 });
      // What a crashed export left below it.
      const below = segmentKey('s1', 2);
      const belowPart = snapshotPartKey('s1', { from: 2, to: 4, kind: 'delta', index: 9 });
      for (const key of [atBound, aboveBound, spanning, below, belowPart]) {
        await f.memory.putIfAbsent(key, planted);
      }
      // Keyed rows only: the young export at 6 writes no segment of its own.
      await s.keyed([{ id: 'k9', v: 9 }]);
      await s.flush();
      await s.keyed([{ id: 'k8', v: 8 }]);
      await s.flush();
      const report = await exportShard(exportDepsOf(f), 's1');
      expect(keysOf(f.memory).manifests).toContain(6);
      expect(report.retention?.orphans.sweptBelow).toBe(4);
      expect(await f.memory.get(atBound)).toBeDefined();
      expect(await f.memory.get(aboveBound)).toBeDefined();
      expect(await f.memory.get(spanning)).toBeDefined();
      expect(await f.memory.get(below)).toBeUndefined();
      expect(await f.memory.get(belowPart)).toBeUndefined();
    });

    it('sweeps an orphan at its cursor once the bound passed it', async () => {
      const { f, s } = await rounds(2, RETENTION_MS + 1);
      await s.keyed([{ id: 'k9', v: 9 }]);
      await s.flush();
      await exportShard(exportDepsOf(f), 's1');
      const cursor = (await readRetentionCursors(f.table, 's1')).orphansSweptBelow;
      expect(cursor).toBe(4);
      // An export in flight from the manifest at 4 wrote its segment, then crashed.
      const orphan = segmentKey('s1', cursor);
      await f.memory.putIfAbsent(orphan, planted);
      f.clock.advance(RETENTION_MS + 1);
      await s.keyed([{ id: 'k8', v: 8 }]);
      await s.flush();
      const report = await exportShard(exportDepsOf(f), 's1');
      expect(report.retention?.orphans).toMatchObject({ segments: 1, sweptBelow: 5 });
      expect(await f.memory.get(orphan)).toBeUndefined();
    });
  });

  describe('export retention', () => {
    it('keeps every export younger than the export retention, however short the WAL retention', async () => {
      const { f } = await rounds(4, 2_000, { walRetentionMs: 1_000 });
      expect(keysOf(f.memory).manifests).toEqual([2, 4, 6, 8]);
    });
  });
});
