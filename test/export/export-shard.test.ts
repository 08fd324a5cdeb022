import { describe, expect, it } from 'vitest';
import { ExportFaultPoint } from '../../lib/export/deps.js';
import { exportAll } from '../../lib/export/export-all.js';
import { exportShard } from '../../lib/export/export-shard.js';
import { renderExportReport } from '../../lib/export/render.js';
import { poisonShard } from '../../lib/fence/commit.js';
import { SimulatedCrash } from '../../lib/flush/fault-points.js';
import { manifestKey } from '../../lib/manifest/format.js';
import { readShardRecord } from '../../lib/memtable/shard-record.js';
import { padPosition, walKey } from '../../lib/paths.js';
import { rebuildShard } from '../../lib/recovery/rebuild.js';
import { replayShard } from '../../lib/recovery/replay.js';
import { verifyShard } from '../../lib/recovery/verify.js';
import { snapshotPartKey } from '../../lib/snapshot/format.js';
import { encodeWal } from '../../lib/wal/encode.js';
import {
  exportDepsOf,
  overwrite,
  recoveryDepsOf,
  snapshotOf,
  TestShard,
} from '../recovery/support.js';
import { fixture, useDynalite } from '../support/harness.js';
import { caught } from '../wal/helpers.js';
import { keysOf, manifestAt, manifestState } from './helpers.js';

const dynalite = useDynalite();

async function twoObjects() {
  const f = await fixture(dynalite());
  const s = new TestShard(f);
  await s.keyed([
    { id: 'a', v: 1 },
    { id: 'b', v: 1 },
  ]);
  await s.keyless([{ n: 1 }]);
  await s.flush();
  await s.keyed([
    { id: 'a', v: 2 },
    { id: 'b', $delete: true },
  ]);
  await s.keyless([{ n: 2 }]);
  await s.flush();
  return { f, s };
}

/** The live state the manifest at `position` holds, as the model's snapshot shape. */
async function exportedState(f: Awaited<ReturnType<typeof twoObjects>>['f'], position: number) {
  return manifestState(f.memory, position);
}

