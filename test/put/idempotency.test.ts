import { UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { ErrorKind } from '../../lib/errors.js';
import { flushShard } from '../../lib/flush/flush-shard.js';
import { handlePut } from '../../lib/http/put-route.js';
import { readShardRecord } from '../../lib/memtable/shard-record.js';
import { bodyOf, EventFile, httpEvent } from '../support/events.js';
import { gatedTable } from '../support/gated-table.js';
import { fixture, useDynalite } from '../support/harness.js';

const dynalite = useDynalite();
const SHARD = 'orders';

describe('Idempotency-Key', () => {
  it('returns the identical ack for a repeat and buffers nothing', async () => {
    const f = await fixture(dynalite());
    const event = httpEvent(EventFile.apiPut, { shard: SHARD });
    const first = await handlePut(event, f.put);
    expect(first.statusCode).toBe(202);
    expect(bodyOf(first)).toEqual({ shard: SHARD, seq: 1, rows: 2, durable: false });
    const before = await readShardRecord(f.table, SHARD);

    for (let i = 0; i < 3; i++) {
      const repeat = await handlePut(httpEvent(EventFile.apiPut, { shard: SHARD }), f.put);
      expect(repeat.statusCode).toBe(first.statusCode);
      expect(repeat.body).toBe(first.body);
    }
    const after = await readShardRecord(f.table, SHARD);
    expect(after?.nextSeq).toBe(before?.nextSeq);
    expect(after?.bufferedBytes).toBe(before?.bufferedBytes);

    const flushed = await flushShard(f.flushDeps('ticker'), SHARD);
    expect(flushed).toMatchObject({ status: 'flushed', firstSeq: 1, lastSeq: 1, rows: 2 });
  });

  it('scopes keys per shard', async () => {
    const f = await fixture(dynalite());
    const a = await handlePut(httpEvent(EventFile.apiPut, { shard: 'a' }), f.put);
    const b = await handlePut(httpEvent(EventFile.apiPut, { shard: 'b' }), f.put);
    expect(bodyOf(a)).toMatchObject({ shard: 'a', seq: 1 });
    expect(bodyOf(b)).toMatchObject({ shard: 'b', seq: 1 });
  });

  it('answers 503 unavailable to an identical request while the first is in flight, never a duplicate', async () => {
    const f = await fixture(dynalite());
    const gated = gatedTable(f.table);
    const deps = { ...f.put, table: gated.table };
    const held = gated.close((command) => command instanceof UpdateItemCommand);
    const first = handlePut(httpEvent(EventFile.apiPut, { shard: SHARD }), deps);
    await held; // the first put has reserved its key and waits at its seq allocation

    const second = await handlePut(httpEvent(EventFile.apiPut, { shard: SHARD }), deps);
    expect(second.statusCode).toBe(503);
    expect(bodyOf(second)).toEqual({
      error: { kind: ErrorKind.unavailable, message: expect.stringContaining('in progress') },
    });

    gated.open();
    const done = await first;
    expect(done.statusCode).toBe(202);
    const retry = await handlePut(httpEvent(EventFile.apiPut, { shard: SHARD }), deps);
    expect(retry.body).toBe(done.body);
    expect(await readShardRecord(f.table, SHARD)).toMatchObject({ nextSeq: 2 });
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
