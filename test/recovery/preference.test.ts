/**
 * The preference rules of recovery (DESIGN.md, "Recovery"), each on its own:
 * the export is the authority, the tail after it is applied, no export means
 * the whole WAL with a loud warning, an invalid newest export falls back, and
 * a WAL object that is unknown, corrupt, truncated or missing stops the replay
 * there, named.
 */
import { gunzipSync, gzipSync } from 'node:zlib';
import { describe, expect, it, vi } from 'vitest';
import { exportShard } from '../../lib/export/export-shard.js';
import { manifestKey } from '../../lib/manifest/format.js';
import { readShardRecord } from '../../lib/memtable/shard-record.js';
import { logger } from '../../lib/observability/telemetry.js';
import { walKey } from '../../lib/paths.js';
import { rebuildShard } from '../../lib/recovery/rebuild.js';
import { renderRebuildReport } from '../../lib/recovery/render.js';
import { NO_EXPORT_WARNING, replayShard } from '../../lib/recovery/replay.js';
import { verifyShard } from '../../lib/recovery/verify.js';
import { decodeWal } from '../../lib/wal/decode.js';
import { fixture, useDynalite } from '../support/harness.js';
import {
  exportDepsOf,
  overwrite,
  recoveryDepsOf,
  rewritten,
  snapshotOf,
  TestShard,
  withVersion,
} from './support.js';

const dynalite = useDynalite();

/** Four WAL objects (positions 0-3) with keyed puts, a delete and keyless rows; export at 2 when asked. */
async function shardWithHistory(options: { exportAt2?: boolean; exportAt4?: boolean } = {}) {
  const f = await fixture(dynalite());
  const s = new TestShard(f);
  await s.keyed([
    { id: 'a', v: 1 },
    { id: 'b', v: 1 },
  ]);
  await s.keyless([{ n: 1 }]);
  await s.flush();
  await s.keyed([{ id: 'a', v: 2 }]);
  await s.flush();
  if (options.exportAt2) expect((await exportShard(exportDepsOf(f), 's1')).status).toBe('exported');
  await s.keyed([{ id: 'b', $delete: true }]);
  await s.keyless([{ n: 2 }]);
  await s.flush();
  await s.keyed([{ id: 'c', v: 1 }]);
  await s.flush();
  if (options.exportAt4) expect((await exportShard(exportDepsOf(f), 's1')).status).toBe('exported');
  expect((await readShardRecord(f.table, 's1'))?.walNextPos).toBe(4);
  return { f, s };
}

const replayAll = (f: Awaited<ReturnType<typeof shardWithHistory>>['f'], useExport = true) =>
  replayShard(f.store, 's1', { useExport, keepRows: true, keepKeyless: true });

