/**
 * A shard record restored from a backup taken before puts that were still
 * pending when it was restored (found by the simulation's record restore,
 * seed 316): rebuild must keep `nextSeq` above every pending batch it finds,
 * or the record says nothing is pending, the flusher never reads them, and
 * acked rows expire unflushed. And it must seal the seqs the restored record
 * handed out again and nobody wrote (seed 6004694), or a takeover of a dead
 * put's reservation naming one reads it as landed (rule 3 in
 * `lib/recovery/reconcile-batches.ts`). And a restore that lands while a
 * rebuild replays, before its fence, must not make the batches the WAL holds
 * unlocatable (seed 10008577). Nor may an item the export covers be judged by
 * two processes' clocks alone where they are within the skew (seed 10014295).
 */
import { GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { exportShard } from '../../lib/export/export-shard.js';
import { readShardRecord } from '../../lib/memtable/shard-record.js';
import {
  batchRange,
  lifetimesOf,
  META_SK,
  queryShardItems,
  shardPk,
} from '../../lib/memtable/table.js';
import { walKey } from '../../lib/paths.js';
import { PutFaultPoint } from '../../lib/put/fault-points.js';
import { putRows } from '../../lib/put/put-rows.js';
import { parsePutValue } from '../../lib/put/schema.js';
import { rebuildShard } from '../../lib/recovery/rebuild.js';
import { verifyShard } from '../../lib/recovery/verify.js';
import type { ListOptions } from '../../lib/store/object-store.js';
import { type Fixture, fixture, useDynalite } from '../support/harness.js';
import { expireBatchItems } from '../support/shard-item.js';
import { drain, readWalChain } from '../support/wal-chain.js';
import { exportDepsOf, recoveryDepsOf, TestShard } from './support.js';

const dynalite = useDynalite();

const SKEW_MS = 200;

/** Puts `rows` to s1 as a process whose clock is `offsetMs` off the fixture's. */
async function putAt(f: Fixture, offsetMs: number, rows: Array<Record<string, unknown>>) {
  const body = parsePutValue({ key: 'id', rows }, 10_000);
  const now = () => f.clock.now() + offsetMs;
  return (await putRows({ ...f.put, now }, { shard: 's1', body, durability: 'buffered' })).ack.seq;
}

/**
 * Seqs 1-2 flushed to position 0 and exported (manifest at 1) with the record backed up at
 * nextSeq 2 in between; seq 2 put by a process `offsetMs` off the exporter's clock.
 */
async function exportedAfterBackup(offsetMs: number) {
  const f = await fixture(dynalite(), { clockSkewMs: SKEW_MS });
  await putAt(f, 0, [{ id: 'a', n: 1 }]);
  const restore = await backUpRecord(f, 's1'); // durableSeq 0, nextSeq 2
  expect(await putAt(f, offsetMs, [{ id: 'b', n: 2 }])).toBe(2);
  await new TestShard(f).flush(); // position 0: seqs 1-2
  expect((await exportShard(exportDepsOf(f), 's1')).status).toBe('exported');
  const rebuild = () => rebuildShard({ ...recoveryDepsOf(f), clockSkewMs: SKEW_MS }, 's1');
  return { f, restore, rebuild };
}

/** Takes a backup of shard `shard`'s record; the function it returns puts it back (a restore). */
async function backUpRecord(f: Fixture, shard: string): Promise<() => Promise<void>> {
  const { table } = f;
  const Key = { pk: { S: shardPk(shard) }, sk: { S: META_SK } };
  const backup = await table.client.send(
    new GetItemCommand({ TableName: table.tableName, Key, ConsistentRead: true }),
  );
  return async () => {
    await table.client.send(new PutItemCommand({ TableName: table.tableName, Item: backup.Item! }));
  };
}

describe('rebuildShard', () => {
  it('keeps nextSeq above the pending batches of a record restored behind them', async () => {
    const f = await fixture(dynalite());
    const s = new TestShard(f);
    await s.put({ rows: [{ n: 1 }] });
    const restore = await backUpRecord(f, 's1'); // durableSeq 0, nextSeq 2
    await s.put({ rows: [{ n: 2 }] });
    await s.flush(); // position 0: seqs 1-2
    const pendingSeqs = [await s.put({ rows: [{ n: 3 }] }), await s.put({ rows: [{ n: 4 }] })];
    expect(pendingSeqs).toEqual([3, 4]);

    // The table is restored from the backup once the flushed items expired: S3 holds seqs 1-2,
    // the record says nothing is durable and seq 2 is the last allocated, seqs 3-4 are pending.
    await restore();
    await expireBatchItems(f.table, 's1', 2);

    const report = await rebuildShard(recoveryDepsOf(f), 's1');
    expect(report.status).toBe('rebuilt');
    expect(report.batches?.pending).toMatchObject({ batches: 2, fromSeq: 3, toSeq: 4 });
    expect(report.cursors.after).toMatchObject({ durableSeq: 2, nextSeq: 5, pending: true });

    await s.flush();
    expect((await readShardRecord(f.table, 's1'))?.durableSeq).toBe(4);
    const chain = await readWalChain(f.memory, 's1');
    expect(chain.flatMap((o) => o.rows.map((r) => r.text))).toEqual([
      '{"n":1}',
      '{"n":2}',
      '{"n":3}',
      '{"n":4}',
    ]);
  });

  it('seals a reissued seq a dead idempotent put reserved, so its retry is not answered with another put’s seq (seed 6004694)', async () => {
    const f = await fixture(dynalite());
    const s = new TestShard(f);
    await s.put({ rows: [{ n: 1 }] });
    const restore = await backUpRecord(f, 's1'); // durableSeq 0, nextSeq 2
    await s.put({ rows: [{ n: 2 }] });
    await s.flush(); // position 0: seqs 1-2
    await expireBatchItems(f.table, 's1', 2);
    await restore();

    // An idempotent put takes seq 2 again (S3 holds {n:2} there), reserves its key naming it,
    // and dies before writing its batch.
    const put = (faults?: (point: string) => Promise<void> | undefined) =>
      putRows(
        { ...f.put, faults },
        {
          shard: 's1',
          body: parsePutValue({ rows: [{ n: 'p' }] }, 10_000),
          durability: 'buffered',
          idempotencyKey: 'key-p',
        },
      );
    let claimed!: () => void;
    const reachedClaim = new Promise<void>((resolve) => {
      claimed = resolve;
    });
    void put((point) => {
      if (point !== PutFaultPoint.afterClaim) return undefined;
      claimed();
      return new Promise<void>(() => undefined);
    });
    await reachedClaim;

    // The operator's rebuild comes later than the gap seal; then the put's retry, past its lease.
    f.clock.advance(Math.max(f.config.gapSealMs, f.config.reservationLeaseMs) + 1);
    expect((await rebuildShard(recoveryDepsOf(f), 's1')).status).toBe('rebuilt');
    expect(await readShardRecord(f.table, 's1')).toMatchObject({ durableSeq: 2, nextSeq: 3 });
    const retry = await put();
    expect(retry).toMatchObject({ repeated: false, ack: { seq: 3 } });

    f.clock.advance(f.config.gapSealMs + 1);
    await drain(f.flushDeps('drain'), 's1');
    const chain = await readWalChain(f.memory, 's1');
    expect(chain.flatMap((o) => o.rows.map((r) => r.text))).toEqual([
      '{"n":1}',
      '{"n":2}',
      '{"n":"p"}',
    ]);
  });

  it('finds the WAL content below the export of an item younger than the export by less than the clock skew, quarantining none (seed 10014295)', async () => {
    // The put's clock runs 150 ms ahead of the exporter's: its item reads younger than the
    // export that holds its rows, though it was written before the export read the record.
    const { restore, rebuild } = await exportedAfterBackup(150);
    await restore();

    const report = await rebuild();
    expect(report.status).toBe('rebuilt');
    expect(report.batches?.rejected).toEqual([]);
    expect(report.batches?.covered).toBe(2);
    expect(report.cursors.after).toMatchObject({ durableSeq: 2, nextSeq: 3 });
  });

  it('quarantines a reissued seq written within the clock skew of the export by its content, not its time', async () => {
    const { f, restore, rebuild } = await exportedAfterBackup(0);
    // The flushed items expired; the restored record hands seq 2 out again, at the export's
    // instant by the put's clock: its time alone would read as the original put's.
    await expireBatchItems(f.table, 's1', 2);
    await restore();
    expect(await putAt(f, 0, [{ id: 'b', n: 'reissued' }])).toBe(2);

    const report = await rebuild();
    expect(report.status).toBe('rebuilt');
    expect(report.batches?.rejected).toMatchObject([
      { seq: 2, reason: expect.stringContaining('with different rows (position 0)') },
    ]);
  });

  it('reads no WAL object below the export written before the item by more than the clock skew', async () => {
    const f = await fixture(dynalite(), { clockSkewMs: SKEW_MS });
    const s = new TestShard(f);
    await s.put({ rows: [{ n: 1 }] });
    const restore = await backUpRecord(f, 's1'); // durableSeq 0, nextSeq 2
    for (const n of [2, 3, 4]) {
      await s.put({ rows: [{ n }] });
      await s.flush(); // positions 0-2: seqs 1-2, 3, 4
    }
    expect((await exportShard(exportDepsOf(f), 's1')).status).toBe('exported');
    f.clock.advance(10_000);
    await expireBatchItems(f.table, 's1', 4);
    await restore();
    expect(await putAt(f, 0, [{ id: 'b', n: 'reissued' }])).toBe(2);

    const read: string[] = [];
    const store = new Proxy(f.store, {
      get(target, prop) {
        if (prop === 'get') {
          return (key: string) => {
            read.push(key);
            return target.get(key);
          };
        }
        const value = Reflect.get(target, prop, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const deps = { ...recoveryDepsOf(f), store, clockSkewMs: SKEW_MS };
    const report = await rebuildShard(deps, 's1');
    expect(report.batches?.rejected).toMatchObject([
      { seq: 2, reason: expect.stringContaining('written after the export') },
    ]);
    expect(read.filter((key) => key.includes('/wal/'))).toEqual([walKey('s1', 2)]);
  });

  it('takes an item the export covers by its time when the WAL object below the export is gone', async () => {
    // 150 ms older than the export by the put's clock (within the skew), its object retired:
    // nothing left to compare, the item predates the export, so it is covered.
    const { f, restore, rebuild } = await exportedAfterBackup(-150);
    await f.memory.delete(walKey('s1', 0));
    await restore();

    const report = await rebuild();
    expect(report.status).toBe('rebuilt');
    expect(report.batches?.rejected).toEqual([]);
    expect(report.batches?.covered).toBe(2);
  });
});

describe('verifyShard', () => {
  it('extends the expiry of pending batches above a restored record’s nextSeq (seed 435)', async () => {
    const f = await fixture(dynalite());
    const s = new TestShard(f);
    await s.put({ rows: [{ n: 1 }] });
    const restore = await backUpRecord(f, 's1'); // durableSeq 0, nextSeq 2: seq 1 pending
    const above = await s.put({ rows: [{ n: 2 }] }); // seq 2, pending, above the backup's nextSeq
    await restore();

    // Until the operator's rebuild, the scheduled verify must keep seq 2 alive too.
    const { batchMs } = lifetimesOf(f.table);
    f.clock.advance(Math.ceil(batchMs / 2) + 1_000);
    await verifyShard(recoveryDepsOf(f), 's1');
    const expiries: number[] = [];
    for await (const item of queryShardItems(f.table, 's1', batchRange(1, above), 'test')) {
      expiries.push(Number(item.expiresAt?.N) * 1000);
    }
    expect(expiries).toHaveLength(2);
    for (const at of expiries) expect(at).toBeGreaterThanOrEqual(f.clock.now() + batchMs - 1_000);
  });

  it('finds the WAL content of every seq above a record restored during its replay, quarantining none (seed 10008577)', async () => {
    const f = await fixture(dynalite());
    const s = new TestShard(f);
    await s.put({ rows: [{ n: 1 }] });
    const restore = await backUpRecord(f, 's1'); // durableSeq 0, nextSeq 2
    await s.put({ rows: [{ n: 2 }] });
    await s.flush(); // position 0: seqs 1-2, their items still there

    // The operator's restore lands while the rebuild reads the WAL: after its first read of
    // the record (durableSeq 2), before its fence (which then finds durableSeq 0).
    let restored = false;
    const store = new Proxy(f.store, {
      get(target, prop) {
        if (prop === 'list') {
          return async function* (prefix: string, options?: ListOptions) {
            if (!restored && prefix.includes('/wal/')) {
              restored = true;
              await restore();
            }
            yield* target.list(prefix, options);
          };
        }
        const value = Reflect.get(target, prop, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });

    const report = await rebuildShard({ ...recoveryDepsOf(f), store }, 's1');
    expect(restored).toBe(true);
    expect(report.status).toBe('rebuilt');
    expect(report.batches?.rejected).toEqual([]);
    expect(report.cursors.after).toMatchObject({ durableSeq: 2 });
  });
});
