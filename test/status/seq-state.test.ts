/**
 * The state of a seq where only the quarantine, the WAL or nothing can tell:
 * a batch a rebuild set aside, and seqs whose batch items have expired.
 */
import { gunzipSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { ErrorKind, FencedError, InProgressError } from '../../lib/errors.js';
import { exportShard } from '../../lib/export/export-shard.js';
import { flushShard } from '../../lib/flush/flush-shard.js';
import { handleStatus } from '../../lib/http/status-route.js';
import { readBatchHead } from '../../lib/memtable/batch-heads.js';
import { readShardRecord } from '../../lib/memtable/shard-record.js';
import { putRows } from '../../lib/put/put-rows.js';
import { parsePutValue } from '../../lib/put/schema.js';
import { RebuildFaultPoint } from '../../lib/recovery/fault-points.js';
import { rebuildShard } from '../../lib/recovery/rebuild.js';
import { seqState } from '../../lib/status/seq-state.js';
import { SeqState } from '../../lib/status/seq-status.js';
import { InstrumentedObjectStore } from '../../lib/store/instrumented-store.js';
import { exportDepsOf, recoveryDepsOf } from '../recovery/support.js';
import { bodyOf, EventFile, httpEvent } from '../support/events.js';
import { type Fixture, fixture, useDynalite } from '../support/harness.js';
import { expireBatchItems, restoreShardItem, snapshotShardItem } from '../support/shard-item.js';
import { allocateOnly, putBatch } from '../support/wal-chain.js';
import { caught } from '../wal/helpers.js';

const dynalite = useDynalite();
const SHARD = 'orders';

async function seqAnswer(f: Fixture, seq: number, withStore = true) {
  const event = httpEvent(EventFile.apiSeqStatus, { shard: SHARD, seq: String(seq) });
  return bodyOf(await handleStatus(event, f.table, withStore ? f.store : undefined));
}

function put(f: Fixture, rows: Array<Record<string, unknown>>, key?: string, durable = false) {
  return putRows(f.put, {
    shard: SHARD,
    body: parsePutValue({ rows }, 100),
    durability: durable ? 'durable' : 'buffered',
    idempotencyKey: key,
  });
}

/**
 * A record rolled back behind S3 hands seq 2 out again; the put that gets it
 * (under Idempotency-Key `k-reused`) is acked buffered, and the rebuild
 * quarantines it: S3 already holds other rows at seq 2.
 */
async function quarantinedSeq(f: Fixture): Promise<number> {
  const seq = await reusedSeq(f);
  const report = await rebuildShard(recoveryDepsOf(f), SHARD);
  expect(report.batches?.rejected.map((r) => r.seq)).toEqual([2]);
  return seq;
}

/** `quarantinedSeq` up to the rebuild: seq 2 acked buffered, the shard poisoned by the divergence. */
async function reusedSeq(f: Fixture): Promise<number> {
  await put(f, [{ n: 1 }]);
  await flushShard(f.flushDeps('a'), SHARD); // seq 1 at position 0
  const backup = await snapshotShardItem(f.table, SHARD); // durableSeq 1, nextSeq 2
  await put(f, [{ n: 2 }]);
  await flushShard(f.flushDeps('a'), SHARD); // seq 2 at position 1
  await restoreShardItem(f.table, backup);
  await expireBatchItems(f.table, SHARD, 2); // the restore is older than the items' lifetime
  const { ack } = await put(f, [{ n: 'reused' }], 'k-reused');
  expect(ack).toEqual({ shard: SHARD, seq: 2, rows: 1, durable: false });
  expect(await flushShard(f.flushDeps('b'), SHARD)).toMatchObject({ status: 'poisoned' });
  return ack.seq;
}

describe('seqState', () => {
  describe('quarantined', () => {
    it('answers quarantined, durable false, naming the rebuild, for a batch a rebuild set aside', async () => {
      const f = await fixture(dynalite());
      const seq = await quarantinedSeq(f);
      const answer = await seqAnswer(f, seq);
      expect(answer).toMatchObject({
        seq,
        state: 'quarantined',
        durable: false,
        durableSeq: 2,
        poison: null,
        quarantine: { generation: 1 },
      });
      expect((answer.quarantine as { reason: string }).reason).toContain(
        'rows rejected: seq 2 already durable in S3',
      );
      // The seq below it, whose rows the WAL holds, stays durable (told by the WAL: its item expired).
      expect(await seqAnswer(f, 1)).toMatchObject({ state: 'durable', durable: true });
    });

    it('answers quarantined for a batch set aside by a rebuild that died before its cursor reset', async () => {
      const f = await fixture(dynalite());
      const seq = await reusedSeq(f);
      const died = await caught(() =>
        rebuildShard(
          {
            ...recoveryDepsOf(f),
            faults: async (point) => {
              if (point === RebuildFaultPoint.afterQuarantine) throw new Error('killed');
            },
          },
          SHARD,
        ),
      );
      expect((died as Error).message).toBe('killed');
      // The copy is named by the generation the reset had yet to commit: the record's + 1.
      expect(await readShardRecord(f.table, SHARD)).toMatchObject({ generation: 0 });
      expect(await seqAnswer(f, seq)).toMatchObject({
        seq,
        state: 'quarantined',
        durable: false,
        quarantine: { generation: 1 },
      });
    });

    it('keeps a seq quarantined when the rebuild that set it aside died and is run again: no void, and a repeat is fenced, never stored again (seeds 19008415, 19009412)', async () => {
      const f = await fixture(dynalite());
      const seq = await reusedSeq(f);
      const killed = {
        ...recoveryDepsOf(f),
        faults: async (point: string) => {
          if (point === RebuildFaultPoint.afterQuarantine) throw new Error('killed');
        },
      };
      expect(((await caught(() => rebuildShard(killed, SHARD))) as Error).message).toBe('killed');
      await rebuildShard(recoveryDepsOf(f), SHARD);
      expect(await readBatchHead(f.table, SHARD, seq)).toBeUndefined();
      expect(await seqAnswer(f, seq)).toMatchObject({ seq, state: 'quarantined', durable: false });
      f.clock.advance(f.config.reservationLeaseMs + 1);
      const error = await caught(() => put(f, [{ n: 'reused' }], 'k-reused', true));
      expect(error).toBeInstanceOf(FencedError);
      expect((error as Error).message).toContain(`seq ${seq} is quarantined`);
    });

    it('fails a durable repeat of the quarantined put with fenced, never 200 durable', async () => {
      const f = await fixture(dynalite());
      await quarantinedSeq(f);
      // Within the reservation's lease the repeat cannot tell the first put from one still
      // writing (reservations are never completed since the 3-request put): 409, retryable.
      const early = await caught(() => put(f, [{ n: 'reused' }], 'k-reused', true));
      expect(early).toBeInstanceOf(InProgressError);
      f.clock.advance(f.config.reservationLeaseMs + 1);
      const error = await caught(() => put(f, [{ n: 'reused' }], 'k-reused', true));
      expect(error).toBeInstanceOf(FencedError);
      expect((error as FencedError).kind).toBe(ErrorKind.fenced);
      expect((error as Error).message).toContain('seq 2 is quarantined');
    });
  });

  describe('void', () => {
    it('refuses a durable repeat whose seq a rebuild sealed void (its WAL object lost) while its reservation lasts, then lands its rows once at a new seq', async () => {
      const f = await fixture(dynalite());
      const { ack } = await put(f, [{ n: 1 }], 'k-lost');
      await flushShard(f.flushDeps('a'), SHARD); // seq 1 at position 0
      await f.memory.delete('shards/orders/wal/00000000000000000000'); // the object is lost
      await expireBatchItems(f.table, SHARD, 1);
      const report = await rebuildShard(recoveryDepsOf(f), SHARD);
      expect(report.batches?.lost).toEqual({ fromSeq: 1, toSeq: 1, missing: 1 });
      await flushShard(f.flushDeps('a'), SHARD); // commits the void at seq 1
      expect(await seqAnswer(f, ack.seq)).toMatchObject({ state: 'void', durable: false });
      const early = await caught(() => put(f, [{ n: 1 }], 'k-lost', true));
      expect(early).toBeInstanceOf(InProgressError);
      // Once the lease has passed, the key's batch provably did not land (its seq is void):
      // the repeat buffers the rows once, at a new seq, and seq 1 stays void.
      f.clock.advance(f.config.reservationLeaseMs + 1);
      const again = await put(f, [{ n: 1 }], 'k-lost');
      expect(again.repeated).toBe(false);
      expect(again.ack.seq).toBeGreaterThan(ack.seq);
      expect(await seqAnswer(f, ack.seq)).toMatchObject({ state: 'void', durable: false });
    });
  });

  describe('reissued seqs', () => {
    /**
     * Seq 1 at position 0; the record backed up (nextSeq 2); seq 2 at position 1
     * (`second` puts it: rows, or a gap the flusher seals); the backup restored once
     * the items expired; a put takes seq 2 again and dies before writing; a rebuild
     * seals it void (rule 3 in `lib/recovery/reconcile-batches.ts`).
     */
    async function reissuedSeq(f: Fixture, second: () => Promise<unknown>): Promise<void> {
      await put(f, [{ n: 1 }]);
      await flushShard(f.flushDeps('a'), SHARD);
      const backup = await snapshotShardItem(f.table, SHARD); // durableSeq 1, nextSeq 2
      await second();
      f.clock.advance(5_000);
      await flushShard(f.flushDeps('a'), SHARD);
      await restoreShardItem(f.table, backup);
      await expireBatchItems(f.table, SHARD, 2);
      expect((await allocateOnly(f, SHARD, 20)).seq).toBe(2); // the put that dies
      const report = await rebuildShard(recoveryDepsOf(f), SHARD);
      expect(report.batches?.sealed).toEqual([2]);
      expect(await readBatchHead(f.table, SHARD, 2)).toMatchObject({
        kind: 'void',
        reissued: true,
      });
    }

    it('answers durable, never void, where S3 holds an earlier put’s rows at a seq a rebuild sealed void', async () => {
      const f = await fixture(dynalite(), { gapSealMs: 2_000 });
      await reissuedSeq(f, () => put(f, [{ n: 2 }]));
      expect(await seqAnswer(f, 2)).toMatchObject({ seq: 2, state: 'durable', durable: true });
      // Without the WAL nothing can tell which put the number is asked for.
      expect(await seqAnswer(f, 2, false)).toMatchObject({ state: 'unknown', durable: false });
    });

    it('answers void where S3 holds a void at the seq too', async () => {
      const f = await fixture(dynalite(), { gapSealMs: 2_000 });
      await reissuedSeq(f, () => allocateOnly(f, SHARD, 20)); // sealed void by the flusher
      expect(await seqAnswer(f, 2)).toMatchObject({ seq: 2, state: 'void', durable: false });
    });
  });

  describe('expired batch items', () => {
    /** Seqs 1-3 at position 0 (2 sealed void), 4 at position 1, 5 at position 2; every item expired. */
    async function expiredShard(f: Fixture) {
      await putBatch(f.put, SHARD, [{ n: 1 }]);
      await allocateOnly(f, SHARD, 20);
      await putBatch(f.put, SHARD, [{ n: 3 }]);
      f.clock.advance(5_000);
      expect(await flushShard(f.flushDeps('a'), SHARD)).toMatchObject({ sealed: [2], lastSeq: 3 });
      await putBatch(f.put, SHARD, [{ n: 4 }]);
      await flushShard(f.flushDeps('a'), SHARD);
      await putBatch(f.put, SHARD, [{ n: 5 }]);
      await flushShard(f.flushDeps('a'), SHARD);
      await expireBatchItems(f.table, SHARD, 5);
    }

    it('tells durable from void by the WAL object that covers the seq', async () => {
      const f = await fixture(dynalite(), { gapSealMs: 2_000 });
      await expiredShard(f);
      const states = [];
      for (const seq of [1, 2, 3, 4, 5]) states.push((await seqAnswer(f, seq)).state);
      expect(states).toEqual(['durable', 'void', 'durable', 'durable', 'durable']);
      expect(await seqAnswer(f, 2)).toMatchObject({ durable: false });
    });

    it('answers unknown without the WAL, and below the export watermark', async () => {
      const f = await fixture(dynalite(), { gapSealMs: 2_000 });
      await expiredShard(f);
      expect(await seqAnswer(f, 2, false)).toMatchObject({ state: 'unknown', durable: false });
      await exportShard(exportDepsOf(f), SHARD); // watermark 3: the WAL below is no longer read
      expect((await readShardRecord(f.table, SHARD))?.aofWatermark).toBe(3);
      expect(await seqAnswer(f, 2)).toMatchObject({ state: 'unknown', durable: false });
      expect(await seqAnswer(f, 5)).toMatchObject({ state: 'unknown', durable: false });
    });

    it('answers 500 corrupt_data naming a corrupt covering object, never a state', async () => {
      const f = await fixture(dynalite(), { gapSealMs: 2_000 });
      await expiredShard(f);
      const key = 'shards/orders/wal/00000000000000000000';
      // A valid gzip stream and header line, but a trailer whose checksum does not hold.
      const text = gunzipSync((await f.memory.get(key))!).toString();
      const bytes = gzipSync(
        text.replace(/"crc32":(\d+)/, (_, crc) => `"crc32":${Number(crc) ^ 1}`),
      );
      await f.memory.delete(key);
      await f.memory.putIfAbsent(key, bytes);
      const event = httpEvent(EventFile.apiSeqStatus, { shard: SHARD, seq: '2' });
      const result = await handleStatus(event, f.table, f.store);
      expect(result.statusCode).toBe(500);
      expect(bodyOf(result)).toMatchObject({ error: { kind: ErrorKind.corruptData } });
      expect((bodyOf(result).error as { message: string }).message).toContain(key);
    });

    it('reads headers only while searching, then the covering object to its end', async () => {
      const f = await fixture(dynalite(), { gapSealMs: 2_000 });
      await expiredShard(f);
      const record = (await readShardRecord(f.table, SHARD))!;
      const requests: string[] = [];
      const store = new InstrumentedObjectStore(f.memory, {
        onRequest: (operation, key) => requests.push(`${operation} ${key.slice(-2)}`),
      });
      expect(await seqState({ table: f.table, store }, record, 4)).toEqual({
        state: SeqState.durable,
      });
      // Positions 0-2: the search probes 1 (seq 4) by its header, then reads it to its end.
      expect(requests).toEqual(['getStream 01', 'getStream 01']);
    });
  });
});
