import { describe, expect, it } from 'vitest';
import { readIdempotencyRecord } from '../../lib/memtable/idempotency.js';
import { putRows } from '../../lib/put/put-rows.js';
import { parsePutValue } from '../../lib/put/schema.js';
import { gatedTable } from '../support/gated-table.js';
import { fixture, useDynalite } from '../support/harness.js';
import { rowValue } from '../support/rows.js';
import { isBatchHeadRead, isBatchWrite, scriptedTable } from '../support/scripted-table.js';
import { drain, readWalChain } from '../support/wal-chain.js';

const dynalite = useDynalite();
const SHARD = 'w1';

describe('putRows', () => {
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
