/**
 * F5 in `lib/fence/claim.ts`: a claim whose response was lost is still the
 * claimant's. The emulated SDK retries the bump, the retry meets the lease the
 * first attempt wrote and fails its condition; without F5 the flusher reported
 * the shard busy and nobody flushed it for a whole lease (the stall behind the
 * simulation's seed 7020974 at 088e7fa).
 */
import { describe, expect, it } from 'vitest';
import { claimFlush } from '../../lib/fence/claim.js';
import { flushShard } from '../../lib/flush/flush-shard.js';
import { readShardRecord } from '../../lib/memtable/shard-record.js';
import { seededRandom } from '../../lib/seeded-random.js';
import { DynamoFault, FaultyDynamoClient } from '../support/sim-dynamodb/faulty-dynamo-client.js';
import { MemoryDynamoDB } from '../support/sim-dynamodb/memory-dynamodb.js';
import { clientFixture } from '../support/sim-dynamodb/memory-fixture.js';
import { putBatch } from '../support/wal-chain.js';

const SHARD = 'claimed';
const LEASE_MS = 5_000;

/** A fixture whose DynamoDB loses the responses `faulty.script` names. */
async function lossyFixture() {
  const faulty = new FaultyDynamoClient(new MemoryDynamoDB(), {
    random: seededRandom(7),
    sleep: async () => {},
  });
  const f = await clientFixture(faulty);
  return { f, faulty };
}

describe('claimFlush', () => {
  it('returns the claim when its response was lost and the retry met its own lease', async () => {
    const { f, faulty } = await lossyFixture();
    await putBatch(f.put, SHARD, [{ n: 1 }]);
    const before = await readShardRecord(f.table, SHARD);
    faulty.script('UpdateItem', DynamoFault.lostResponse);
    const claim = await claimFlush(f.table, SHARD, 'tick-a', f.clock.now(), LEASE_MS);
    expect(faulty.counters.lostResponses).toBe(1);
    expect(claim).toMatchObject({ epoch: before!.epoch + 1, owner: 'tick-a' });
    expect(claim?.record.leaseOwner).toBe('tick-a');
  });

  it('is refused when the live lease is another owner’s, or the same owner’s from another claim', async () => {
    const { f } = await lossyFixture();
    await putBatch(f.put, SHARD, [{ n: 1 }]);
    expect(await claimFlush(f.table, SHARD, 'tick-a', f.clock.now(), LEASE_MS)).toBeDefined();
    expect(await claimFlush(f.table, SHARD, 'tick-b', f.clock.now(), LEASE_MS)).toBeUndefined();
    f.clock.advance(1);
    expect(await claimFlush(f.table, SHARD, 'tick-a', f.clock.now(), LEASE_MS)).toBeUndefined();
  });
});

describe('flushShard', () => {
  it('flushes a shard whose claim lost its response, instead of leaving it leased and idle', async () => {
    const { f, faulty } = await lossyFixture();
    const ack = await putBatch(f.put, SHARD, [{ n: 1 }]);
    faulty.script('UpdateItem', DynamoFault.lostResponse);
    const outcome = await flushShard(f.flushDeps('tick-a'), SHARD);
    expect(outcome.status).toBe('flushed');
    expect((await readShardRecord(f.table, SHARD))?.durableSeq).toBe(ack.seq);
  });
});
