/**
 * Zero-copy history: below its table's high-water a routed shard's keyless
 * rows are listed as table segments (nothing stored), read back from the
 * table's data files line for line as a stored segment holds them.
 */
import { describe, expect, it } from 'vitest';
import { CorruptDataError } from '../../lib/errors.js';
import { exportShard } from '../../lib/export/export-shard.js';
import { historyKeptFrom, readRetentionCursors } from '../../lib/export/retention-cursor.js';
import { decodeManifest } from '../../lib/manifest/codec.js';
import { manifestKey } from '../../lib/manifest/format.js';
import { FindingKind } from '../../lib/recovery/findings.js';
import { verifyShard } from '../../lib/recovery/verify.js';
import { TABLE_SEGMENT_VERSION } from '../../lib/segment/format.js';
import { readSegment } from '../../lib/segment/reader.js';
import type { ObjectStore } from '../../lib/store/object-store.js';
import { appendTable } from '../../lib/table/append.js';
import { compactTable } from '../../lib/table/compact.js';
import { expireSnapshots } from '../../lib/table/expire.js';
import { tableHold } from '../../lib/table/floor.js';
import { removeOrphans } from '../../lib/table/orphans.js';
import { runTables } from '../../lib/table/run-tables.js';
import { exportDepsOf, recoveryDepsOf, TestShard } from '../recovery/support.js';
import { type Fixture, fixture, useDynalite } from '../support/harness.js';
import { readTable, testConfig, testDeps } from '../table/helpers.js';
import { keysOf, manifestAt, manifestState } from './helpers.js';

const dynalite = useDynalite();

/**
 * Two shards take the same puts: `s1` is routed to table `t`, `s2` to none.
 * Each round puts keyed and keyless rows over three flushes; the table
 * commits after the rounds in `commitAfter`; each round ends with an export
 * of both shards.
 */
async function run(f: Fixture, commitAfter: readonly number[], rounds = 4, targetFileBytes = 150) {
  const config = testConfig('s1=t', { targetFileBytes });
  const deps = testDeps(f.memory, config);
  const exportDeps = exportDepsOf(f, { tableHold: tableHold(f.memory, config) });
  const shards = [new TestShard(f, 's1'), new TestShard(f, 's2')];
  let covered = 0;
  for (let round = 0; round < rounds; round++) {
    for (const s of shards) {
      await s.keyless([
        { round, n: 1, text: 'a "quoted" é' },
        { round, n: 2 },
      ]);
      await s.flush();
      await s.keyed([{ id: `k${round % 2}`, v: round }]);
      await s.keyless([{ round, n: 3, emoji: '\u{1F600} \u2028' }]);
      await s.flush();
      await s.keyless([{ round, n: 4 }]);
      await s.flush();
    }
    f.clock.advance(1000);
    if (commitAfter.includes(round)) {
      deps.clock.ms = f.clock.now();
      expect((await appendTable(deps, 't', ['s1'])).status).toBe('committed');
    }
    for (const s of shards) {
      const report = await exportShard(exportDeps, s.shard);
      expect(report.status).toBe('exported');
      covered = report.coveredPosition!;
    }
  }
  return { deps, covered };
}

