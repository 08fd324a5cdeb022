import type { DynamoDBClient, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { GapSealedError } from '../../lib/errors.js';
import { claimShard, flushHeld, flushShard } from '../../lib/flush/flush-shard.js';
import { allocateSeq } from '../../lib/memtable/allocate.js';
import { encodeBatchRows } from '../../lib/memtable/batch-codec.js';
import { readShardRecord } from '../../lib/memtable/shard-record.js';
import type { Table } from '../../lib/memtable/table.js';
import { writeBatch } from '../../lib/memtable/write-batch.js';
import { type Fixture, fixture, useDynalite } from '../support/harness.js';
import { rowOf } from '../support/rows.js';
import {
  type AckedBatch,
  drain,
  expectWalHolds,
  putBatch,
  readWalChain,
} from '../support/wal-chain.js';

const dynalite = useDynalite();
const SHARD = 'g1';
const GAP_SEAL_MS = 5_000;

/** Step 3 of a put without step 4: the seq is allocated, its batch never written (yet). */
async function allocateOnly(f: Fixture, bytes = 20): Promise<number> {
  const allocation = await allocateSeq(f.table, {
    shard: SHARD,
    bytes,
    nowMs: f.clock.now(),
    maxBufferedBytes: f.config.maxBufferedBytes,
    retryAfterSeconds: 1,
  });
  return allocation.seq;
}

/** Step 4 for an allocated seq, as the late writer does it. */
function lateWrite(f: Fixture, seq: number, rows: AckedBatch['rows']): Promise<void> {
  return writeBatch(f.table, {
    shard: SHARD,
    seq,
    batch: encodeBatchRows(rows),
    bytes: 20,
    nowMs: f.clock.now(),
  });
}

/** A table whose void seals first run `before` (to land a write between resolve and seal). */
function beforeVoidSeal(table: Table, before: () => Promise<void>): Table {
  const client = {
    send: async (command: PutItemCommand) => {
      if (command.input?.Item?.kind?.S === 'void') await before();
      return table.client.send(command);
    },
  } as unknown as DynamoDBClient;
  return { ...table, client };
}

describe('flushShard', () => {
  describe('gap left by a crashed put', () => {
    it('flushes only what precedes a young gap, then seals it void once it is old', async () => {
      const f = await fixture(dynalite(), { gapSealMs: GAP_SEAL_MS });
      const acked: AckedBatch[] = [];
      acked.push(await putBatch(f.put, SHARD, [{ i: 1 }]));
      acked.push(await putBatch(f.put, SHARD, [{ i: 2 }]));
      const gap = await allocateOnly(f);
      expect(gap).toBe(3);
      f.clock.advance(1_000);
      acked.push(await putBatch(f.put, SHARD, [{ i: 4 }]));
      acked.push(await putBatch(f.put, SHARD, [{ i: 5 }]));

      // Order before progress: the batches after the gap wait for it.
      expect(await flushShard(f.flushDeps('a'), SHARD)).toMatchObject({
        status: 'flushed',
        firstSeq: 1,
        lastSeq: 2,
        sealed: [],
        more: true,
      });
      expect(await flushShard(f.flushDeps('a'), SHARD)).toEqual({
        status: 'waiting-on-gap',
        shard: SHARD,
        seq: gap,
      });
      // The gap's allocation is bounded by seq 4's write (1 s after it), so it stays young till then.
      f.clock.advance(GAP_SEAL_MS - 1);
      expect(await flushShard(f.flushDeps('a'), SHARD)).toMatchObject({ status: 'waiting-on-gap' });
      const [first] = await readWalChain(f.memory, SHARD);
      expect(first?.header).toMatchObject({ firstSeq: 1, lastSeq: 2, voidSeqs: [] });
      expect(f.memory.size).toBe(1);
      expect(await readShardRecord(f.table, SHARD)).toMatchObject({ durableSeq: 2, walNextPos: 1 });

      f.clock.advance(1);
      expect(await flushShard(f.flushDeps('a'), SHARD)).toMatchObject({
        status: 'flushed',
        position: 1,
        firstSeq: 3,
        lastSeq: 5,
        sealed: [gap],
        rows: 2,
      });
      const objects = await expectWalHolds(f.memory, f.table, SHARD, acked);
      expect(objects[1]?.header.voidSeqs).toEqual([gap]);

      const late = await lateWrite(f, gap, [rowOf({ late: true })]).catch((e: unknown) => e);
      expect(late).toBeInstanceOf(GapSealedError);
      expect((late as Error).message).toContain(`seq ${gap}`);
      await expectWalHolds(f.memory, f.table, SHARD, acked);
    });

    it('seals a gap at the tail using the last allocation time', async () => {
      const f = await fixture(dynalite(), { gapSealMs: GAP_SEAL_MS });
      const acked = [await putBatch(f.put, SHARD, [{ i: 1 }])];
      f.clock.advance(3_000);
      const gap = await allocateOnly(f);
      f.clock.advance(GAP_SEAL_MS - 1);
      // Seq 1 is older than the timeout, the tail gap is not: the flusher takes 1 and waits.
      expect(await flushShard(f.flushDeps('a'), SHARD)).toMatchObject({
        status: 'flushed',
        lastSeq: 1,
        more: true,
      });
      expect(await flushShard(f.flushDeps('a'), SHARD)).toMatchObject({
        status: 'waiting-on-gap',
        seq: gap,
      });
      expect(await readShardRecord(f.table, SHARD)).toMatchObject({
        pending: true,
        bufferedBytes: 20,
      });

      f.clock.advance(2);
      expect(await flushShard(f.flushDeps('a'), SHARD)).toMatchObject({
        status: 'flushed',
        position: 1,
        firstSeq: gap,
        lastSeq: gap,
        rows: 0,
        sealed: [gap],
        more: false,
      });
      const objects = await expectWalHolds(f.memory, f.table, SHARD, acked);
      expect(objects[1]?.header).toMatchObject({ voidSeqs: [gap], rowCount: 0 });
      await expect(lateWrite(f, gap, [rowOf({ late: true })])).rejects.toBeInstanceOf(
        GapSealedError,
      );
    });

    it('flushes the rows of a write that lands just before the seal (the seal finds it present)', async () => {
      const f = await fixture(dynalite(), { gapSealMs: GAP_SEAL_MS });
      const acked = [await putBatch(f.put, SHARD, [{ i: 1 }])];
      const gap = await allocateOnly(f);
      acked.push(await putBatch(f.put, SHARD, [{ i: 3 }]));
      f.clock.advance(GAP_SEAL_MS + 1);

      // The flusher resolved the gap as missing; the writer wins the race to the seq's item.
      let landed = false;
      const table = beforeVoidSeal(f.table, async () => {
        if (landed) return;
        landed = true;
        await lateWrite(f, gap, [rowOf({ i: 2, late: true })]);
      });
      acked.splice(1, 0, { seq: gap, rows: [rowOf({ i: 2, late: true })] });
      expect(await flushShard(f.flushDeps('a', { table }), SHARD)).toMatchObject({
        status: 'flushed',
        firstSeq: 1,
        lastSeq: 3,
        rows: 3,
        sealed: [],
      });
      expect(landed).toBe(true);
      const objects = await expectWalHolds(f.memory, f.table, SHARD, acked);
      expect(objects[0]?.header.voidSeqs).toEqual([]);
    });

    it('keeps later batches waiting behind every gap in turn', async () => {
      const f = await fixture(dynalite(), { gapSealMs: GAP_SEAL_MS });
      const acked: AckedBatch[] = [];
      const gaps = [];
      for (let i = 1; i <= 6; i++) {
        if (i % 2 === 0) gaps.push(await allocateOnly(f));
        else acked.push(await putBatch(f.put, SHARD, [{ i }]));
      }
      f.clock.advance(GAP_SEAL_MS + 1);
      const outcomes = await drain(f.flushDeps('a'), SHARD);
      expect(outcomes.flatMap((o) => (o.status === 'flushed' ? o.sealed : []))).toEqual(gaps);
      const objects = await expectWalHolds(f.memory, f.table, SHARD, acked);
      expect(objects.flatMap((o) => o.header.voidSeqs)).toEqual(gaps);
    });
  });
});

describe('flushHeld', () => {
  describe('after puts that allocated since the claim read the record', () => {
    it('takes their batches while contiguous', async () => {
      const f = await fixture(dynalite(), { gapSealMs: GAP_SEAL_MS });
      const acked = [await putBatch(f.put, SHARD, [{ i: 1 }])];
      const held = await claimShard(f.flushDeps('ahead'), SHARD);
      if (held.status !== 'claimed') throw new Error(`claim refused: ${held.status}`);
      acked.push(await putBatch(f.put, SHARD, [{ i: 2 }]));
      acked.push(await putBatch(f.put, SHARD, [{ i: 3 }]));
      expect(await flushHeld(f.flushDeps('ahead'), held)).toMatchObject({
        status: 'flushed',
        firstSeq: 1,
        lastSeq: 3,
        more: false,
      });
      await expectWalHolds(f.store, f.table, SHARD, acked);
    });

    it('stops at an unwritten one however old, never sealing a seq the claim did not see allocated', async () => {
      const f = await fixture(dynalite(), { gapSealMs: GAP_SEAL_MS });
      const acked = [await putBatch(f.put, SHARD, [{ i: 1 }])];
      const held = await claimShard(f.flushDeps('ahead'), SHARD);
      if (held.status !== 'claimed') throw new Error(`claim refused: ${held.status}`);
      const gap = await allocateOnly(f);
      acked.push(await putBatch(f.put, SHARD, [{ i: 3 }]));
      f.clock.advance(GAP_SEAL_MS * 2);
      expect(await flushHeld(f.flushDeps('ahead'), held)).toMatchObject({
        status: 'flushed',
        firstSeq: 1,
        lastSeq: 1,
        sealed: [],
        more: true,
      });
      // The next flush sees the seq allocated, and seals it as any old gap.
      expect(await flushShard(f.flushDeps('next'), SHARD)).toMatchObject({
        status: 'flushed',
        firstSeq: gap,
        lastSeq: 3,
        sealed: [gap],
      });
      await expectWalHolds(f.store, f.table, SHARD, acked);
    });
  });
});
