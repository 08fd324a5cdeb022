import { describe, expect, it } from 'vitest';
import { flushShard } from '../../lib/flush/flush-shard.js';
import { handlePut } from '../../lib/http/put-route.js';
import { walKey } from '../../lib/paths.js';
import { decodeWal } from '../../lib/wal/decode.js';
import { bodyOf, EventFile, httpEvent } from '../support/events.js';
import { fixture, useDynalite } from '../support/harness.js';

const dynalite = useDynalite();
const SHARD = 'orders';

describe('keyed rows and deletes', () => {
  it('land in the WAL with their keys and delete markers, in seq and row order', async () => {
    const f = await fixture(dynalite());
    // seq 1: the sample keyless body
    const plain = await handlePut(httpEvent(EventFile.apiPut, { shard: SHARD }), f.put);
    // seq 2: keyed upserts, numeric key included
    const keyed = await handlePut(
      httpEvent(EventFile.apiPut, {
        shard: SHARD,
        headers: { 'idempotency-key': 'keyed' },
        body: {
          key: 'orderId',
          rows: [
            { orderId: 'o-1001', total: 45 },
            { orderId: 7, total: 1 },
          ],
        },
      }),
      f.put,
    );
    // seq 3: the sample durable body (an upsert and a delete), asked buffered here
    const deletes = await handlePut(
      httpEvent(EventFile.apiPutDurable, { shard: SHARD, query: { durability: 'buffered' } }),
      f.put,
    );
    expect([plain, keyed, deletes].map((r) => [r.statusCode, bodyOf(r).seq])).toEqual([
      [202, 1],
      [202, 2],
      [202, 3],
    ]);

    expect(await flushShard(f.flushDeps('ticker'), SHARD)).toMatchObject({
      status: 'flushed',
      firstSeq: 1,
      lastSeq: 3,
      rows: 6,
    });
    const wal = decodeWal(walKey(SHARD, 0), (await f.memory.get(walKey(SHARD, 0)))!);
    expect(wal.header).toMatchObject({ shard: SHARD, position: 0, firstSeq: 1, lastSeq: 3 });
    expect(wal.rows.map(({ ingestedAtMs: _, ...row }) => row)).toEqual([
      { seq: 1, offset: 0, text: '{"orderId":"o-1001","total":42.5}' },
      { seq: 1, offset: 1, text: '{"orderId":"o-1002","total":17}' },
      { seq: 2, offset: 2, key: '"o-1001"', text: '{"orderId":"o-1001","total":45}' },
      { seq: 2, offset: 3, key: '7', text: '{"orderId":7,"total":1}' },
      { seq: 3, offset: 4, key: '"o-1001"', text: '{"orderId":"o-1001","total":45}' },
      { seq: 3, offset: 5, key: '"o-1002"', delete: true },
    ]);
  });

  it('keeps every member of a row through the WAL, __proto__ included', async () => {
    const f = await fixture(dynalite());
    const body = '{"rows":[{"__proto__":{"admin":true},"user":"u-1"}]}';
    const put = await handlePut(httpEvent(EventFile.apiPut, { shard: SHARD, body }), f.put);
    expect(put.statusCode).toBe(202);
    await flushShard(f.flushDeps('ticker'), SHARD);
    const wal = decodeWal(walKey(SHARD, 0), (await f.memory.get(walKey(SHARD, 0)))!);
    expect(wal.rows[0]?.text).toBe('{"__proto__":{"admin":true},"user":"u-1"}');
  });
});
