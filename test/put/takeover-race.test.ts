/**
 * A takeover racing the flusher that seals its recorded seq: the seq must
 * never read as "landed" because the void appeared between two reads.
 */
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { flushShard } from '../../lib/flush/flush-shard.js';
import { sealVoid } from '../../lib/memtable/seal-void.js';
import { putRows } from '../../lib/put/put-rows.js';
import { parsePutValue } from '../../lib/put/schema.js';
import { gatedTable } from '../support/gated-table.js';
import { type Fixture, fixture, useDynalite } from '../support/harness.js';
import { isBatchWrite } from '../support/scripted-table.js';
import { drain, readWalChain } from '../support/wal-chain.js';

const dynalite = useDynalite();
const SHARD = 'race';
const KEY = 'k-race';

function put(f: Fixture, table = f.table, rows: object[] = [{ n: 1 }]) {
  return putRows(
    { ...f.put, table },
    {
      shard: SHARD,
      body: parsePutValue({ rows }, 10),
      durability: 'buffered',
      idempotencyKey: KEY,
    },
  );
}

/** The settle reads: the shard record, or the head of batch 1. */
function isSettleRead(command: unknown): boolean {
  if (!(command instanceof GetItemCommand)) return false;
  const sk = command.input.Key?.sk?.S ?? '';
  return sk === 'meta' || sk === `batch#${'1'.padStart(20, '0')}`;
}

describe('claimKey', () => {
  describe('taking over a reservation whose seq the flusher seals meanwhile', () => {
    it('never answers with the sealed seq: the rows land once, at a new seq', async () => {
      const f = await fixture(dynalite());
      // The first put reserves seq 1 and dies before writing its batch.
      const dead = gatedTable(f.table);
      const deadHeld = dead.close(isBatchWrite);
      put(f, dead.table).catch(() => undefined);
      await deadHeld;
      f.clock.advance(Math.max(f.config.reservationLeaseMs, f.config.gapSealMs) + 1);

      // The retry reads batch 1's head (has the key's batch landed?), then settles the seq with
      // two reads, the shard record and the head: let those through up to the settle's second.
      const gated = gatedTable(f.table);
      let seen = 0;
      const held = gated.close((command) => isSettleRead(command) && ++seen === 3);
      const retry = put(f, gated.table);
      await held;
      // Between the retry's two reads, the flusher seals seq 1 void and commits it.
      expect(await sealVoid(f.table, SHARD, 1, f.clock.now())).toBe('sealed');
      expect(await flushShard(f.flushDeps('ticker'), SHARD)).toMatchObject({
        status: 'flushed',
        lastSeq: 1,
      });
      gated.open();
      const result = await retry;
      expect(result.ack.seq).not.toBe(1);
      await drain(f.flushDeps('ticker'), SHARD);
      const rows = (await readWalChain(f.memory, SHARD)).flatMap((o) => o.rows);
      expect(rows.map((row) => [row.seq, row.text])).toEqual([[result.ack.seq, '{"n":1}']]);
    });
  });
});