describe('recovery preference rules', () => {
  it('the export wins over a populated WAL below it: WAL objects there are never read', async () => {
    const { f, s } = await shardWithHistory({ exportAt2: true });
    // A zombie re-created slot 1 below the watermark with other content.
    const original = decodeWal(walKey('s1', 1), (await f.memory.get(walKey('s1', 1)))!);
    await overwrite(
      f,
      walKey('s1', 1),
      rewritten(original, (o) => {
        o.rows[0]!.text = '{"id":"a","v":999}';
      }),
    );

    const replay = await replayAll(f);
    expect(replay.export?.coveredPosition).toBe(2);
    expect(replay.walk.start.position).toBe(2);
    expect(snapshotOf(replay.state)).toStrictEqual(s.model.snapshot());
    // The WAL below does differ: replaying it alone (no export) sees the zombie's row.
    const walOnly = await replayAll(f, false);
    expect(walOnly.state.keyed.get('"a"')?.text).toBe('{"id":"a","v":999}');

    const verify = await verifyShard(recoveryDepsOf(f), 's1');
    expect(verify.findings).toEqual([]);
    const rebuild = await rebuildShard(recoveryDepsOf(f), 's1');
    expect(rebuild.status).toBe('rebuilt');
    expect(rebuild.export?.key).toBe(manifestKey('s1', 2));
  });

  it('the WAL tail after the export is applied in position order', async () => {
    const { f, s } = await shardWithHistory({ exportAt2: true });
    const replay = await replayAll(f);
    expect(replay.walk).toMatchObject({
      start: { position: 2 },
      end: { position: 4 },
      objects: 2,
      stop: { reason: 'end' },
    });
    expect(replay.state.keyed.has('"b"')).toBe(false); // deleted in the tail
    expect(replay.state.keyed.get('"c"')?.text).toBe('{"id":"c","v":1}');
    expect(snapshotOf(replay.state)).toStrictEqual(s.model.snapshot());
    const report = await rebuildShard(recoveryDepsOf(f), 's1');
    expect(report.replayed).toMatchObject({ fromPosition: 2, toPosition: 4, objects: 2 });
    expect(report.warnings).toEqual([]);
  });

  it('with no export the whole WAL is replayed and the warning says recovery runs without an export', async () => {
    const { f, s } = await shardWithHistory();
    const warn = vi.spyOn(logger, 'warn');
    try {
      const report = await rebuildShard(recoveryDepsOf(f), 's1');
      expect(report.status).toBe('rebuilt');
      expect(report.export).toBeNull();
      expect(report.replayed).toMatchObject({ fromPosition: 0, toPosition: 4, objects: 4 });
      expect(report.warnings).toEqual([expect.stringContaining(NO_EXPORT_WARNING)]);
      expect(report.warnings[0]).toContain('replaying the whole WAL from position 0');
      expect(renderRebuildReport(report)).toContain(`WARNING     ${NO_EXPORT_WARNING}`);
      expect(warn).toHaveBeenCalledWith(
        expect.stringContaining(NO_EXPORT_WARNING),
        expect.objectContaining({ shard: 's1' }),
      );
    } finally {
      warn.mockRestore();
    }
    expect(snapshotOf((await replayAll(f)).state)).toStrictEqual(s.model.snapshot());
  });

  it('an invalid newest export falls back to the previous valid one, loudly', async () => {
    const { f, s } = await shardWithHistory({ exportAt2: true, exportAt4: true });
    const newest = (await f.memory.get(manifestKey('s1', 4)))!;
    await overwrite(f, manifestKey('s1', 4), newest.subarray(0, newest.length - 20));

    const report = await rebuildShard(recoveryDepsOf(f), 's1');
    expect(report.status).toBe('rebuilt');
    expect(report.fallbacks).toEqual([
      expect.objectContaining({
        key: manifestKey('s1', 4),
        error: expect.objectContaining({ name: 'CorruptDataError' }),
      }),
    ]);
    expect(report.export?.key).toBe(manifestKey('s1', 2));
    expect(report.warnings).toEqual([
      expect.stringContaining(`export ${manifestKey('s1', 4)} failed verification`),
    ]);
    expect(report.replayed).toMatchObject({ fromPosition: 2, toPosition: 4 });
    expect(report.cursors.after?.aofWatermark).toBe(2);
    expect(renderRebuildReport(report)).toContain('FALLBACK');
    expect(snapshotOf((await replayAll(f)).state)).toStrictEqual(s.model.snapshot());
  });

  it('a WAL object in an unknown format version is rejected by name, never skipped', async () => {
    const { f } = await shardWithHistory({ exportAt2: true });
    await overwrite(
      f,
      walKey('s1', 3),
      withVersion((await f.memory.get(walKey('s1', 3)))!, 4, gunzipSync),
    );
    const before = await readShardRecord(f.table, 's1');

    const report = await rebuildShard(recoveryDepsOf(f), 's1');
    expect(report.status).toBe('stopped');
    expect(report.stoppedAt).toMatchObject({
      reason: 'corrupt',
      position: 3,
      key: walKey('s1', 3),
      error: { name: 'UnknownFormatVersionError' },
    });
    expect(report.stoppedAt?.detail).toContain('unknown WAL format version 4');
    expect(report.replayed).toMatchObject({ fromPosition: 2, toPosition: 3, objects: 1 });
    expect(report.skippedObjects).toBe(1);
    expect(report.cursors.after).toBeNull();
    expect(await readShardRecord(f.table, 's1')).toStrictEqual(before); // nothing written, not even the fence
    expect(renderRebuildReport(report)).toContain(`STOPPED     at position 3 (${walKey('s1', 3)})`);
  });

  for (const damage of [
    { name: 'a flipped byte under the checksum', edit: (b: Uint8Array) => flipInside(b) },
    {
      name: 'a truncated object',
      edit: (b: Uint8Array) => b.subarray(0, Math.floor(b.length / 2)),
    },
  ]) {
    it(`${damage.name} stops recovery at its position, and the report names it`, async () => {
      const { f } = await shardWithHistory();
      await overwrite(f, walKey('s1', 2), damage.edit((await f.memory.get(walKey('s1', 2)))!));
      const report = await rebuildShard(recoveryDepsOf(f), 's1');
      expect(report.status).toBe('stopped');
      expect(report.stoppedAt).toMatchObject({
        reason: 'corrupt',
        position: 2,
        key: walKey('s1', 2),
        error: { name: 'CorruptDataError' },
      });
      expect(report.stoppedAt?.detail).toContain(walKey('s1', 2));
      expect(report.replayed).toMatchObject({ fromPosition: 0, toPosition: 2, objects: 2 });
      expect(report.skippedObjects).toBe(2);
      // The rows of objects 0 and 1 only: nothing of the damaged object leaked into the state.
      expect(report.liveKeys).toBe(2);
      expect(report.keylessRows).toBe(1);
    });
  }

  it('a missing WAL object (a gap) stops recovery there, naming the next object present', async () => {
    const { f } = await shardWithHistory();
    await f.memory.delete(walKey('s1', 1));
    const report = await rebuildShard(recoveryDepsOf(f), 's1');
    expect(report.status).toBe('stopped');
    expect(report.stoppedAt).toMatchObject({ reason: 'gap', position: 1, key: walKey('s1', 1) });
    expect(report.stoppedAt?.detail).toContain('while position 2 exists');
    expect(report.skippedObjects).toBe(2);
  });
});

/** Flips a bit in the middle of the uncompressed text and re-gzips it, leaving the trailer's CRC stale. */
function flipInside(bytes: Uint8Array): Uint8Array {
  const text = gunzipSync(bytes);
  const at = text.indexOf('"row"') + 8;
  text[at] = text[at]! ^ 0x01;
  return gzipSync(text);
}
