/**
 * C1 in `lib/fence/commit.ts` at the record: a flusher fenced by a newer claim
 * commits nothing, whatever position it holds. The flush-level zombie tests
 * cannot tell (the position condition and the adopt check keep a zombie's
 * append harmless there); what only the epoch condition stops is a zombie
 * moving the cursors and taking the live flusher's lease away.
 */
import { describe, expect, it } from 'vitest';
import { claimFlush } from '../../lib/fence/claim.js';
import { commitFlush } from '../../lib/fence/commit.js';
import { readShardRecord } from '../../lib/memtable/shard-record.js';
import { fixture, useDynalite } from '../support/harness.js';
import { drain, putBatch } from '../support/wal-chain.js';

const dynalite = useDynalite();
const SHARD = 'fenced';
const LEASE_MS = 5_000;

describe('commitFlush', () => {
  for (const flushedFirst of [false, true]) {
    const position = flushedFirst ? 1 : 0;
    it(`changes nothing for a flusher fenced by a newer claim (position ${position})`, async () => {
      const f = await fixture(dynalite());
      await putBatch(f.put, SHARD, [{ n: 1 }]);
      if (flushedFirst) {
        await drain(f.flushDeps('ticker'), SHARD);
        await putBatch(f.put, SHARD, [{ n: 2 }]);
      }
      const zombie = await claimFlush(f.table, SHARD, 'zombie', f.clock.now(), LEASE_MS);
      f.clock.advance(LEASE_MS + 1);
      const live = await claimFlush(f.table, SHARD, 'live', f.clock.now(), LEASE_MS);
      expect(zombie && live && live.epoch > zombie.epoch).toBe(true);
      const before = await readShardRecord(f.table, SHARD);
      expect(before?.walNextPos ?? 0).toBe(position);

      const committed = await commitFlush(f.table, {
        shard: SHARD,
        epoch: zombie!.epoch,
        position,
        lastSeq: position + 1,
        nextRowOffset: position + 1,
        releasedThrough: undefined,
      });
      expect(committed).toBeUndefined();
      expect(await readShardRecord(f.table, SHARD)).toMatchObject({
        durableSeq: before?.durableSeq,
        leaseOwner: 'live',
        epoch: live!.epoch,
      });
    });
  }
});