describe('table segments', () => {
  it('lists the rows the table holds as table segments, stores none of them, and reads back the lines of stored segments', async () => {
    const f = await fixture(dynalite());
    const { covered } = await run(f, [0, 2]);
    const tabled = await manifestAt(f.memory, covered, 's1');
    // Three objects a round; the table committed rounds 0 and 2 before their exports, not 1 and 3.
    expect(tabled.segments.map((s) => [s.v, s.first, s.end, s.table ?? null])).toEqual([
      [TABLE_SEGMENT_VERSION, 0, 3, 't'],
      [1, 3, 6, null],
      [TABLE_SEGMENT_VERSION, 6, 9, 't'],
      [1, 9, 12, null],
    ]);
    expect(keysOf(f.memory, 's1').segments).toEqual([
      'shards/s1/seg/00000000000000000003.ndjson.gz',
      'shards/s1/seg/00000000000000000009.ndjson.gz',
    ]);
    const bytes = (await f.memory.get(manifestKey('s1', covered)))!;
    const { gunzipSync } = await import('node:zlib');
    expect(gunzipSync(bytes).toString().split('\n')[0]).toContain('"v":2');
    // The same puts on an unrouted shard: the same lines, from stored segments.
    const plain = await manifestAt(f.memory, covered, 's2');
    expect(plain.segments.every((s) => s.v === 1)).toBe(true);
    expect(await manifestState(f.memory, covered, 's1')).toEqual(
      await manifestState(f.memory, covered, 's2'),
    );
  });

  it('reads the same rows after compaction, expiry and orphan removal replaced the files', async () => {
    const f = await fixture(dynalite());
    const { deps, covered } = await run(f, [0, 1, 2, 3], 4, 1024 * 1024);
    const before = await manifestState(f.memory, covered, 's1');
    deps.clock.ms += 1000;
    expect((await compactTable(deps, 't')).status).toBe('compacted');
    deps.clock.ms += 3_600_000;
    const expired = await expireSnapshots(deps, 't');
    expect(expired.deleted + (await removeOrphans(deps, 't')).deleted).toBeGreaterThan(0);
    expect(await manifestState(f.memory, covered, 's1')).toEqual(before);
    expect(before.keyless).toHaveLength(16);
  });

  it('drops from the table, once no manifest lists them, the rows history retention dropped, and every manifest left still reads', async () => {
    const f = await fixture(dynalite(), {
      walRetentionMs: 1_000,
      exportRetentionMs: 1_000,
      historyRetentionMs: 2_500,
    });
    const { deps, covered } = await run(f, [0, 1, 2, 3, 4, 5], 6, 1024 * 1024);
    const keptFrom = (await readRetentionCursors(f.table, 's1')).historyKeptFrom;
    const manifests = keysOf(f.memory, 's1').manifests;
    const floors = await Promise.all(
      manifests.map(async (p) => (await manifestAt(f.memory, p, 's1')).header.historyFloor),
    );
    expect(keptFrom).toBeGreaterThan(0);
    expect(keptFrom).toBe(Math.min(...floors));
    const before = await readTable(deps, 't');

    // The table job's maintenance run, wired as functions/table-commit.ts wires it.
    deps.clock.ms = f.clock.now();
    const job = await runTables({ ...deps, historyKeptFrom: historyKeptFrom(f.table) }, ['s1'], {
      maintain: true,
    });

    expect(job.tables[0]?.error).toBeUndefined();
    expect(job.tables[0]?.retain).toMatchObject({ status: 'removed' });
    const after = await readTable(deps, 't');
    expect(after).toEqual(before.filter((r) => r.key !== null || r.position >= keptFrom));
    expect(after.length).toBeLessThan(before.length);
    // Every manifest left reads its table segments from what the table still holds.
    for (const position of manifests) {
      const manifest = await manifestAt(f.memory, position, 's1');
      for (const ref of manifest.segments) await readSegment(f.store, 's1', ref);
    }
    expect((await verifyShard(recoveryDepsOf(f), 's1')).findings).toEqual([]);
    expect((await manifestState(f.memory, covered, 's1')).keyless.length).toBeGreaterThan(0);
  });

  it('fails loud when the table does not hold the rows the manifest records', async () => {
    const f = await fixture(dynalite());
    const { covered } = await run(f, [0, 1], 2);
    const manifest = await manifestAt(f.memory, covered, 's1');
    const ref = manifest.segments[0]!;
    expect(ref.v).toBe(TABLE_SEGMENT_VERSION);
    const read = (changed: object) => readSegment(f.store, 's1', { ...ref, ...changed });
    await expect(read({})).resolves.toBeUndefined();
    await expect(read({ crc32: (ref.crc32 + 1) >>> 0 })).rejects.toThrow(
      /the manifest records crc32 .*, the table's rows make/,
    );
    await expect(read({ end: ref.end + 3, rows: ref.rows })).rejects.toThrow(CorruptDataError);
    await expect(read({ first: ref.first + 1 })).rejects.toThrow(/offset .* expected/);
    await expect(read({ table: 'none' })).rejects.toThrow(/table none has no metadata/);
  });

  it('starts the read again from the current snapshot when a listed file is gone', async () => {
    const f = await fixture(dynalite());
    const { covered } = await run(f, [0], 1);
    const ref = (await manifestAt(f.memory, covered, 's1')).segments[0]!;
    let hidden = 0;
    const flaky: ObjectStore = Object.create(f.memory, {
      get: {
        value: async (key: string) => {
          if (key.endsWith('.parquet') && hidden < 1) {
            hidden += 1;
            return undefined;
          }
          return f.memory.get(key);
        },
      },
    });
    const rows: number[] = [];
    await readSegment(flaky, 's1', ref, (row) => void rows.push(row.offset));
    expect(hidden).toBe(1);
    expect(rows).toHaveLength(ref.rows);
    const gone: ObjectStore = Object.create(f.memory, {
      get: {
        value: async (key: string) => (key.endsWith('.parquet') ? undefined : f.memory.get(key)),
      },
    });
    await expect(readSegment(gone, 's1', ref)).rejects.toThrow(/listed by the table but missing/);
  });

  it('decodes a manifest listing a table segment only as format 2', async () => {
    const f = await fixture(dynalite());
    const { covered } = await run(f, [0], 1);
    const key = manifestKey('s1', covered);
    const manifest = await manifestAt(f.memory, covered, 's1');
    expect(manifest.segments[0]!.v).toBe(TABLE_SEGMENT_VERSION);
    const { gunzipSync, gzipSync } = await import('node:zlib');
    const text = gunzipSync((await f.memory.get(key))!).toString();
    const asV1 = gzipSync(text.replace('"v":2', '"v":1'));
    expect(() => decodeManifest(key, asV1)).toThrow(/./);
  });

  it("is read by a shard's full verify, which reports a table that lost its rows", async () => {
    const f = await fixture(dynalite());
    // One data file: the first verify's read of it is the one this process keeps.
    await run(f, [0], 1, 1024 * 1024);
    expect((await verifyShard(recoveryDepsOf(f), 's1')).findings).toEqual([]);
    for (const key of f.memory.keys().filter((k) => k.endsWith('.parquet'))) {
      await f.memory.delete(key);
    }
    const findings = (await verifyShard(recoveryDepsOf(f), 's1')).findings;
    expect(findings.map((finding) => finding.kind)).toEqual([FindingKind.exportIncomplete]);
    expect(findings[0]!.detail).toMatch(/tables\/t\/data\/.*listed by the table but missing/);
    // The scheduled verify (no full check) reads no table segment.
    expect(
      (await verifyShard(recoveryDepsOf(f), 's1', { fullExportCheck: false })).findings,
    ).toEqual([]);
  });
});
