/**
 * What a rebuild leaves in `bufferedBytes`: a shard the rebuild leaves with
 * nothing pending buffers nothing. A void sealed by a flusher records no
 * charge of its own, so its bytes stay charged until a later commit or the
 * pending-marker clear releases them; a rebuild that drops the pending
 * marker must release them too, or they stay buffered for good (no tick
 * visits a shard outside the pending index).
 */
import { describe, expect, it } from 'vitest';
import { readShardRecord } from '../../lib/memtable/shard-record.js';
import { rebuildShard } from '../../lib/recovery/rebuild.js';
import { fixture, useDynalite } from '../support/harness.js';
import { allocateOnly, drain, leaveStaleMarker, putBatch } from '../support/wal-chain.js';
import { recoveryDepsOf } from './support.js';

const dynalite = useDynalite();
const SHARD = 'charges';

describe('rebuildShard', () => {
  describe('on a shard whose last seq is a sealed void, left in the pending index with its bytes charged', () => {
    it('leaves nothing buffered and the shard out of the pending index', async () => {
      const f = await fixture(dynalite());
      await putBatch(f.put, SHARD, [{ n: 1 }]);
      // A put that allocated seq 2 and died before writing it.
      await allocateOnly(f, SHARD, 42);
      f.clock.advance(f.config.gapSealMs + 1);
      await drain(f.flushDeps('ticker'), SHARD);
      // A flusher of the earlier protocol, killed between its commit and the marker clear, left this.
      await leaveStaleMarker(f, SHARD, 42);
      expect(await readShardRecord(f.table, SHARD)).toMatchObject({
        durableSeq: 2,
        nextSeq: 3,
        bufferedBytes: 42,
        pending: true,
      });

      const report = await rebuildShard(recoveryDepsOf(f), SHARD);
      expect(report.status).toBe('rebuilt');
      const record = await readShardRecord(f.table, SHARD);
      expect(record).toMatchObject({ durableSeq: 2, nextSeq: 3, bufferedBytes: 0, pending: false });
      expect(record?.releasedBytes).toBe(record?.chargedBytes);
    });
  });
});
