import { describe, expect, it } from 'vitest';
import { readBatchHead } from '../../lib/memtable/batch-heads.js';
import { readIdempotencyRecord } from '../../lib/memtable/idempotency.js';
import type { Table } from '../../lib/memtable/table.js';
import { putRows } from '../../lib/put/put-rows.js';
import { parsePutValue } from '../../lib/put/schema.js';
import { gatedTable } from '../support/gated-table.js';
import { type Fixture, fixture, useDynalite } from '../support/harness.js';
import { rowValue } from '../support/rows.js';
import { isBatchHeadRead, isBatchWrite, scriptedTable } from '../support/scripted-table.js';
import { drain, readWalChain } from '../support/wal-chain.js';

const dynalite = useDynalite();
const SHARD = 'w1';

function putOne(f: Fixture, table: Table) {
  return putRows(
    { ...f.put, table },
    { shard: SHARD, body: parsePutValue({ rows: [{ n: 1 }] }, 10_000), durability: 'buffered' },
  );
}

describe('putRows', () => {
  describe('when the batch write fails', () => {
    it('sends it again and acks the put once it lands on the third attempt', async () => {
      const f = await fixture(dynalite());
      const scripted = scriptedTable(f.table);
      scripted.add({ match: isBatchWrite, effect: 'fail', times: 2 });
      expect(await putOne(f, scripted.table)).toMatchObject({ ack: { seq: 1, rows: 1 } });
      expect(scripted.hits.fail).toBe(2);
      expect(await readBatchHead(f.table, SHARD, 1)).toMatchObject({ kind: 'rows', rowCount: 1 });
    });

    it('stops after three attempts, seals the seq void and stores nothing', async () => {
      const f = await fixture(dynalite());
      const scripted = scriptedTable(f.table);
      scripted.add({ match: isBatchWrite, effect: 'fail', times: 3 });
      await expect(putOne(f, scripted.table)).rejects.toMatchObject({ kind: 'unavailable' });
      expect(scripted.hits.fail).toBe(3);
      expect(await readBatchHead(f.table, SHARD, 1)).toMatchObject({ kind: 'void' });
    });
  });

  describe('when the batch write response is lost and the flusher tidies the batch first', () => {
    it('acks the put: an emptied seq that held a batch held ours', async () => {
      const f = await fixture(dynalite());
      const gated = gatedTable(f.table);
      const scripted = scriptedTable(gated.table);
      scripted.add({ match: isBatchWrite, effect: 'lose-response' });
      const held = gated.close(isBatchHeadRead); // the confirming read waits...
      const put = putRows(
        { ...f.put, table: scripted.table },
        {
          shard: SHARD,
          body: parsePutValue({ rows: [{ n: 1 }] }, 10_000),
          durability: 'buffered',
          idempotencyKey: 'k',
        },
      );
      await held;
      await drain(f.flushDeps('ticker'), SHARD); // ...while a flush covers the batch and removes it
      gated.open();
      expect(await put).toMatchObject({ repeated: false, ack: { seq: 1 } });
      expect(await readIdempotencyRecord(f.table, SHARD, 'k', f.clock.now())).toMatchObject({
        state: 'pending',
        seq: 1,
      });
      const rows = (await readWalChain(f.memory, SHARD)).flatMap((o) =>
        o.rows.map((r) => rowValue(r)),
      );
      expect(rows).toEqual([{ n: 1 }]);
    });
  });
});
