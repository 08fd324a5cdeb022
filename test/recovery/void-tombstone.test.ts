/**
 * A void is a tombstone for its whole lifetime (L4 in `lib/liveness.ts`):
 * a put stalled past the gap seal, and past a rebuild after it, must still
 * find its seq sealed and fail, never land rows below `durableSeq` that no
 * flush would ever read.
 */
import { describe, expect, it } from 'vitest';
import { GapSealedError } from '../../lib/errors.js';
import { voidLifetimeMs } from '../../lib/liveness.js';
import { encodeBatchRows } from '../../lib/memtable/batch-codec.js';
import { readBatchHead } from '../../lib/memtable/batch-heads.js';
import { readShardRecord } from '../../lib/memtable/shard-record.js';
import { batchRange, queryShardItems } from '../../lib/memtable/table.js';
import { writeBatch } from '../../lib/memtable/write-batch.js';
import { putRows } from '../../lib/put/put-rows.js';
import { parsePutValue } from '../../lib/put/schema.js';
import { rebuildShard } from '../../lib/recovery/rebuild.js';
import { type Fixture, fixture, useDynalite } from '../support/harness.js';
import { rowOf } from '../support/rows.js';
import { allocateOnly, drain } from '../support/wal-chain.js';
import { recoveryDepsOf } from './support.js';

const dynalite = useDynalite();
const SHARD = 's1';

/** A put that allocated `seq` and stalled before writing its batch, writing it now. */
function lateWrite(f: Fixture, seq: number) {
  return writeBatch(f.table, {
    shard: SHARD,
    seq,
    batch: encodeBatchRows([rowOf({ late: true })]),
    bytes: 20,
    nowMs: f.clock.now(),
  });
}

async function stalledPutThenFlush(f: Fixture): Promise<number> {
  const { seq } = await allocateOnly(f, SHARD, 20);
  await putRows(f.put, {
    shard: SHARD,
    body: parsePutValue({ rows: [{ n: 1 }] }, 10_000),
    durability: 'buffered',
  });
  f.clock.advance(f.config.gapSealMs + 1);
  await drain(f.flushDeps('ticker'), SHARD);
  expect(await readBatchHead(f.table, SHARD, seq)).toMatchObject({ kind: 'void' });
  return seq;
}

async function voidItems(f: Fixture, seq: number) {
  const items = [];
  for await (const item of queryShardItems(f.table, SHARD, batchRange(seq, seq), 'test')) {
    items.push(item);
  }
  return items;
}

describe('rebuildShard', () => {
  describe('reconciling void tombstones', () => {
    it('keeps a void sealed by the flusher, so a put stalled past the rebuild still fails', async () => {
      const f = await fixture(dynalite());
      const seq = await stalledPutThenFlush(f);
      f.clock.advance(60_000);
      const report = await rebuildShard(recoveryDepsOf(f), SHARD);
      expect(report.status).toBe('rebuilt');

      expect(await readBatchHead(f.table, SHARD, seq)).toMatchObject({ kind: 'void' });
      await expect(lateWrite(f, seq)).rejects.toBeInstanceOf(GapSealedError);
      expect((await readShardRecord(f.table, SHARD))?.durableSeq).toBeGreaterThanOrEqual(seq);
    });

    it('leaves the void to its TTL: it expires a void lifetime after its seal, never sooner', async () => {
      const f = await fixture(dynalite());
      const sealedAt = f.clock.now() + f.config.gapSealMs + 1;
      const seq = await stalledPutThenFlush(f);
      f.clock.advance(voidLifetimeMs(f.config) + 1);
      await rebuildShard(recoveryDepsOf(f), SHARD);
      const [item] = await voidItems(f, seq);
      expect(item?.expiresAt?.N).toBe(
        String(Math.ceil((sealedAt + voidLifetimeMs(f.config)) / 1000)),
      );
    });
  });
});
