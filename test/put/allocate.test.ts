import { describe, expect, it } from 'vitest';
import { FaultPoint } from '../../lib/flush/fault-points.js';
import { flushShard } from '../../lib/flush/flush-shard.js';
import { allocateSeq } from '../../lib/memtable/allocate.js';
import { readShardRecord } from '../../lib/memtable/shard-record.js';
import { putRows } from '../../lib/put/put-rows.js';
import { parsePutValue } from '../../lib/put/schema.js';
import { type Fixture, fixture, useDynalite } from '../support/harness.js';
import { isAllocation, scriptedTable } from '../support/scripted-table.js';
import { drain } from '../support/wal-chain.js';

const dynalite = useDynalite();
const SHARD = 'alloc';

function allocate(f: Fixture, table = f.table, token?: string) {
  return allocateSeq(table, {
    shard: SHARD,
    bytes: 100,
    nowMs: f.clock.now(),
    maxBufferedBytes: f.config.maxBufferedBytes,
    retryAfterSeconds: 1,
    token,
  });
}

function putOne(f: Fixture, n: number) {
  return putRows(f.put, {
    shard: SHARD,
    body: parsePutValue({ rows: [{ n }] }, 10_000),
    durability: 'buffered',
  });
}

describe('allocateSeq', () => {
  describe('when the response of an allocation is lost', () => {
    it('takes one seq and charges once when it re-sends the update that landed', async () => {
      const f = await fixture(dynalite());
      const scripted = scriptedTable(f.table);
      scripted.add({ match: isAllocation, effect: 'lose-response' });
      const allocation = await allocate(f, scripted.table);
      expect(scripted.hits['lose-response']).toBe(1);
      expect(allocation).toMatchObject({ seq: 1, bufferedBytes: 100, chargeEnd: 100 });
      const record = await readShardRecord(f.table, SHARD);
      expect(record).toMatchObject({ nextSeq: 2, bufferedBytes: 100, chargedBytes: 100 });
    });

    it('reports the refusal, not its own landed update, only when the token is not its own', async () => {
      const f = await fixture(dynalite(), { maxBufferedBytes: 150, flushTriggerBytes: 150 });
      await allocate(f);
      // Another put's token: a plain backpressure refusal.
      await expect(allocate(f, f.table, 'someone-else')).rejects.toMatchObject({
        kind: 'backpressure',
      });
    });
  });
});

describe('bufferedBytes', () => {
  it('equals the bytes really pending under steady load with sealed gaps', async () => {
    const f = await fixture(dynalite(), { gapSealMs: 1_000 });
    const pending = new Map<number, number>(); // seq → bytes still to flush
    for (let round = 0; round < 5; round++) {
      await allocate(f); // a put that died after allocating: a gap the flusher seals
      for (let i = 0; i < 3; i++) {
        const { ack, bytes } = await putOne(f, round * 10 + i);
        pending.set(ack.seq, bytes);
      }
      f.clock.advance(f.config.gapSealMs + 1);
      // A put lands between the claim and the commit: the commit cannot drain the shard (C5).
      const outcome = await flushShard(
        f.flushDeps('ticker', {
          faults: async (point) => {
            if (point !== FaultPoint.afterWalWrite) return;
            const { ack, bytes } = await putOne(f, 1_000 + round);
            pending.set(ack.seq, bytes);
          },
        }),
        SHARD,
      );
      expect(outcome).toMatchObject({ status: 'flushed', sealed: [expect.any(Number)] });
      if (outcome.status !== 'flushed') return;
      for (const seq of [...pending.keys()]) if (seq <= outcome.lastSeq) pending.delete(seq);
      const record = await readShardRecord(f.table, SHARD);
      expect(record?.pending).toBe(true);
      expect(record?.bufferedBytes).toBe([...pending.values()].reduce((a, b) => a + b, 0));
    }
  });

  it('returns to zero once everything is flushed', async () => {
    const f = await fixture(dynalite(), { gapSealMs: 1_000 });
    await allocate(f);
    await putOne(f, 1);
    f.clock.advance(f.config.gapSealMs + 1);
    await drain(f.flushDeps('drain'), SHARD);
    expect(await readShardRecord(f.table, SHARD)).toMatchObject({
      bufferedBytes: 0,
      pending: false,
    });
  });
});
