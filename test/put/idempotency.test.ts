import { DeleteItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { ErrorKind, GapSealedError } from '../../lib/errors.js';
import { flushShard } from '../../lib/flush/flush-shard.js';
import { handlePut } from '../../lib/http/put-route.js';
import { voidLifetimeMs } from '../../lib/liveness.js';
import { readBatchHead } from '../../lib/memtable/batch-heads.js';
import { readIdempotencyRecord } from '../../lib/memtable/idempotency.js';
import { readShardRecord } from '../../lib/memtable/shard-record.js';
import { PutFaultPoint } from '../../lib/put/fault-points.js';
import { putRows } from '../../lib/put/put-rows.js';
import { parsePutValue } from '../../lib/put/schema.js';
import { bodyOf, EventFile, httpEvent } from '../support/events.js';
import { gatedTable } from '../support/gated-table.js';
import { type Fixture, fixture, useDynalite } from '../support/harness.js';
import { rowValue } from '../support/rows.js';
import {
  isAllocation,
  isBatchHeadRead,
  isBatchWrite,
  isReservationCreate,
  isShardRecordRead,
  isVoidSeal,
  scriptedTable,
} from '../support/scripted-table.js';
import { expireBatchItems } from '../support/shard-item.js';
import { drain, readWalChain } from '../support/wal-chain.js';

const dynalite = useDynalite();
const SHARD = 'orders';
const KEY = 'order-batch-7f3c2a91';

/** The put of the sample event's rows under `KEY`, through `putRows`. */
function put(f: Fixture, table = f.table, rows: object[] = [{ id: 'a' }, { id: 'b' }]) {
  return putRows(
    { ...f.put, table },
    {
      shard: SHARD,
      body: parsePutValue({ rows }, 10_000),
      durability: 'buffered',
      idempotencyKey: KEY,
    },
  );
}

/** A put whose batch write fails: it seals its own seq void and cannot release the key. */
async function putVoidingItsSeqKeepingKey(f: Fixture): Promise<void> {
  const scripted = scriptedTable(f.table);
  scripted.add({ match: isBatchWrite, effect: 'fail', times: 5 });
  scripted.add({ match: (c) => c instanceof DeleteItemCommand, effect: 'fail', times: 5 });
  await expect(put(f, scripted.table)).rejects.toBeDefined();
}

/** Every row of the shard's WAL, after draining it. */
async function walRows(f: Fixture): Promise<unknown[]> {
  f.clock.advance(f.config.gapSealMs + 1);
  await drain(f.flushDeps('drain'), SHARD);
  const objects = await readWalChain(f.memory, SHARD);
  return objects.flatMap((object) => object.rows.map((row) => rowValue(row)));
}

describe('Idempotency-Key', () => {
  describe('on HTTP', () => {
    it('returns the identical ack for a repeat and buffers nothing', async () => {
      const f = await fixture(dynalite());
      const event = httpEvent(EventFile.apiPut, { shard: SHARD });
      const first = await handlePut(event, f.put);
      expect(first.statusCode).toBe(202);
      expect(bodyOf(first)).toEqual({ shard: SHARD, seq: 1, rows: 2, durable: false });

      for (let i = 0; i < 3; i++) {
        const repeat = await handlePut(httpEvent(EventFile.apiPut, { shard: SHARD }), f.put);
        expect(repeat.statusCode).toBe(first.statusCode);
        expect(repeat.body).toBe(first.body);
      }
      // Each repeat sealed the seq it allocated before it found the key: voids, no rows.
      for (const seq of [2, 3, 4]) {
        expect(await readBatchHead(f.table, SHARD, seq)).toMatchObject({ kind: 'void' });
      }
      const flushed = await flushShard(f.flushDeps('ticker'), SHARD);
      expect(flushed).toMatchObject({ status: 'flushed', firstSeq: 1, lastSeq: 4, rows: 2 });
      expect((await readShardRecord(f.table, SHARD))?.bufferedBytes).toBe(0);
    });

    it('answers a repeat with the original ack even when the shard takes no new put', async () => {
      const f = await fixture(dynalite(), { maxBufferedBytes: 100, flushTriggerBytes: 100 });
      const first = await handlePut(httpEvent(EventFile.apiPut, { shard: SHARD }), f.put);
      expect(first.statusCode).toBe(202);
      const other = httpEvent(EventFile.apiPut, {
        shard: SHARD,
        headers: { 'idempotency-key': 'filler' },
      });
      expect((await handlePut(other, f.put)).statusCode).toBe(429);

      const repeat = await handlePut(httpEvent(EventFile.apiPut, { shard: SHARD }), f.put);
      expect(repeat.statusCode).toBe(202);
      expect(repeat.body).toBe(first.body);
    });

    it('scopes keys per shard', async () => {
      const f = await fixture(dynalite());
      const a = await handlePut(httpEvent(EventFile.apiPut, { shard: 'a' }), f.put);
      const b = await handlePut(httpEvent(EventFile.apiPut, { shard: 'b' }), f.put);
      expect(bodyOf(a)).toMatchObject({ shard: 'a', seq: 1 });
      expect(bodyOf(b)).toMatchObject({ shard: 'b', seq: 1 });
    });

    it('answers 409 in_progress with Retry-After while the first is in flight, never a duplicate', async () => {
      const f = await fixture(dynalite());
      const gated = gatedTable(f.table);
      const deps = { ...f.put, table: gated.table };
      const held = gated.close(isBatchWrite);
      const first = handlePut(httpEvent(EventFile.apiPut, { shard: SHARD }), deps);
      await held; // the first put holds its reservation and waits at its batch write

      const second = await handlePut(httpEvent(EventFile.apiPut, { shard: SHARD }), deps);
      expect(second.statusCode).toBe(409);
      expect(second.headers?.['retry-after']).toBe('1');
      expect(bodyOf(second)).toEqual({
        error: { kind: ErrorKind.inProgress, message: expect.stringContaining('in progress') },
      });

      gated.open();
      const done = await first;
      expect(done.statusCode).toBe(202);
      const retry = await handlePut(httpEvent(EventFile.apiPut, { shard: SHARD }), deps);
      expect(retry.body).toBe(done.body);
      const sent = JSON.parse(String(httpEvent(EventFile.apiPut).body)) as { rows: unknown[] };
      expect(await walRows(f)).toEqual(sent.rows);
    });

    it('answers 422 key_reused to the same key with another payload, and buffers nothing', async () => {
      const f = await fixture(dynalite());
      const first = await handlePut(httpEvent(EventFile.apiPut, { shard: SHARD }), f.put);
      expect(first.statusCode).toBe(202);
      const before = await readShardRecord(f.table, SHARD);
      const other = httpEvent(EventFile.apiPut, {
        shard: SHARD,
        body: { rows: [{ orderId: 'o-9', total: 1 }] },
      });
      const reused = await handlePut(other, f.put);
      expect(reused.statusCode).toBe(422);
      expect(bodyOf(reused)).toMatchObject({ error: { kind: ErrorKind.keyReused } });
      // The seq it allocated before it met the key is sealed void: nothing of it is buffered.
      expect(await readBatchHead(f.table, SHARD, before?.nextSeq ?? 0)).toMatchObject({
        kind: 'void',
      });
      const sent = JSON.parse(String(httpEvent(EventFile.apiPut).body)) as { rows: unknown[] };
      expect(await walRows(f)).toEqual(sent.rows);
    });

    it('frees the key of a refused put, so the retry after a flush is buffered', async () => {
      const f = await fixture(dynalite(), { maxBufferedBytes: 100, flushTriggerBytes: 100 });
      const filler = httpEvent(EventFile.apiPut, {
        shard: SHARD,
        headers: { 'idempotency-key': 'filler' },
      });
      expect((await handlePut(filler, f.put)).statusCode).toBe(202);
      const refused = await handlePut(httpEvent(EventFile.apiPut, { shard: SHARD }), f.put);
      expect(refused.statusCode).toBe(429);

      await flushShard(f.flushDeps('ticker'), SHARD);
      const retry = await handlePut(httpEvent(EventFile.apiPut, { shard: SHARD }), f.put);
      expect(retry.statusCode).toBe(202);
      expect(bodyOf(retry)).toMatchObject({ seq: 2 });
    });
  });

  describe('when the batch landed but the put could not tell', () => {
    it('keeps the key, and a retry finds the batch at the recorded seq and answers its ack', async () => {
      const f = await fixture(dynalite());
      const scripted = scriptedTable(f.table);
      // The head lands, its response is lost; every way to confirm it fails too.
      scripted.add({ match: isBatchWrite, effect: 'lose-response' });
      scripted.add({ match: isBatchWrite, effect: 'fail', times: 5 });
      scripted.add({ match: isVoidSeal, effect: 'fail', times: 5 });
      scripted.add({ match: isBatchHeadRead, effect: 'fail', times: 5 });
      await expect(put(f, scripted.table)).rejects.toMatchObject({
        kind: ErrorKind.unavailable,
        message: expect.stringContaining('not known yet'),
      });
      expect(await readIdempotencyRecord(f.table, SHARD, KEY, f.clock.now())).toMatchObject({
        state: 'pending',
        seq: 1,
      });

      // The batch carries the ack (K6): the retry needs no lease to run out.
      const retry = await put(f);
      expect(retry).toMatchObject({ repeated: true, ack: { seq: 1, rows: 2 } });
      expect(await walRows(f)).toEqual([{ id: 'a' }, { id: 'b' }]);
    });

    it('answers the original ack after the flusher covered the batch and its item expired', async () => {
      const f = await fixture(dynalite());
      // The put dies right after its batch landed: it never answers.
      const dies = (point: string) =>
        point === PutFaultPoint.afterWrite ? new Promise<void>(() => undefined) : undefined;
      void putRows(
        { ...f.put, faults: dies },
        {
          shard: SHARD,
          body: parsePutValue({ rows: [{ id: 'a' }, { id: 'b' }] }, 10_000),
          durability: 'buffered',
          idempotencyKey: KEY,
        },
      );
      await waitFor(async () => (await readBatchHead(f.table, SHARD, 1)) !== undefined);

      await drain(f.flushDeps('ticker'), SHARD);
      await expireBatchItems(f.table, SHARD, 1);
      expect(await readBatchHead(f.table, SHARD, 1)).toBeUndefined();
      f.clock.advance(f.config.reservationLeaseMs + 1);
      const retry = await put(f);
      expect(retry).toMatchObject({ repeated: true, ack: { seq: 1, rows: 2 } });
      expect(await walRows(f)).toEqual([{ id: 'a' }, { id: 'b' }]);
    });
  });

  describe('when the put that holds the key sealed its own seq but could not release the key', () => {
    it('never answers a repeat with the void seq: 409 while the lease lives, then the rows land once', async () => {
      const f = await fixture(dynalite());
      await putVoidingItsSeqKeepingKey(f);
      expect(await readBatchHead(f.table, SHARD, 1)).toMatchObject({ kind: 'void' });
      expect(await readIdempotencyRecord(f.table, SHARD, KEY, f.clock.now())).toMatchObject({
        state: 'pending',
        seq: 1,
      });

      await expect(put(f)).rejects.toMatchObject({ kind: ErrorKind.inProgress });
      f.clock.advance(f.config.reservationLeaseMs + 1);
      const retry = await put(f);
      expect(retry).toMatchObject({ repeated: false, ack: { seq: 3 } });
      expect(await walRows(f)).toEqual([{ id: 'a' }, { id: 'b' }]);
    });
  });

  describe('when the put that holds the key dies before writing', () => {
    it('seals its seq and buffers the rows once, even if the dead put wakes up', async () => {
      const f = await fixture(dynalite());
      const gated = gatedTable(f.table);
      const held = gated.close(isBatchWrite);
      const slow = put(f, gated.table);
      await held;

      f.clock.advance(f.config.reservationLeaseMs + 1);
      const retry = await put(f);
      expect(retry).toMatchObject({ repeated: false, ack: { seq: 2 } });
      expect(await readBatchHead(f.table, SHARD, 1)).toMatchObject({ kind: 'void' });

      // The slow put wakes past its deadline: it writes nothing and touches nobody's key.
      gated.open();
      await expect(slow).rejects.toMatchObject({ kind: ErrorKind.unavailable });
      const record = await readIdempotencyRecord(f.table, SHARD, KEY, f.clock.now());
      expect(record).toMatchObject({ state: 'pending', seq: 2 });
      expect(await put(f)).toMatchObject({ repeated: true, ack: { seq: 2 } });
      expect(await walRows(f)).toEqual([{ id: 'a' }, { id: 'b' }]);
    });

    it('never lets a put slower than its lease move the key of the retry that took over', async () => {
      const f = await fixture(dynalite(), { putDeadlineMs: 60_000, clockSkewMs: 0 });
      const gated = gatedTable(f.table);
      const held = gated.close(
        (command) => command instanceof PutItemCommand && isBatchWrite(command),
      );
      const slow = put(f, gated.table);
      await held; // reserved at seq 1, not written

      f.clock.advance(f.config.reservationLeaseMs + 1);
      const retry = await put(f);
      expect(retry.ack.seq).toBe(2);
      gated.open();
      // Its seq was sealed by the retry's takeover: the late write fails, and says so.
      await expect(slow).rejects.toBeInstanceOf(GapSealedError);
      const record = await readIdempotencyRecord(f.table, SHARD, KEY, f.clock.now());
      expect(record).toMatchObject({ state: 'pending', seq: 2, owner: expect.any(String) });
      expect(await put(f)).toMatchObject({ repeated: true, ack: { seq: 2 } });
    });
  });

  describe('when the reservation create applied but its response was lost', () => {
    it('takes the record naming its own put as its own, and the rows land once', async () => {
      const f = await fixture(dynalite());
      const scripted = scriptedTable(f.table);
      // The SDK retries the create; the retry meets the put's own reservation.
      scripted.add({ match: isReservationCreate, effect: 'retried-lost-response' });
      const first = await put(f, scripted.table);
      expect(scripted.hits['retried-lost-response']).toBe(1);
      expect(first).toMatchObject({ repeated: false, ack: { seq: 1, rows: 2 } });
      expect(await walRows(f)).toEqual([{ id: 'a' }, { id: 'b' }]);
    });
  });

  describe('when a repeat settles the recorded seq after the key window ended', () => {
    it('never reads the emptied durable seq as landed: the window is over, and the rows land once', async () => {
      const f = await fixture(dynalite());
      await putVoidingItsSeqKeepingKey(f);
      await drain(f.flushDeps('ticker'), SHARD);
      expect(await readShardRecord(f.table, SHARD)).toMatchObject({ durableSeq: 1 });
      f.clock.advance(f.config.reservationLeaseMs + 1);

      // The repeat reads the live record and the void, then stalls before its settle's reads
      // while the window and the void's lifetime run out (TTL removes the void).
      const gated = gatedTable(f.table);
      const held = gated.close(isShardRecordRead);
      const repeat = put(f, gated.table);
      await held;
      f.clock.advance(voidLifetimeMs(f.config) + 1);
      await expireBatchItems(f.table, SHARD, 1);
      gated.open();
      await expect(repeat).rejects.toMatchObject({ kind: ErrorKind.unavailable });
      await drain(f.flushDeps('ticker'), SHARD); // the repeat's own seq, 2, sealed void

      const retry = await put(f);
      expect(retry).toMatchObject({ repeated: false, ack: { seq: 3 } });
      expect(await walRows(f)).toEqual([{ id: 'a' }, { id: 'b' }]);
    });
  });

  describe('when a put reaches its reservation after its deadline', () => {
    it('creates none: a record names only a seq allocated within its put deadline', async () => {
      const f = await fixture(dynalite());
      const gated = gatedTable(f.table);
      const held = gated.close(isAllocation);
      const scripted = scriptedTable(gated.table);
      scripted.add({ match: (c) => c instanceof DeleteItemCommand, effect: 'fail', times: 5 });
      const late = put(f, scripted.table);
      await held;
      f.clock.advance(f.config.putDeadlineMs + 1);
      gated.open();
      await expect(late).rejects.toMatchObject({ kind: ErrorKind.unavailable });
      expect(await readIdempotencyRecord(f.table, SHARD, KEY, f.clock.now())).toBeUndefined();
      expect(await readBatchHead(f.table, SHARD, 1)).toMatchObject({ kind: 'void' });
    });
  });
});

async function waitFor(condition: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error('condition never held');
}
