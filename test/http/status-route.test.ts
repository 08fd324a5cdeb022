import { describe, expect, it } from 'vitest';
import { ErrorKind } from '../../lib/errors.js';
import { poisonShard } from '../../lib/fence/commit.js';
import { flushShard } from '../../lib/flush/flush-shard.js';
import { handlePut } from '../../lib/http/put-route.js';
import { handleStatus } from '../../lib/http/status-route.js';
import { sealVoid } from '../../lib/memtable/seal-void.js';
import { bodyOf, EventFile, httpEvent } from '../support/events.js';
import { type Fixture, fixture, useDynalite } from '../support/harness.js';
import { allocateOnly } from '../support/wal-chain.js';

const dynalite = useDynalite();

async function putSample(f: Fixture, key: string) {
  return handlePut(httpEvent(EventFile.apiPut, { headers: { 'idempotency-key': key } }), f.put);
}

async function seqAnswer(f: Fixture, seq: number | string, withStore = true) {
  const event = httpEvent(EventFile.apiSeqStatus, { seq: String(seq) });
  return handleStatus(event, f.table, withStore ? f.store : undefined);
}

function messageOf(result: Awaited<ReturnType<typeof handleStatus>>): string {
  return (bodyOf(result).error as { message: string }).message;
}

describe('handleStatus', () => {
  describe('GET /v1/shards/{shard}', () => {
    it('reports the cursors, buffered bytes, epoch and poison of a shard', async () => {
      const f = await fixture(dynalite());
      await putSample(f, 'a');
      await putSample(f, 'b');
      const before = await handleStatus(httpEvent(EventFile.apiStatus), f.table);
      expect(before.statusCode).toBe(200);
      const status = bodyOf(before);
      expect(status).toMatchObject({
        shard: 'orders',
        nextSeq: 3,
        durableSeq: 0,
        walNextPos: 0,
        pending: true,
        epoch: 0,
        poison: null,
        lease: null,
      });
      expect(status.bufferedBytes).toBeGreaterThan(0);

      await flushShard(f.flushDeps('ticker'), 'orders');
      const after = bodyOf(await handleStatus(httpEvent(EventFile.apiStatus), f.table));
      expect(after).toMatchObject({
        nextSeq: 3,
        durableSeq: 2,
        walNextPos: 1,
        bufferedBytes: 0,
        pending: false,
        epoch: 1,
      });
    });

    it('shows the poison reason', async () => {
      const f = await fixture(dynalite());
      await putSample(f, 'a');
      await poisonShard(f.table, 'orders', 'diverged at position 0', 1);
      const status = bodyOf(await handleStatus(httpEvent(EventFile.apiStatus), f.table));
      expect(status.poison).toBe('diverged at position 0');
    });

    it('answers 404 not_found for a shard never written', async () => {
      const f = await fixture(dynalite());
      const result = await handleStatus(
        httpEvent(EventFile.apiStatus, { shard: 'nobody' }),
        f.table,
      );
      expect(result.statusCode).toBe(404);
      expect(bodyOf(result)).toEqual({
        error: { kind: ErrorKind.notFound, message: 'shard nobody not found' },
      });
    });

    it('answers 400 naming the shard for a bad name', async () => {
      const f = await fixture(dynalite());
      const result = await handleStatus(httpEvent(EventFile.apiStatus, { shard: '../x' }), f.table);
      expect(result.statusCode).toBe(400);
      expect(bodyOf(result)).toMatchObject({ error: { kind: ErrorKind.invalidInput } });
      expect(
        String(bodyOf(result).error && (bodyOf(result).error as { message: string }).message),
      ).toMatch(/^shard: /);
    });
  });

  describe('GET /v1/shards/{shard}/seqs/{seq}', () => {
    it('says durable:false until the covering flush commits, then durable:true', async () => {
      const f = await fixture(dynalite());
      await putSample(f, 'a');
      const event = httpEvent(EventFile.apiSeqStatus);
      const before = await handleStatus(event, f.table);
      expect(before.statusCode).toBe(200);
      expect(bodyOf(before)).toEqual({
        shard: 'orders',
        seq: 1,
        state: 'pending',
        durable: false,
        durableSeq: 0,
        poison: null,
      });
      await flushShard(f.flushDeps('ticker'), 'orders');
      expect(bodyOf(await handleStatus(event, f.table))).toMatchObject({
        seq: 1,
        state: 'durable',
        durable: true,
        durableSeq: 1,
      });
    });

    it('answers state void, durable false, for a gap sealed void and flushed', async () => {
      const f = await fixture(dynalite(), { gapSealMs: 2_000 });
      await putSample(f, 'a');
      expect((await allocateOnly(f, 'orders', 20)).seq).toBe(2); // a put that died before writing
      await putSample(f, 'b');
      f.clock.advance(5_000);
      expect(await flushShard(f.flushDeps('ticker'), 'orders')).toMatchObject({
        status: 'flushed',
        lastSeq: 3,
        sealed: [2],
      });
      expect(bodyOf(await seqAnswer(f, 2))).toEqual({
        shard: 'orders',
        seq: 2,
        state: 'void',
        durable: false,
        durableSeq: 3,
        poison: null,
      });
      expect(bodyOf(await seqAnswer(f, 3))).toMatchObject({ state: 'durable', durable: true });
    });

    it('answers pending for a seq still being written, and void once sealed, before any flush', async () => {
      const f = await fixture(dynalite());
      await putSample(f, 'a');
      await allocateOnly(f, 'orders', 20);
      expect(bodyOf(await seqAnswer(f, 2))).toMatchObject({ state: 'pending', durable: false });
      await sealVoid(f.table, 'orders', 2, f.clock.now());
      expect(bodyOf(await seqAnswer(f, 2))).toMatchObject({
        state: 'void',
        durable: false,
        durableSeq: 0,
      });
    });

    it.each([
      ['2^53', '9007199254740992', '"9007199254740992"'],
      ['2^53 + 1', '9007199254740993', '"9007199254740993"'],
      ['2^64', '18446744073709551616', '"18446744073709551616"'],
      ['a 400-digit value', '9'.repeat(400), `"${'9'.repeat(40)}"… (400 characters)`],
    ])('answers 400 naming the largest seq for %s, never a rounded one', async (_, seq, shown) => {
      const f = await fixture(dynalite());
      await putSample(f, 'a');
      const result = await seqAnswer(f, seq);
      expect(result.statusCode).toBe(400);
      expect(messageOf(result)).toBe(
        `seq: ${shown} is above the largest seq the service can issue, 9007199254740991`,
      );
    });

    it('reads the largest seq exactly: 404 naming 9007199254740991, and leading zeros as the same seq', async () => {
      const f = await fixture(dynalite());
      await putSample(f, 'a');
      const largest = await seqAnswer(f, '9007199254740991');
      expect(largest.statusCode).toBe(404);
      expect(messageOf(largest)).toBe('seq 9007199254740991 of shard orders not found');
      expect(bodyOf(await seqAnswer(f, '0001'))).toMatchObject({ seq: 1, state: 'pending' });
    });

    it('answers 404 for a seq not yet allocated and for an unknown shard', async () => {
      const f = await fixture(dynalite());
      await putSample(f, 'a');
      const unallocated = await handleStatus(
        httpEvent(EventFile.apiSeqStatus, { seq: '2' }),
        f.table,
      );
      expect(unallocated.statusCode).toBe(404);
      expect(bodyOf(unallocated)).toMatchObject({ error: { kind: ErrorKind.notFound } });
      const unknown = await handleStatus(
        httpEvent(EventFile.apiSeqStatus, { shard: 'nobody' }),
        f.table,
      );
      expect(unknown.statusCode).toBe(404);
    });

    it.each(['0', '-1', 'abc', '1.5', '', '1e3', ' 1', '0x10', '+1'])(
      'answers 400 naming seq for %j',
      async (seq) => {
        const f = await fixture(dynalite());
        await putSample(f, 'a');
        const result = await handleStatus(httpEvent(EventFile.apiSeqStatus, { seq }), f.table);
        expect(result.statusCode).toBe(400);
        expect((bodyOf(result).error as { message: string }).message).toMatch(/^seq: /);
      },
    );
  });
});
