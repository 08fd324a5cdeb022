/**
 * A shard record restored from a backup older than the WAL retention (found
 * by the simulation's record restore, seeds 2000022 and 2000028): its
 * `walNextPos` names a slot export retention already deleted. Writing there
 * succeeds (the slot is free), the commit calls a put at a reissued seq
 * durable, and its rows sit below the export, where no reader and no rebuild
 * looks; the rebuild then took the seq as covered and the acked put was lost.
 * The flusher must prove no export covers its position first (I8 in
 * `lib/flush/flush-shard.ts`, B1-B2 in `lib/flush/record-behind.ts`).
 */
import { describe, expect, it } from 'vitest';
import { UnavailableError } from '../../lib/errors.js';
import { exportShard } from '../../lib/export/export-shard.js';
import { type FaultHook, FaultPoint } from '../../lib/flush/fault-points.js';
import { flushShard } from '../../lib/flush/flush-shard.js';
import { readShardRecord } from '../../lib/memtable/shard-record.js';
import { walKey } from '../../lib/paths.js';
import { rebuildShard } from '../../lib/recovery/rebuild.js';
import { MemoryObjectStore } from '../../lib/store/memory-store.js';
import type { ListOptions, ObjectStore } from '../../lib/store/object-store.js';
import { exportDepsOf, recoveryDepsOf, TestShard } from '../recovery/support.js';
import { type Fixture, fixture, useDynalite } from '../support/harness.js';
import { expireBatchItems, restoreShardItem, snapshotShardItem } from '../support/shard-item.js';

const dynalite = useDynalite();
/** Short enough that the test's exports age past it; B2 then lists after 500 ms. */
const WAL_RETENTION_MS = 1_000;

/**
 * S3 holds seqs 1-3 at positions 0-2, two exports cover them and retention
 * deleted positions 0-1; the record is restored from its backup taken after
 * position 0 (walNextPos 1, durableSeq 1, nextSeq 2) once the items expired.
 */
async function restoredBehindRetiredSlots(f: Fixture, s: TestShard): Promise<void> {
  await s.keyless([{ n: 1 }]);
  await s.flush(); // position 0
  const backup = await snapshotShardItem(f.table, 's1');
  await s.keyless([{ n: 2 }]);
  await s.flush(); // position 1
  expect((await exportShard(exportDepsOf(f), 's1')).status).toBe('exported'); // covers < 2
  f.clock.advance(2 * WAL_RETENTION_MS);
  await s.keyless([{ n: 3 }]);
  await s.flush(); // position 2
  await exportShard(exportDepsOf(f), 's1'); // covers < 3; retention deletes positions 0-1
  expect(await f.memory.get(walKey('s1', 1))).toBeUndefined();
  await restoreShardItem(f.table, backup);
  await expireBatchItems(f.table, 's1', 3);
  f.clock.advance(2 * WAL_RETENTION_MS);
}

/**
 * Seq 1 flushed at position 0, the record backed up, `later` more puts flushed
 * at position 1, and the backup restored (durableSeq 1, nextSeq 2, walNextPos
 * 1) while their items still live: the restored record hands seq 2 out again.
 */
async function restoredBehindLaterFlush(f: Fixture, s: TestShard, later: number): Promise<void> {
  await s.keyless([{ n: 1 }]);
  await s.flush(); // position 0: seq 1
  const backup = await snapshotShardItem(f.table, 's1');
  for (let n = 2; n < 2 + later; n++) await s.keyless([{ n }]);
  await s.flush(); // position 1
  f.clock.advance(100);
  await restoreShardItem(f.table, backup);
}

/** The reason of a flush that found its record behind S3 and poisoned the shard. */
function poisonReason(outcome: Awaited<ReturnType<typeof flushShard>>): string {
  expect(outcome).toMatchObject({ status: 'poisoned', detected: true });
  if (outcome.status !== 'poisoned') throw new Error('unreachable');
  return outcome.reason;
}

