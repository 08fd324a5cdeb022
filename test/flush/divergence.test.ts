import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { PoisonedError, SeqTakenError } from '../../lib/errors.js';
import { claimFlush } from '../../lib/fence/claim.js';
import { type FlushOutcome, flushShard } from '../../lib/flush/flush-shard.js';
import { errorResponse } from '../../lib/http/error-response.js';
import { readBatches } from '../../lib/memtable/read-batches.js';
import { readShardRecord } from '../../lib/memtable/shard-record.js';
import { walKey } from '../../lib/paths.js';
import { putRows } from '../../lib/put/put-rows.js';
import { parsePutValue } from '../../lib/put/schema.js';
import { runTick } from '../../lib/ticker/tick.js';
import { encodeWal } from '../../lib/wal/encode.js';
import { type Fixture, fixture, useDynalite } from '../support/harness.js';
import { rowValue } from '../support/rows.js';
import { expireBatchItems, restoreShardItem, snapshotShardItem } from '../support/shard-item.js';
import { drain, putBatch, readWalChain } from '../support/wal-chain.js';
import { caught } from '../wal/helpers.js';

const dynalite = useDynalite();
const SHARD = 'd1';

/** Puts one batch per row and flushes them as one object. */
async function putAndFlush(f: Fixture, rows: number[]): Promise<void> {
  for (const i of rows) await putBatch(f.put, SHARD, [{ i }]);
  expect(await flushShard(f.flushDeps('setup'), SHARD)).toMatchObject({ status: 'flushed' });
}

/** Starts a durable put and waits until its batch is buffered (it then waits for durability). */
async function startDurablePut(f: Fixture, row: object): Promise<{ settled: Promise<unknown> }> {
  const before = (await readShardRecord(f.table, SHARD))?.nextSeq ?? 1;
  const settled = putRows(f.put, {
    shard: SHARD,
    body: parsePutValue({ rows: [row] }, 10_000),
    durability: 'durable',
  }).then(
    (result) => result,
    (error: unknown) => error,
  );
  for (let i = 0; i < 400; i++) {
    const [batch] = await readBatches(f.table, {
      shard: SHARD,
      fromSeq: before,
      toSeq: before,
      maxBytes: Number.MAX_SAFE_INTEGER,
    });
    if (batch) return { settled };
    await sleep(5);
  }
  throw new Error('durable put never buffered its batch');
}

/** Everything a poisoned shard must do, checked after the poisoning flush. */
async function expectPoisoned(f: Fixture, outcome: FlushOutcome, key: string): Promise<string> {
  expect(outcome.status).toBe('poisoned');
  if (outcome.status !== 'poisoned') throw new Error('unreachable');
  expect(outcome.reason).toContain(key);
  const record = await readShardRecord(f.table, SHARD);
  expect(record?.poison).toBe(outcome.reason);

  // New puts are refused with the reason (503 over HTTP) and buffer nothing.
  const refused = await putRows(f.put, {
    shard: SHARD,
    body: parsePutValue({ rows: [{ late: true }] }, 10_000),
    durability: 'buffered',
  }).catch((error: unknown) => error);
  expect(refused).toBeInstanceOf(PoisonedError);
  expect((refused as PoisonedError).message).toContain(outcome.reason);
  expect(errorResponse(refused).statusCode).toBe(503);
  expect((await readShardRecord(f.table, SHARD))?.nextSeq).toBe(record?.nextSeq);

  // Claims are refused, even long after any lease; flushes and ticks report the same reason.
  f.clock.advance(10 * f.config.leaseMs);
  expect(
    await claimFlush(f.table, SHARD, 'later', f.clock.now(), f.config.leaseMs),
  ).toBeUndefined();
  expect(await flushShard(f.flushDeps('later'), SHARD)).toEqual({
    status: 'poisoned',
    shard: SHARD,
    reason: outcome.reason,
    detected: false,
  });
  const tick = await runTick({ flush: f.flushDeps('tick'), concurrency: 1, maxShardsPerTick: 10 });
  expect(tick.outcomes).toEqual([
    { status: 'poisoned', shard: SHARD, reason: outcome.reason, detected: false },
  ]);
  return outcome.reason;
}

