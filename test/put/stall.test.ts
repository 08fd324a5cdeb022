import { describe, expect, it } from 'vitest';
import { ShardStalledError } from '../../lib/errors.js';
import { errorResponse } from '../../lib/http/error-response.js';
import { stallRefusalMs } from '../../lib/liveness.js';
import { readShardRecord } from '../../lib/memtable/shard-record.js';
import { fixture, useDynalite } from '../support/harness.js';
import { drain, putBatch } from '../support/wal-chain.js';
import { caught } from '../wal/helpers.js';

const dynalite = useDynalite();
const SHARD = 'stalled';

describe('putRows', () => {
  describe('on a shard whose pending batches stopped flushing', () => {
    it('refuses new puts well before the pending items could expire, and takes them again once flushed', async () => {
      const f = await fixture(dynalite());
      await putBatch(f.put, SHARD, [{ n: 1 }]);
      const pendingSince = (await readShardRecord(f.table, SHARD))?.pendingSinceMs;
      expect(pendingSince).toBe(f.clock.now());

      f.clock.advance(stallRefusalMs(f.config) - 1);
      await putBatch(f.put, SHARD, [{ n: 2 }]); // younger than the bound: still taken
      f.clock.advance(2);
      const refused = await caught(() => putBatch(f.put, SHARD, [{ n: 3 }]));
      expect(refused).toBeInstanceOf(ShardStalledError);
      expect(errorResponse(refused).statusCode).toBe(503);
      expect((await readShardRecord(f.table, SHARD))?.nextSeq).toBe(3);

      await drain(f.flushDeps('ticker'), SHARD);
      expect((await readShardRecord(f.table, SHARD))?.pendingSinceMs).toBeUndefined();
      expect((await putBatch(f.put, SHARD, [{ n: 3 }])).seq).toBe(3);
    });

    it('bounds the age of what stays pending by the newest allocation a commit covered', async () => {
      const f = await fixture(dynalite(), { maxWalObjectBytes: 1 });
      await putBatch(f.put, SHARD, [{ n: 1 }]);
      f.clock.advance(1_000);
      const second = f.clock.now();
      await putBatch(f.put, SHARD, [{ n: 2 }]);
      f.clock.advance(1_000);
      await putBatch(f.put, SHARD, [{ n: 3 }]);
      // One batch per object: after the first commit, seqs 2 and 3 are still pending.
      const { flushShard } = await import('../../lib/flush/flush-shard.js');
      await flushShard(f.flushDeps('ticker'), SHARD);
      const record = await readShardRecord(f.table, SHARD);
      expect(record?.durableSeq).toBe(1);
      expect(record?.pendingSinceMs).toBeLessThanOrEqual(second);
      await flushShard(f.flushDeps('ticker'), SHARD);
      expect((await readShardRecord(f.table, SHARD))?.pendingSinceMs).toBe(second);
    });
  });
});
