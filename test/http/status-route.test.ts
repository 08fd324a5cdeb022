import { describe, expect, it } from 'vitest';
import { ErrorKind } from '../../lib/errors.js';
import { poisonShard } from '../../lib/fence/commit.js';
import { flushShard } from '../../lib/flush/flush-shard.js';
import { handlePut } from '../../lib/http/put-route.js';
import { handleStatus } from '../../lib/http/status-route.js';
import { bodyOf, EventFile, httpEvent } from '../support/events.js';
import { type Fixture, fixture, useDynalite } from '../support/harness.js';

const dynalite = useDynalite();

async function putSample(f: Fixture, key: string) {
  return handlePut(httpEvent(EventFile.apiPut, { headers: { 'idempotency-key': key } }), f.put);
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
        durable: false,
        durableSeq: 0,
        poison: null,
      });
      await flushShard(f.flushDeps('ticker'), 'orders');
      expect(bodyOf(await handleStatus(event, f.table))).toMatchObject({
        seq: 1,
        durable: true,
        durableSeq: 1,
      });
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

    it.each(['0', '-1', 'abc', '1.5', ''])('answers 400 naming seq for %j', async (seq) => {
      const f = await fixture(dynalite());
      await putSample(f, 'a');
      const result = await handleStatus(httpEvent(EventFile.apiSeqStatus, { seq }), f.table);
      expect(result.statusCode).toBe(400);
      expect((bodyOf(result).error as { message: string }).message).toMatch(/^seq: /);
    });
  });
});