describe('flushShard', () => {
  describe('rolled-back shard record', () => {
    it('poisons on content mismatch, never adopts, when rolled back one commit and seqs were re-used', async () => {
      const f = await fixture(dynalite());
      await putAndFlush(f, [1, 2]);
      const older = await snapshotShardItem(f.table, SHARD);
      await putAndFlush(f, [3, 4]);
      const original = await f.memory.get(walKey(SHARD, 1));
      await restoreShardItem(f.table, older);
      await expireBatchItems(f.table, SHARD, 4); // a rollback older than the items' lifetime

      // Seqs 3 and 4 are handed out again, with other rows; position 1 starts at durableSeq+1.
      await putBatch(f.put, SHARD, [{ i: 30 }]);
      const durable = await startDurablePut(f, { i: 40 });
      expect(await readShardRecord(f.table, SHARD)).toMatchObject({
        durableSeq: 2,
        nextSeq: 5,
        walNextPos: 1,
      });

      const outcome = await flushShard(f.flushDeps('a'), SHARD);
      const reason = await expectPoisoned(f, outcome, walKey(SHARD, 1));
      expect(reason).toMatch(/diverged .*row at offset 2 \(seq 3\) differs/);

      const woken = await durable.settled;
      expect(woken).toBeInstanceOf(PoisonedError);
      expect((woken as PoisonedError).message).toContain(reason);
      // Nothing was adopted or rewritten: cursors stay, the object at 1 is the original.
      expect(await readShardRecord(f.table, SHARD)).toMatchObject({ durableSeq: 2, walNextPos: 1 });
      expect(await f.memory.get(walKey(SHARD, 1))).toEqual(original);
      expect(f.memory.keys()).toEqual([walKey(SHARD, 0), walKey(SHARD, 1)]);
    });

    it('poisons when rolled back several commits and a new put re-uses a seq the WAL covers', async () => {
      const f = await fixture(dynalite());
      await putAndFlush(f, [1]);
      const older = await snapshotShardItem(f.table, SHARD);
      await putAndFlush(f, [2, 3]);
      await putAndFlush(f, [4]);
      await restoreShardItem(f.table, older);
      await expireBatchItems(f.table, SHARD, 4);
      // Rolled back with nothing pending, the record looks idle: no store call, no verdict yet.
      f.store.reset();
      expect(await flushShard(f.flushDeps('a'), SHARD)).toMatchObject({ status: 'idle' });
      expect(f.store.counts().putIfAbsent).toBe(0);

      await putBatch(f.put, SHARD, [{ i: 2 }]);
      const outcome = await flushShard(f.flushDeps('a'), SHARD);
      const reason = await expectPoisoned(f, outcome, walKey(SHARD, 1));
      expect(reason).toContain('memtable holds seqs 2..2 (1) but the object covers 2..3');
      expect(f.memory.size).toBe(3);
    });

    it('adopts what S3 holds when restored while the covered batch items still live, and refuses a taken seq', async () => {
      const f = await fixture(dynalite());
      await putAndFlush(f, [1]);
      await putBatch(f.put, SHARD, [{ i: 2 }]);
      const older = await snapshotShardItem(f.table, SHARD); // seq 2 still pending here
      expect(await flushShard(f.flushDeps('setup'), SHARD)).toMatchObject({ lastSeq: 2 });
      await putAndFlush(f, [3]);
      await restoreShardItem(f.table, older);

      // The record hands seq 3 out again: its old batch is still there, so the put is refused.
      const taken = await caught(() => putBatch(f.put, SHARD, [{ i: 99 }]));
      expect(taken).toBeInstanceOf(SeqTakenError);
      // The flusher finds exactly what S3 holds and adopts it: the record catches up.
      await drain(f.flushDeps('a'), SHARD);
      expect(await readShardRecord(f.table, SHARD)).toMatchObject({ walNextPos: 3 });
      const rows = (await readWalChain(f.memory, SHARD)).flatMap((o) => o.rows.map(rowValue));
      expect(rows).toEqual([{ i: 1 }, { i: 2 }, { i: 3 }]);
    });

    it('waits rather than adopts when restored with batches the WAL covers and whose items expired, then poisons', async () => {
      const f = await fixture(dynalite());
      await putAndFlush(f, [1]);
      await putBatch(f.put, SHARD, [{ i: 2 }]);
      const older = await snapshotShardItem(f.table, SHARD); // seq 2 still pending here
      expect(await flushShard(f.flushDeps('setup'), SHARD)).toMatchObject({ lastSeq: 2 });
      await restoreShardItem(f.table, older);
      await expireBatchItems(f.table, SHARD, 2);

      // Seq 2's item expired after its commit: to the flusher it is a young gap.
      f.store.reset();
      expect(await flushShard(f.flushDeps('a'), SHARD)).toMatchObject({
        status: 'waiting-on-gap',
        seq: 2,
      });
      expect(f.store.counts().putIfAbsent).toBe(0);
      f.clock.advance(f.config.gapSealMs + 1);
      const outcome = await flushShard(f.flushDeps('a'), SHARD);
      const reason = await expectPoisoned(f, outcome, walKey(SHARD, 1));
      expect(reason).toContain('void seqs differ');
      expect(f.memory.size).toBe(2);
    });
  });

  describe('foreign object at the next position', () => {
    it('poisons naming the key and wakes a durable waiter when the header does not continue the chain', async () => {
      const f = await fixture(dynalite());
      await putAndFlush(f, [1, 2]);
      const key = walKey(SHARD, 1);
      const foreign = encodeWal({
        header: {
          shard: SHARD,
          position: 1,
          epoch: 99,
          firstSeq: 17,
          lastSeq: 17,
          firstRowOffset: 40,
          rowCount: 1,
          voidSeqs: [],
          createdAtMs: 1,
        },
        rows: [{ seq: 17, offset: 40, text: '{"foreign":true}' }],
      });
      await f.memory.putIfAbsent(key, foreign);
      const durable = await startDurablePut(f, { i: 3 });

      const outcome = await flushShard(f.flushDeps('a'), SHARD);
      const reason = await expectPoisoned(f, outcome, key);
      expect(reason).toContain('"firstSeq":3');
      expect(reason).toContain('"firstSeq":17');
      const woken = await durable.settled;
      expect(woken).toBeInstanceOf(PoisonedError);
      expect((woken as PoisonedError).message).toContain(reason);
      expect(await f.memory.get(key)).toEqual(Uint8Array.from(foreign));
    });

    it('poisons when the object at the next position is unreadable', async () => {
      const f = await fixture(dynalite());
      await putAndFlush(f, [1]);
      await putBatch(f.put, SHARD, [{ i: 2 }]);
      await f.memory.putIfAbsent(walKey(SHARD, 1), new TextEncoder().encode('not a wal object'));
      const outcome = await flushShard(f.flushDeps('a'), SHARD);
      const reason = await expectPoisoned(f, outcome, walKey(SHARD, 1));
      expect(reason).toContain('unreadable');
    });
  });
});
