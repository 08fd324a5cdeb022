/**
 * C1 in `lib/fence/commit.ts` at the record: a flusher fenced by a newer claim
 * commits nothing, whatever position it holds. The flush-level zombie tests
 * cannot tell (the position condition and the adopt check keep a zombie's
 * append harmless there); what only the epoch condition stops is a zombie
 * moving the cursors and taking the live flusher's lease away. And C5: a
 * commit drains the shard only when no put allocated past its last seq.
 */
import { describe, expect, it } from 'vitest';
import { claimFlush } from '../../lib/fence/claim.js';
import { commitFlush } from '../../lib/fence/commit.js';
import { readShardRecord } from '../../lib/memtable/shard-record.js';
import { fixture, useDynalite } from '../support/harness.js';
import { allocateOnly, drain, putBatch } from '../support/wal-chain.js';

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

      for (const drain of [false, true]) {
        const committed = await commitFlush(f.table, {
          shard: SHARD,
          epoch: zombie!.epoch,
          position,
          lastSeq: position + 1,
          nextRowOffset: position + 1,
          releasedThrough: undefined,
          drain,
        });
        expect(committed).toBeUndefined();
      }
      expect(await readShardRecord(f.table, SHARD)).toMatchObject({
        durableSeq: before?.durableSeq,
        leaseOwner: 'live',
        epoch: live!.epoch,
      });
    });
  }

  describe('with drain (C5)', () => {
    /** Claims the shard after one put of 10 bytes and commits seq 1 at position 0, draining if it can. */
    async function commitFirst(f: Awaited<ReturnType<typeof fixture>>, putsMeanwhile: number) {
      await allocateOnly(f, SHARD, 10);
      const claim = await claimFlush(f.table, SHARD, 'ticker', f.clock.now(), LEASE_MS);
      for (let i = 0; i < putsMeanwhile; i++) await allocateOnly(f, SHARD, 5);
      return commitFlush(f.table, {
        shard: SHARD,
        epoch: claim!.epoch,
        position: 0,
        lastSeq: 1,
        nextRowOffset: 1,
        releasedThrough: 10,
        drain: true,
      });
    }

    it('clears the pending marker in the same update when no put allocated since', async () => {
      const f = await fixture(dynalite());
      const committed = await commitFirst(f, 0);
      expect(committed?.drained).toBe(true);
      expect(committed?.record).toMatchObject({ durableSeq: 1, pending: false, bufferedBytes: 0 });
      expect(await readShardRecord(f.table, SHARD)).toMatchObject({
        durableSeq: 1,
        walNextPos: 1,
        pending: false,
        bufferedBytes: 0,
        leaseOwner: undefined,
      });
    });

    it('commits without draining, keeping the marker and the new bytes, when a put allocated since', async () => {
      const f = await fixture(dynalite());
      const committed = await commitFirst(f, 2);
      expect(committed?.drained).toBe(false);
      expect(await readShardRecord(f.table, SHARD)).toMatchObject({
        durableSeq: 1,
        nextSeq: 4,
        walNextPos: 1,
        pending: true,
        bufferedBytes: 10,
        leaseOwner: undefined,
      });
    });
  });
});