describe(exportShard, () => {
  it('folds the WAL into a manifest at walNextPos and records the watermark', async () => {
    const { f, s } = await twoObjects();
    const report = await exportShard(exportDepsOf(f), 's1');
    expect(report).toMatchObject({
      status: 'exported',
      key: manifestKey('s1', 2),
      base: null,
      folded: {
        fromPosition: 0,
        toPosition: 2,
        objects: 2,
        walRows: 6,
        puts: 3,
        deletes: 1,
        keyless: 2,
      },
      liveKeys: 1,
      keylessRows: 2,
      segments: 1,
      parts: 1,
      watermark: { before: 0, after: 2 },
    });
    expect(keysOf(f.memory).segments).toEqual(['shards/s1/seg/00000000000000000000.ndjson.gz']);
    expect(await exportedState(f, 2)).toStrictEqual(s.model.snapshot());
    expect((await readShardRecord(f.table, 's1'))?.aofWatermark).toBe(2);
    expect(renderExportReport(report)).toContain('EXPORTED');
    expect((await exportShard(exportDepsOf(f), 's1')).status).toBe('up-to-date');
  });

  it('builds on the previous manifest and the WAL after it, reading neither below it nor its objects', async () => {
    const { f, s } = await twoObjects();
    await exportShard(exportDepsOf(f), 's1');
    await f.memory.delete(walKey('s1', 0)); // below the export: must not be needed
    await s.keyed([
      { id: 'c', v: 1 },
      { id: 'a', $delete: true },
    ]);
    await s.keyless([{ n: 3 }]);
    await s.flush();
    const reads: string[] = [];
    const watched = exportDepsOf(f);
    const store = watched.store;
    watched.store = {
      ...store,
      putIfAbsent: (k, b) => store.putIfAbsent(k, b),
      putStreamIfAbsent: (k, b) => store.putStreamIfAbsent(k, b),
      get: (k) => {
        reads.push(k);
        return store.get(k);
      },
      getStream: (k) => {
        reads.push(k);
        return store.getStream(k);
      },
      list: (p, o) => store.list(p, o),
      delete: (k) => store.delete(k),
    };
    const report = await exportShard({ ...watched, spillBytes: 1 << 20 }, 's1');
    expect(report).toMatchObject({
      status: 'exported',
      base: { key: manifestKey('s1', 2), coveredPosition: 2, kind: 'manifest' },
      folded: { fromPosition: 2, toPosition: 3, objects: 1, exportRows: 0 },
      segments: 2,
    });
    // E4: the WAL since the base and the base's manifest; no earlier segment or part is read
    // (a compaction would read parts: the base holds 1 key, so one is due here, and reads them).
    expect(reads.filter((k) => k.includes('/seg/'))).toEqual([]);
    expect(reads.filter((k) => k.includes('/wal/'))).toEqual([walKey('s1', 2)]);
    expect(await exportedState(f, 3)).toStrictEqual(s.model.snapshot());
    expect((await manifestAt(f.memory, 3)).header.previousExport).toBe(2);
  });

  it('keeps every keyed row it folds when its changes spill into parts mid-walk', async () => {
    // Rows are read into one reused object: a spill must finish before the scan reads on.
    const f = await fixture(dynalite());
    const s = new TestShard(f);
    for (let round = 0; round < 4; round++) {
      await s.keyed(
        Array.from({ length: 6 }, (_, i) => ({ id: `k${(round * 3 + i) % 10}`, v: round })),
      );
      await s.keyed([{ id: `k${round}`, $delete: true }]);
      await s.keyless([{ n: round }]);
      await s.flush();
    }
    const report = await exportShard({ ...exportDepsOf(f), spillBytes: 64 }, 's1');
    expect(report).toMatchObject({ status: 'exported' });
    expect(report.writes!.parts).toBeGreaterThan(1); // spilled before the compaction
    expect(await exportedState(f, 4)).toStrictEqual(s.model.snapshot());
  });

  it('adds deltas without reading the snapshot until they outgrow half the base, then compacts', async () => {
    const f = await fixture(dynalite());
    const s = new TestShard(f);
    await s.keyed(Array.from({ length: 40 }, (_, i) => ({ id: `k${i}`, pad: 'x'.repeat(50) })));
    await s.flush();
    expect((await exportShard(exportDepsOf(f), 's1')).parts).toBe(1);
    const partsRead = () => f.store.counts().getStream;
    const shapes: Array<[number, boolean]> = [];
    for (let round = 0; round < 5; round++) {
      await s.keyed([{ id: `k${round}`, v: round }]);
      await s.flush();
      const before = partsRead();
      const report = await exportShard(exportDepsOf(f), 's1');
      shapes.push([report.parts, report.writes!.compacted]);
      // Without a compaction only the one new WAL object is streamed.
      if (!report.writes!.compacted) expect(partsRead() - before).toBe(1);
    }
    // Base ~40 rows; each delta one small row: never past half the base, so no compaction yet.
    expect(shapes).toEqual([
      [2, false],
      [3, false],
      [4, false],
      [5, false],
      [6, false],
    ]);
    await s.keyed(Array.from({ length: 30 }, (_, i) => ({ id: `k${i}`, pad: 'y'.repeat(50) })));
    await s.flush();
    const putsBefore = f.store.counts().putIfAbsent;
    const compacting = await exportShard(exportDepsOf(f), 's1');
    expect(compacting).toMatchObject({ parts: 1, liveKeys: 40, writes: { compacted: true } });
    expect(await exportedState(f, compacting.coveredPosition!)).toStrictEqual(s.model.snapshot());
    // The fold's held changes went straight into the new base: no delta of this range was
    // stored (to be read back and deleted), only the base, a segment-free manifest and nothing else.
    const written = keysOf(f.memory).parts;
    expect(
      written.filter((key) => key.includes(`-${padPosition(compacting.coveredPosition!)}-`)),
    ).toEqual([
      snapshotPartKey('s1', { from: 0, to: compacting.coveredPosition!, kind: 'base', index: 0 }),
    ]);
    expect(compacting.writes).toMatchObject({ parts: 1, adoptedParts: 0 });
    expect(f.store.counts().putIfAbsent - putsBefore).toBe(2); // the base and the manifest
  });

  it('never reads at or beyond walNextPos, where an append may be in flight', async () => {
    const { f, s } = await twoObjects();
    await f.memory.putIfAbsent(walKey('s1', 2), new Uint8Array([1, 2, 3])); // garbage "in flight"
    const report = await exportShard(exportDepsOf(f), 's1');
    expect(report.status).toBe('exported');
    expect(report.coveredPosition).toBe(2);
    expect(await exportedState(f, 2)).toStrictEqual(s.model.snapshot());
  });

  it('a crash after the write and before the watermark is completed by the next export', async () => {
    const { f, s } = await twoObjects();
    const crash = exportDepsOf(f, {
      faults: (point) => {
        if (point === ExportFaultPoint.afterWrite) throw new SimulatedCrash(point as never);
      },
    });
    expect(await caught(() => exportShard(crash, 's1'))).toBeInstanceOf(SimulatedCrash);
    expect((await readShardRecord(f.table, 's1'))?.aofWatermark).toBe(0);
    expect(await f.memory.get(manifestKey('s1', 2))).toBeDefined();

    const next = await exportShard(exportDepsOf(f), 's1');
    expect(next).toMatchObject({
      status: 'adopted',
      key: manifestKey('s1', 2),
      watermark: { before: 0, after: 2 },
    });
    expect((await verifyShard(recoveryDepsOf(f), 's1')).findings).toEqual([]);
    expect(await exportedState(f, 2)).toStrictEqual(s.model.snapshot());
  });

  it('after a crashed export, more WAL and a recovery both build on it correctly', async () => {
    const { f, s } = await twoObjects();
    const crash = exportDepsOf(f, {
      faults: (point) => {
        if (point === ExportFaultPoint.afterWrite) throw new SimulatedCrash(point as never);
      },
    });
    await caught(() => exportShard(crash, 's1'));
    await s.keyless([{ n: 3 }]);
    await s.flush();
    const rebuild = await rebuildShard(recoveryDepsOf(f), 's1');
    expect(rebuild).toMatchObject({
      status: 'rebuilt',
      export: { key: manifestKey('s1', 2) },
      replayed: { fromPosition: 2, toPosition: 3 },
    });
    const next = await exportShard(exportDepsOf(f), 's1');
    expect(next).toMatchObject({
      status: 'exported',
      base: { coveredPosition: 2 },
      watermark: { after: 3 },
    });
    expect(await exportedState(f, 3)).toStrictEqual(s.model.snapshot());
    expect(
      snapshotOf((await replayShard(f.store, 's1', { keepRows: true, keepKeyless: true })).state),
    ).toStrictEqual(s.model.snapshot());
  });

  it('fails naming the object when the WAL below walNextPos is broken, and writes nothing', async () => {
    const { f } = await twoObjects();
    await overwrite(f, walKey('s1', 1), new Uint8Array([0x1f, 0x8b, 1, 2]));
    const report = await exportShard(exportDepsOf(f), 's1');
    expect(report).toMatchObject({
      status: 'failed',
      stoppedAt: { position: 1, key: walKey('s1', 1), reason: 'corrupt' },
    });
    expect(report.reason).toContain(walKey('s1', 1));
    expect(await f.memory.get(manifestKey('s1', 2))).toBeUndefined();
    expect(keysOf(f.memory).segments).toEqual([]);
    expect((await readShardRecord(f.table, 's1'))?.aofWatermark).toBe(0);
  });

  it('falls back to the previous export when the newest below the target does not verify', async () => {
    const { f, s } = await twoObjects();
    await exportShard(exportDepsOf(f), 's1');
    await s.keyless([{ n: 3 }]);
    await s.flush();
    await exportShard(exportDepsOf(f), 's1'); // at 3
    await overwrite(
      f,
      manifestKey('s1', 3),
      encodeWal({
        header: {
          shard: 's1',
          position: 3,
          epoch: 1,
          firstSeq: 1,
          lastSeq: 1,
          firstRowOffset: 0,
          rowCount: 0,
          voidSeqs: [1],
          createdAtMs: 0,
        },
        rows: [],
      }),
    );
    await s.keyed([{ id: 'z', v: 1 }]);
    await s.flush();
    const report = await exportShard(exportDepsOf(f), 's1');
    expect(report.status).toBe('exported');
    expect(report.base?.coveredPosition).toBe(2);
    expect(report.fallbacks.map((x) => x.key)).toEqual([manifestKey('s1', 3)]);
    expect(report.warnings[0]).toContain('failed verification');
    expect(await exportedState(f, 4)).toStrictEqual(s.model.snapshot());
  });

  it('skips a poisoned shard and one whose record is behind an export', async () => {
    const { f } = await twoObjects();
    await poisonShard(f.table, 's1', 'test poison', f.clock.now());
    expect(await exportShard(exportDepsOf(f), 's1')).toMatchObject({
      status: 'skipped',
      reason: expect.stringContaining('poisoned'),
    });

    const g = await twoObjects();
    await g.f.memory.putIfAbsent(manifestKey('s1', 9), new Uint8Array([1]));
    expect(await exportShard(exportDepsOf(g.f), 's1')).toMatchObject({
      status: 'skipped',
      reason: expect.stringContaining('record is behind S3'),
    });
  });
});

describe(exportAll, () => {
  it('exports every shard whose WAL advanced past its watermark, and only those', async () => {
    const f = await fixture(dynalite());
    for (const shard of ['a1', 'b2', 'c3']) {
      const s = new TestShard(f, shard);
      await s.keyed([{ id: shard, v: 1 }]);
      if (shard !== 'c3') await s.flush(); // c3 has buffered rows only
    }
    const first = await exportAll(exportDepsOf(f));
    expect(first).toMatchObject({ shards: 3, due: 2, failed: [], deferred: [] });
    expect(first.reports.map((r) => [r.shard, r.status])).toEqual([
      ['a1', 'exported'],
      ['b2', 'exported'],
    ]);
    const second = await exportAll(exportDepsOf(f));
    expect(second).toMatchObject({ shards: 3, due: 0, reports: [] });
  });
});
