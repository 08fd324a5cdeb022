import { describe, expect, it } from 'vitest';
import { exportShard } from '../../lib/export/export-shard.js';
import { readShardRecord } from '../../lib/memtable/shard-record.js';
import { aofKey, positionOfKey, walPrefix } from '../../lib/paths.js';
import { rebuildShard } from '../../lib/recovery/rebuild.js';
import { replayShard } from '../../lib/recovery/replay.js';
import { verifyShard } from '../../lib/recovery/verify.js';
import {
  exportDepsOf,
  overwrite,
  recoveryDepsOf,
  snapshotOf,
  TestShard,
} from '../recovery/support.js';
import { fixture, useDynalite } from '../support/harness.js';

const dynalite = useDynalite();
const RETENTION_MS = 60_000;

async function walPositions(f: Awaited<ReturnType<typeof fixture>>): Promise<number[]> {
  return f.memory
    .keys()
    .filter((k) => k.startsWith(walPrefix('s1')))
    .map((k) => positionOfKey(k)!);
}

/** Two WAL objects per round, an export after each round. */
async function rounds(count: number, advanceMs: number) {
  const f = await fixture(dynalite(), { walRetentionMs: RETENTION_MS });
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

describe('WAL retention', () => {
  it('retires nothing while the covering export is younger than the retention', async () => {
    const { f, reports } = await rounds(3, 1_000);
    expect(reports.at(-1)?.retention).toMatchObject({ floor: 4, deleted: 0 });
    expect(reports.at(-1)?.retention?.note).toContain('older than the retention');
    expect(await walPositions(f)).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('retires below the previous export once an export covering them is older than the retention', async () => {
    const { f, reports } = await rounds(3, RETENTION_MS + 1);
    // Round 2 (watermark 4, previous export 2) retires 0-1; round 3 (watermark 6, previous 4) retires 2-3.
    expect(reports[1]?.retention).toMatchObject({
      floor: 2,
      retiredBelow: 2,
      deleted: 2,
      fromPosition: 0,
      toPosition: 1,
    });
    expect(reports[2]?.retention).toMatchObject({
      floor: 4,
      retiredBelow: 4,
      deleted: 2,
      fromPosition: 2,
      toPosition: 3,
    });
    const watermark = (await readShardRecord(f.table, 's1'))!.aofWatermark;
    expect(watermark).toBe(6);
    // Never at or above the previous export (4), so never at or above the watermark, never the newest.
    expect(await walPositions(f)).toEqual([4, 5]);
  });

  it('keeps what a fallback needs: with the newest export corrupt, rebuild reads from the previous one', async () => {
    const { f, s } = await rounds(3, RETENTION_MS + 1);
    const newest = (await f.memory.get(aofKey('s1', 6)))!;
    await overwrite(f, aofKey('s1', 6), newest.subarray(0, 40));
    const report = await rebuildShard(recoveryDepsOf(f), 's1');
    expect(report).toMatchObject({
      status: 'rebuilt',
      export: { coveredPosition: 4 },
      replayed: { fromPosition: 4, toPosition: 6 },
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
});
