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
 * unlocatable (seed 10008577).
 */
import { GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { readShardRecord } from '../../lib/memtable/shard-record.js';
import {
  batchRange,
  lifetimesOf,
  META_SK,
  queryShardItems,
  shardPk,
} from '../../lib/memtable/table.js';
import { PutFaultPoint } from '../../lib/put/fault-points.js';
import { putRows } from '../../lib/put/put-rows.js';
import { parsePutValue } from '../../lib/put/schema.js';
import { rebuildShard } from '../../lib/recovery/rebuild.js';
import { verifyShard } from '../../lib/recovery/verify.js';
import type { ListOptions } from '../../lib/store/object-store.js';
import { type Fixture, fixture, useDynalite } from '../support/harness.js';
import { expireBatchItems } from '../support/shard-item.js';
import { drain, readWalChain } from '../support/wal-chain.js';
import { recoveryDepsOf, TestShard } from './support.js';

const dynalite = useDynalite();

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