describe('flushShard', () => {
  it('poisons a record an export is ahead of instead of writing a deleted slot', async () => {
    const f = await fixture(dynalite(), { walRetentionMs: WAL_RETENTION_MS });
    const s = new TestShard(f);
    await restoredBehindRetiredSlots(f, s);
    const reissued = await s.keyless([{ n: 'after the restore' }]);
    expect(reissued).toBe(2); // a seq S3 already holds (at position 1, deleted)

    const outcome = await flushShard(f.flushDeps('flusher'), 's1');
    const reason = poisonReason(outcome);
    expect(reason).toContain('shards/s1/manifest/00000000000000000002'); // the first above 1
    expect(await f.memory.get(walKey('s1', 1))).toBeUndefined(); // nothing written there
    const record = await readShardRecord(f.table, 's1');
    expect(record).toMatchObject({ durableSeq: 1, walNextPos: 1 });
    expect(record?.poison).toBe(reason);

    // The operator's rebuild sets the put aside for them: never lost, never called durable.
    const report = await rebuildShard(recoveryDepsOf(f), 's1');
    expect(report.status).toBe('rebuilt');
    expect(report.batches?.rejected.map((r) => [r.seq, r.rows])).toEqual([
      [2, [{ text: '{"n":"after the restore"}' }]],
    ]);
    expect(report.cursors.after).toMatchObject({ durableSeq: 3, walNextPos: 3, poison: null });
  });

  it('poisons a record whose nextSeq is not past the object it would commit (C6)', async () => {
    const f = await fixture(dynalite(), { walRetentionMs: WAL_RETENTION_MS });
    const s = new TestShard(f);
    await s.keyless([{ n: 1 }]);
    const backup = await snapshotShardItem(f.table, 's1'); // nextSeq 2, nothing durable
    await s.keyless([{ n: 2 }]);
    await s.flush(); // position 0: seqs 1-2
    await restoreShardItem(f.table, backup);

    // The flusher adopts position 0 (its items hold the same rows), but committing it would
    // leave durableSeq 2 with nextSeq 2: the next put would take seq 2, which no flush reads.
    const outcome = await flushShard(f.flushDeps('flusher'), 's1');
    const reason = poisonReason(outcome);
    expect(reason).toContain("holds seqs through 2, the record's nextSeq is 2");
    expect(await readShardRecord(f.table, 's1')).toMatchObject({ durableSeq: 0, nextSeq: 2 });

    const report = await rebuildShard(recoveryDepsOf(f), 's1');
    expect(report.cursors.after).toMatchObject({ durableSeq: 2, nextSeq: 3, poison: null });
    expect(await s.keyless([{ n: 3 }])).toBe(3);
  });

  it('poisons a restored record before flushing an older batch at a seq it had not allocated (B3)', async () => {
    const f = await fixture(dynalite(), { walRetentionMs: WAL_RETENTION_MS });
    const s = new TestShard(f);
    await restoredBehindLaterFlush(f, s, 2); // position 1: seqs 2-3

    // The restored record hands seq 2 out again: the old item there refuses the put.
    await expect(s.keyless([{ n: 'refused' }])).rejects.toThrow('seq 2 already holds');

    // Simulation seed 20002923: the flusher (its claim saw nextSeq 3) read the old items 2-3,
    // then the old item at 3 expired, a put of the restored record took seq 3 and wrote it
    // (acked), and the commit of position 1, the old rows at 3, passed C6 with nextSeq 4. The
    // rebuild trusted seq 3 (rule 1): the acked put was lost.
    const acked: number[] = [];
    const faults: FaultHook = async (point) => {
      if (point !== FaultPoint.afterResolve) return;
      await expireBatchItems(f.table, 's1', 3);
      acked.push(await s.keyless([{ n: 'reissued' }]));
    };
    const outcome = await flushShard(f.flushDeps('flusher', { faults }), 's1');
    const reason = poisonReason(outcome);
    expect(reason).toContain('seq 3 holds a batch written at');
    expect(acked).toEqual([]);
    expect(await readShardRecord(f.table, 's1')).toMatchObject({ durableSeq: 1, walNextPos: 1 });
    await expect(s.keyless([{ n: 'while poisoned' }])).rejects.toThrow(reason);

    const report = await rebuildShard(recoveryDepsOf(f), 's1');
    expect(report.batches?.rejected).toEqual([]);
    expect(report.cursors.after).toMatchObject({ durableSeq: 3, walNextPos: 2, poison: null });
    expect(await s.keyless([{ n: 4 }])).toBe(4);
  });

  it('poisons a restored record before committing an adopted object past its resolved batches (B3)', async () => {
    const f = await fixture(dynalite(), { walRetentionMs: WAL_RETENTION_MS });
    const s = new TestShard(f);
    await restoredBehindLaterFlush(f, s, 3); // position 1: seqs 2-4
    await expect(s.keyless([{ n: 'refused' }])).rejects.toThrow('seq 2 already holds');

    // The size cap stops resolution at seq 2; the object at position 1 reaches to seq 4, whose
    // old items its claim (nextSeq 3) had not seen allocated. Puts allocate 3 and 4 meanwhile, so
    // C6 (nextSeq 5 > 4) would let the commit through.
    const faults: FaultHook = async (point) => {
      if (point !== FaultPoint.afterResolve) return;
      await expect(s.keyless([{ n: 'refused' }])).rejects.toThrow('seq 3 already holds');
      await expect(s.keyless([{ n: 'refused' }])).rejects.toThrow('seq 4 already holds');
    };
    const deps = f.flushDeps('flusher', { faults, maxWalObjectBytes: 1 });
    const outcome = await flushShard(deps, 's1');
    const reason = poisonReason(outcome);
    expect(reason).toContain('seq 3 holds a batch written at');
    expect(await readShardRecord(f.table, 's1')).toMatchObject({ durableSeq: 1, walNextPos: 1 });
  });

  it('lists no export while walNextPos was set less than half the WAL retention ago', async () => {
    const f = await fixture(dynalite(), { walRetentionMs: WAL_RETENTION_MS });
    const s = new TestShard(f);
    await s.keyless([{ n: 1 }]);
    f.store.reset();
    await s.flush(); // a new record: dated by the allocation that created it (A4)
    expect(f.store.counts().list).toBe(0);
    f.clock.advance(WAL_RETENTION_MS / 2 - 1);
    await s.keyless([{ n: 2 }]);
    f.store.reset();
    await s.flush();
    expect(f.store.counts().list).toBe(0);
    f.clock.advance(WAL_RETENTION_MS / 2);
    await s.keyless([{ n: 3 }]);
    f.store.reset();
    await s.flush();
    expect(f.store.counts().list).toBe(2);
    expect((await readShardRecord(f.table, 's1'))?.durableSeq).toBe(3);
  });

  it('frees the shard at once when the listing fails', async () => {
    const failing = new FailingList();
    const f = await fixture(dynalite(), { walRetentionMs: WAL_RETENTION_MS }, failing);
    const s = new TestShard(f);
    await s.keyless([{ n: 1 }]);
    f.clock.advance(WAL_RETENTION_MS); // an idle shard: its flusher lists (B2)
    failing.failures = 1;
    await expect(flushShard(f.flushDeps('flusher'), 's1')).rejects.toBeInstanceOf(UnavailableError);
    // The lease is released: the next tick flushes without waiting for it to lapse.
    expect((await readShardRecord(f.table, 's1'))?.leaseOwner).toBeUndefined();
    expect(await flushShard(f.flushDeps('flusher'), 's1')).toMatchObject({ status: 'flushed' });
  });
});

/** A memory-backed store whose next `failures` listings fail as S3 would (503). */
class FailingList implements ObjectStore {
  failures = 0;
  private readonly inner = new MemoryObjectStore();
  putIfAbsent = (key: string, body: Uint8Array) => this.inner.putIfAbsent(key, body);
  putStreamIfAbsent = (key: string, body: AsyncIterable<Uint8Array>) =>
    this.inner.putStreamIfAbsent(key, body);
  get = (key: string) => this.inner.get(key);
  getStream = (key: string) => this.inner.getStream(key);
  delete = (key: string) => this.inner.delete(key);
  list(prefix: string, options?: ListOptions): AsyncIterable<string> {
    if (this.failures > 0) {
      this.failures -= 1;
      throw new UnavailableError(`injected: list ${prefix} failed`);
    }
    return this.inner.list(prefix, options);
  }
}
