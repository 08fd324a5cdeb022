import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { PutDeadlineError } from '../../lib/errors.js';
import { readBatchHead } from '../../lib/memtable/batch-heads.js';
import { readShardRecord } from '../../lib/memtable/shard-record.js';
import type { Table } from '../../lib/memtable/table.js';
import { putRows } from '../../lib/put/put-rows.js';
import { parsePutValue } from '../../lib/put/schema.js';
import { type Fixture, fixture, useDynalite } from '../support/harness.js';
import { rowValue } from '../support/rows.js';
import { isAllocation } from '../support/scripted-table.js';
import { drain, readWalChain } from '../support/wal-chain.js';

const dynalite = useDynalite();
const SHARD = 'late';

/** A table on which the allocation takes `ms` of the fixture's clock (a slow request). */
function slowAllocation(f: Fixture, ms: number): Table {
  const client = {
    send: async (command: unknown) => {
      // biome-ignore lint/suspicious/noExplicitAny: forwarding any command unchanged
      const out = await f.table.client.send(command as any);
      if (isAllocation(command)) f.clock.advance(ms);
      return out;
    },
  } as unknown as DynamoDBClient;
  return { ...f.table, client };
}

describe('putRows', () => {
  describe('put deadline', () => {
    it('writes nothing once its deadline passed, and seals its own seq so the shard moves on', async () => {
      const f = await fixture(dynalite(), { putDeadlineMs: 1_000 });
      const put = putRows(
        { ...f.put, table: slowAllocation(f, 1_001) },
        {
          shard: SHARD,
          body: parsePutValue({ rows: [{ n: 1 }] }, 10_000),
          durability: 'buffered',
          idempotencyKey: 'k',
        },
      );
      await expect(put).rejects.toBeInstanceOf(PutDeadlineError);
      expect(await readBatchHead(f.table, SHARD, 1)).toMatchObject({ kind: 'void' });

      // No gap-seal wait: the shard flushes the void at once, and the key is free again.
      await drain(f.flushDeps('ticker'), SHARD);
      expect(await readShardRecord(f.table, SHARD)).toMatchObject({
        durableSeq: 1,
        bufferedBytes: 0,
      });
      const retry = await putRows(f.put, {
        shard: SHARD,
        body: parsePutValue({ rows: [{ n: 1 }] }, 10_000),
        durability: 'buffered',
        idempotencyKey: 'k',
      });
      expect(retry).toMatchObject({ repeated: false, ack: { seq: 2 } });
      await drain(f.flushDeps('ticker'), SHARD);
      const rows = (await readWalChain(f.memory, SHARD)).flatMap((o) => o.rows);
      expect(rows.map((row) => rowValue(row))).toEqual([{ n: 1 }]);
    });

    it('never runs past the deadline its transport imposes', async () => {
      const f = await fixture(dynalite(), { putDeadlineMs: 60_000, clockSkewMs: 0 });
      const put = putRows(
        { ...f.put, table: slowAllocation(f, 501) },
        {
          shard: SHARD,
          body: parsePutValue({ rows: [{ n: 1 }] }, 10_000),
          durability: 'buffered',
          deadlineAtMs: f.clock.now() + 500,
        },
      );
      await expect(put).rejects.toBeInstanceOf(PutDeadlineError);
    });
  });
});
