import { describe, expect, it } from 'vitest';
import { flushShard } from '../../lib/flush/flush-shard.js';
import { readShardRecord } from '../../lib/memtable/shard-record.js';
import { walKey } from '../../lib/paths.js';
import { putRows } from '../../lib/put/put-rows.js';
import { parsePutValue } from '../../lib/put/schema.js';
import { decodeWal } from '../../lib/wal/decode.js';
import { fixture, useDynalite } from '../support/harness.js';
import { rowValue } from '../support/rows.js';

const dynalite = useDynalite();

describe('flushShard', () => {
  it('appends buffered batches in seq order as one WAL object', async () => {
    const f = await fixture(dynalite());
    for (let i = 0; i < 3; i++) {
      await putRows(f.put, {
        shard: 's1',
        body: parsePutValue({ rows: [{ i }] }, 10_000),
        durability: 'buffered',
      });
    }
    expect(f.store.counts().putIfAbsent).toBe(0);
    const outcome = await flushShard(f.flushDeps('a'), 's1');
    expect(outcome).toMatchObject({
      status: 'flushed',
      position: 0,
      firstSeq: 1,
      lastSeq: 3,
      rows: 3,
    });
    const object = decodeWal('k', (await f.memory.get(walKey('s1', 0)))!);
    expect(object.rows.map((r) => rowValue(r))).toEqual([{ i: 0 }, { i: 1 }, { i: 2 }]);
    const record = await readShardRecord(f.table, 's1');
    expect(record).toMatchObject({
      durableSeq: 3,
      walNextPos: 1,
      nextRowOffset: 3,
      bufferedBytes: 0,
      pending: false,
    });
    expect(await flushShard(f.flushDeps('a'), 's1')).toMatchObject({ status: 'idle' });
    expect(f.store.counts().putIfAbsent).toBe(1);
  });
});
