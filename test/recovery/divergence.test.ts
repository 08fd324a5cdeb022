/**
 * Divergence: a shard record that no longer agrees with S3. Rolled back
 * behind S3 (a table restored from an old backup), it is found by verify,
 * poisons the shard on the next flush, and rebuild restores it: puts and
 * flushes continue with no row lost or written twice, and the puts the
 * rolled-back record gave seqs S3 already held are rejected by name.
 */
import { GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { PoisonedError } from '../../lib/errors.js';
import { exportShard } from '../../lib/export/export-shard.js';
import { FaultPoint } from '../../lib/flush/fault-points.js';
import { flushShard } from '../../lib/flush/flush-shard.js';
import type { BatchRow } from '../../lib/memtable/batch-codec.js';
import { listRejectedBatches } from '../../lib/memtable/quarantine.js';
import { readShardRecord } from '../../lib/memtable/shard-record.js';
import { META_SK, shardPk } from '../../lib/memtable/table.js';
import { walKey, walPrefix } from '../../lib/paths.js';
import { putRows } from '../../lib/put/put-rows.js';
import { parsePutValue } from '../../lib/put/schema.js';
import { FindingKind } from '../../lib/recovery/findings.js';
import { rebuildShard } from '../../lib/recovery/rebuild.js';
import { renderRebuildReport } from '../../lib/recovery/render.js';
import { replayShard } from '../../lib/recovery/replay.js';
import { verifyShard } from '../../lib/recovery/verify.js';
import type { ObjectStore } from '../../lib/store/object-store.js';
import { decodeWal } from '../../lib/wal/decode.js';
import { type Fixture, fixture, useDynalite } from '../support/harness.js';
import { rowsOf } from '../support/rows.js';
import { expireBatchItems } from '../support/shard-item.js';
import { caught } from '../wal/helpers.js';
import { exportDepsOf, recoveryDepsOf, snapshotOf, TestShard } from './support.js';

const dynalite = useDynalite();

async function rawRecord(f: Fixture) {
  const out = await f.table.client.send(
    new GetItemCommand({
      TableName: f.table.tableName,
      Key: { pk: { S: shardPk('s1') }, sk: { S: META_SK } },
      ConsistentRead: true,
    }),
  );
  return out.Item!;
}

async function restoreRecord(f: Fixture, item: Awaited<ReturnType<typeof rawRecord>>) {
  await f.table.client.send(new PutItemCommand({ TableName: f.table.tableName, Item: item }));
}

/** Every row in the WAL, grouped by seq, read object by object from position 0. */
async function walRowsBySeq(store: ObjectStore): Promise<Map<number, BatchRow[]>> {
  const bySeq = new Map<number, BatchRow[]>();
  for await (const key of store.list(walPrefix('s1'))) {
    const { header, rows } = decodeWal(key, (await store.get(key))!);
    for (const seq of header.voidSeqs) bySeq.set(seq, []);
    for (const row of rows) {
      const list = bySeq.get(row.seq) ?? [];
      const { seq: _s, offset: _o, ingestedAtMs: _i, ...rest } = row;
      list.push(rest);
      bySeq.set(row.seq, list);
    }
  }
  return bySeq;
}

describe('divergence: a shard record rolled back behind S3', () => {
  it('is found by verify, poisons the next flush, and rebuild restores it with no lost or duplicated row', async () => {
    const f = await fixture(dynalite());
    const s = new TestShard(f);
    const expected = new Map<number, BatchRow[]>();
    const put = async (body: { key?: string; rows: Array<Record<string, unknown>> }) => {
      const seq = await s.put(body);
      expected.set(seq, parsePutValue(body, f.config.maxRowsPerPut).rows);
      return seq;
    };
    await put({
      key: 'id',
      rows: [
        { id: 'a', v: 1 },
        { id: 'b', v: 1 },
      ],
    });
    await put({ rows: [{ n: 1 }] });
    await s.flush(); // position 0: seqs 1-2
    await exportShard(exportDepsOf(f), 's1'); // watermark 1
    const backup = await rawRecord(f); // the backup the table is later restored from
    await put({ key: 'id', rows: [{ id: 'a', v: 2 }] });
    await s.flush(); // position 1: seq 3
    await put({ key: 'id', rows: [{ id: 'c', v: 1 }] });
    await put({ rows: [{ n: 2 }] });
    await s.flush(); // position 2: seqs 4-5

    await restoreRecord(f, backup); // durableSeq 2, walNextPos 1, nextSeq 3
    await expireBatchItems(f.table, 's1', 5); // a restore older than the batch items' lifetime
    // Puts after the restore get seqs 3, 4, 5 (S3 holds other rows there) and 6 (beyond S3).
    const reused: Array<{ seq: number; rows: BatchRow[] }> = [];
    for (const rows of [
      [{ id: 'a', v: 'stale' }],
      [{ id: 'z', v: 1 }],
      [{ id: 'c', v: 'stale' }],
    ]) {
      const { ack } = await putRows(f.put, {
        shard: 's1',
        body: parsePutValue({ key: 'id', rows }, 10),
        durability: 'buffered',
      });
      reused.push({ seq: ack.seq, rows: rowsOf(rows, 'id') });
    }
    expect(reused.map((r) => r.seq)).toEqual([3, 4, 5]);
    const beyond = await put({ key: 'id', rows: [{ id: 'd', v: 1 }] });
    expect(beyond).toBe(6);

    // Verify finds it.
    const verify = await verifyShard(recoveryDepsOf(f), 's1');
    expect(verify.ok).toBe(false);
    expect(verify.findings.map((x) => x.kind)).toContain(FindingKind.walBeyondRecord);

    // The next flush poisons the shard; puts are refused from then on.
    expect(await flushShard(f.flushDeps('flusher'), 's1')).toMatchObject({ status: 'poisoned' });
    expect(
      await caught(() =>
        putRows(f.put, {
          shard: 's1',
          body: parsePutValue({ rows: [{}] }, 10_000),
          durability: 'buffered',
        }),
      ),
    ).toBeInstanceOf(PoisonedError);

    // Rebuild restores the cursors to what S3 proves.
    const report = await rebuildShard(recoveryDepsOf(f), 's1');
    expect(report.status).toBe('rebuilt');
    expect(report.cursors.after).toMatchObject({
      durableSeq: 5,
      walNextPos: 3,
      nextSeq: 7,
      poison: null,
      pending: true,
      aofWatermark: 1,
    });
    expect(report.cursors.after!.generation).toBe(report.cursors.before!.generation + 1);
    expect(report.batches?.rejected.map((r) => [r.seq, r.rows])).toEqual(
      reused.map((r) => [r.seq, r.rows]),
    );
    expect(report.batches?.rejected[0]?.reason).toContain(
      'rows rejected: seq 3 already durable in S3',
    );
    expect(report.batches?.pending).toMatchObject({ batches: 1, fromSeq: 6, toSeq: 6 });
    expect(renderRebuildReport(report)).toContain('REJECTED    seq 3: 1 row(s)');
    // Never silently dropped: the quarantine holds them for an operator.
    expect((await listRejectedBatches(f.table, 's1')).map((r) => [r.seq, r.rows.length])).toEqual([
      [3, 1],
      [4, 1],
      [5, 1],
    ]);
    expect((await verifyShard(recoveryDepsOf(f), 's1')).findings).toEqual([]);

    // Puts and flushes continue.
    await put({ key: 'id', rows: [{ id: 'b', $delete: true }] });
    await put({ rows: [{ n: 3 }] });
    const flushed = await s.flush();
    expect(flushed[0]).toMatchObject({ status: 'flushed', position: 3, firstSeq: 6, lastSeq: 8 });
    expect((await verifyShard(recoveryDepsOf(f), 's1')).ok).toBe(true);

    // No row lost, none written twice: every acked seq holds exactly its rows, once.
    const bySeq = await walRowsBySeq(f.store);
    expect(new Map([...bySeq].sort(([a], [b]) => a - b))).toStrictEqual(
      new Map([...expected].sort(([a], [b]) => a - b)),
    );
    const replay = await replayShard(f.store, 's1', { keepRows: true, keepKeyless: true });
    expect(snapshotOf(replay.state)).toStrictEqual(s.model.snapshot());
  });

  it('a record ahead of S3 (lost objects) is found, and rebuild reports the lost seqs and lets flushes continue', async () => {
    const f = await fixture(dynalite());
    const s = new TestShard(f);
    await s.keyed([{ id: 'a', v: 1 }]);
    await s.flush();
    await s.keyed([{ id: 'b', v: 1 }]);
    await s.keyless([{ n: 1 }]);
    await s.flush(); // position 1: seqs 2-3
    await f.memory.delete(walKey('s1', 1)); // S3 restored from an older state
    await expireBatchItems(f.table, 's1', 3); // ...and its batches' items are past their lifetime

    const verify = await verifyShard(recoveryDepsOf(f), 's1');
    expect(verify.findings.map((x) => x.kind)).toEqual([FindingKind.walMissing]);

    const report = await rebuildShard(recoveryDepsOf(f), 's1');
    expect(report.status).toBe('rebuilt');
    expect(report.batches?.lost).toEqual({ fromSeq: 2, toSeq: 3, missing: 2 });
    expect(renderRebuildReport(report)).toContain('LOST        seqs 2..3');
    expect(report.cursors.after).toMatchObject({
      durableSeq: 1,
      walNextPos: 1,
      nextSeq: 4,
      pending: true,
    });

    await s.keyed([{ id: 'c', v: 1 }]);
    expect((await s.flush())[0]).toMatchObject({
      status: 'flushed',
      position: 1,
      firstSeq: 2,
      lastSeq: 4,
      rows: 1,
    });
    const replay = await replayShard(f.store, 's1', { keepRows: true });
    expect([...replay.state.keyed.keys()].sort()).toEqual(['"a"', '"c"']);
  });

  it('a record ahead of S3 whose batch items still live loses nothing: rebuild flushes them again', async () => {
    const f = await fixture(dynalite());
    const s = new TestShard(f);
    await s.keyed([{ id: 'a', v: 1 }]);
    await s.flush();
    await s.keyed([{ id: 'b', v: 1 }]);
    await s.keyless([{ n: 1 }]);
    await s.flush(); // position 1: seqs 2-3
    await f.memory.delete(walKey('s1', 1)); // S3 restored from an older state

    const report = await rebuildShard(recoveryDepsOf(f), 's1');
    expect(report.status).toBe('rebuilt');
    expect(report.batches?.lost).toEqual({ fromSeq: 2, toSeq: 3, missing: 0 });
    expect(report.cursors.after).toMatchObject({ durableSeq: 1, walNextPos: 1, pending: true });
    await s.flush();
    const replay = await replayShard(f.store, 's1', { keepRows: true, keepKeyless: true });
    expect(snapshotOf(replay.state)).toStrictEqual(s.model.snapshot());
  });

  it('rebuild fences a live flusher: its commit fails after the fence, and nothing is lost or doubled', async () => {
    const f = await fixture(dynalite());
    const s = new TestShard(f);
    await s.keyed([{ id: 'a', v: 1 }]);
    await s.flush();
    await s.keyed([{ id: 'b', v: 1 }]);
    let release!: () => void;
    const paused = new Promise<void>((resolve) => {
      release = resolve;
    });
    let reached!: () => void;
    const atPoint = new Promise<void>((resolve) => {
      reached = resolve;
    });
    const zombie = flushShard(
      f.flushDeps('zombie', {
        faults: async (point) => {
          if (point === FaultPoint.afterWalWrite) {
            reached();
            await paused;
          }
        },
      }),
      's1',
    );
    await atPoint; // the zombie wrote position 1 and has not committed
    const report = await rebuildShard(recoveryDepsOf(f), 's1');
    expect(report.status).toBe('rebuilt');
    expect(report.replayed.toPosition).toBe(2); // S3 proves the uncommitted append
    expect(report.cursors.after).toMatchObject({ durableSeq: 2, walNextPos: 2, pending: false });
    release();
    expect(await zombie).toMatchObject({ status: 'fenced', position: 1 });

    await s.keyed([{ id: 'c', v: 1 }]);
    expect((await s.flush())[0]).toMatchObject({ status: 'flushed', position: 2, firstSeq: 3 });
    const replay = await replayShard(f.store, 's1', { keepRows: true, keepKeyless: true });
    expect(snapshotOf(replay.state)).toStrictEqual(s.model.snapshot());
    expect((await readShardRecord(f.table, 's1'))?.durableSeq).toBe(3);
  });
});
