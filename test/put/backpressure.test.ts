import { describe, expect, it } from 'vitest';
import { ErrorKind } from '../../lib/errors.js';
import { poisonShard } from '../../lib/fence/commit.js';
import { flushShard } from '../../lib/flush/flush-shard.js';
import { handlePut } from '../../lib/http/put-route.js';
import { readShardRecord } from '../../lib/memtable/shard-record.js';
import { putRows } from '../../lib/put/put-rows.js';
import { parsePutValue } from '../../lib/put/schema.js';
import { bodyOf, EventFile, httpEvent } from '../support/events.js';
import { type Fixture, fixture, useDynalite } from '../support/harness.js';

const dynalite = useDynalite();
const SHARD = 'orders';

/** A keyless put of the sample body (76 bytes of rows, about 90 buffered). */
function put(f: Fixture) {
  return handlePut(
    httpEvent(EventFile.apiPut, { shard: SHARD, headers: { 'idempotency-key': undefined } }),
    f.put,
  );
}

describe('backpressure', () => {
  it('answers 429 with Retry-After once buffered bytes pass the limit, and accepts again after a flush', async () => {
    const f = await fixture(dynalite(), {
      flushIntervalMs: 2_500,
      maxBufferedBytes: 200,
      flushTriggerBytes: 200,
    });
    expect((await put(f)).statusCode).toBe(202);
    expect((await put(f)).statusCode).toBe(202);
    const refused = await put(f);
    expect(refused.statusCode).toBe(429);
    expect(refused.headers?.['retry-after']).toBe('3');
    expect(bodyOf(refused)).toEqual({
      error: { kind: ErrorKind.backpressure, message: expect.stringContaining('limit is 200') },
    });
    const record = await readShardRecord(f.table, SHARD);
    expect(record?.nextSeq).toBe(3); // the refused put took no seq

    await flushShard(f.flushDeps('ticker'), SHARD);
    expect((await put(f)).statusCode).toBe(202);
    expect(await readShardRecord(f.table, SHARD)).toMatchObject({ nextSeq: 4 });
  });

  it('admits one batch larger than the whole limit into an empty buffer', async () => {
    const f = await fixture(dynalite(), { maxBufferedBytes: 50, flushTriggerBytes: 50 });
    expect((await put(f)).statusCode).toBe(202);
    expect((await put(f)).statusCode).toBe(429);
  });
});

describe('poisoned shards', () => {
  it('answers 503 naming the reason, and takes no seq', async () => {
    const f = await fixture(dynalite());
    await put(f);
    await poisonShard(f.table, SHARD, 'WAL object at position 4 belongs to another chain', 1);
    const result = await put(f);
    expect(result.statusCode).toBe(503);
    expect(bodyOf(result)).toEqual({
      error: {
        kind: ErrorKind.poisoned,
        message: `shard ${SHARD} is poisoned: WAL object at position 4 belongs to another chain`,
      },
    });
    expect(await readShardRecord(f.table, SHARD)).toMatchObject({ nextSeq: 2 });
  });
});

describe('size trigger', () => {
  const rows = (n: number) => parsePutValue({ rows: [{ pad: 'x'.repeat(n) }] }, 1);

  it('requests a flush exactly once per crossing of flushTriggerBytes', async () => {
    const f = await fixture(dynalite(), { flushTriggerBytes: 300, maxBufferedBytes: 100_000 });
    const putOne = () => putRows(f.put, { shard: SHARD, body: rows(60), durability: 'buffered' });
    const seen: number[] = [];
    for (let i = 0; i < 10; i++) {
      const { bytes } = await putOne();
      seen.push(f.flushRequests.length);
      expect(bytes).toBe(87);
    }
    // 87 bytes a put (the row line `{"t":"r","row":{"pad":"x…x"}}` and its newline): the 4th put
    // takes the buffer from 261 to 348.
    expect(seen).toEqual([0, 0, 0, 1, 1, 1, 1, 1, 1, 1]);
    expect(f.flushRequests).toEqual([SHARD]);

    await flushShard(f.flushDeps('ticker'), SHARD);
    for (let i = 0; i < 4; i++) await putOne();
    expect(f.flushRequests).toEqual([SHARD, SHARD]);
  });

  it('requests exactly one flush when concurrent puts cross the trigger together', async () => {
    const f = await fixture(dynalite(), { flushTriggerBytes: 500, maxBufferedBytes: 100_000 });
    await Promise.all(
      Array.from({ length: 20 }, () =>
        putRows(f.put, { shard: SHARD, body: rows(60), durability: 'buffered' }),
      ),
    );
    expect(f.flushRequests).toEqual([SHARD]);
  });

  it('acks the put even when the flush request fails', async () => {
    const f = await fixture(dynalite(), { flushTriggerBytes: 50, maxBufferedBytes: 100_000 });
    const deps = {
      ...f.put,
      requestFlush: async () => {
        throw new Error('queue unavailable');
      },
    };
    const result = await putRows(deps, { shard: SHARD, body: rows(60), durability: 'buffered' });
    expect(result.ack).toMatchObject({ seq: 1, durable: false });
  });
});
