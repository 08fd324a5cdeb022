/**
 * A durable waiter across a rebuild (`lib/put/durable-wait.ts`): once the
 * shard was rebuilt after the put allocated (a new generation), `durableSeq`
 * no longer says whose batch holds the seq (the rebuild may have quarantined
 * it, its seq now holding another put's rows), so the waiter never answers
 * durable: it throws FencedError and the caller checks the seq's status.
 */
import { describe, expect, it } from 'vitest';
import { FencedError } from '../../lib/errors.js';
import { flushShard } from '../../lib/flush/flush-shard.js';
import { readShardRecord } from '../../lib/memtable/shard-record.js';
import { waitDurable } from '../../lib/put/durable-wait.js';
import { rebuildShard } from '../../lib/recovery/rebuild.js';
import { recoveryDepsOf } from '../recovery/support.js';
import { fixture, useDynalite } from '../support/harness.js';
import { putBatch } from '../support/wal-chain.js';
import { caught } from '../wal/helpers.js';

const dynalite = useDynalite();
const SHARD = 's1';

describe('waitDurable', () => {
  it('throws FencedError, never true, for a seq allocated before a rebuild that made it durable', async () => {
    const f = await fixture(dynalite());
    const { seq } = await putBatch(f.put, SHARD, [{ n: 1 }]);
    const allocatedIn = (await readShardRecord(f.table, SHARD))!.generation;
    const report = await rebuildShard(recoveryDepsOf(f), SHARD);
    expect(report.status).toBe('rebuilt');
    await flushShard(f.flushDeps('ticker'), SHARD);
    const record = await readShardRecord(f.table, SHARD);
    expect(record!.generation).toBe(allocatedIn + 1);
    expect(record!.durableSeq).toBeGreaterThanOrEqual(seq!);
    const wait = () =>
      waitDurable(f.table, {
        shard: SHARD,
        seq: seq!,
        generation: allocatedIn,
        waitMs: 1_000,
        intervalMs: undefined,
        commitDelayMs: 40,
        maxPollMs: 100,
        now: f.clock.now,
        sleep: async (ms) => f.clock.advance(ms),
      });
    expect(await caught(wait)).toBeInstanceOf(FencedError);
  });
});
