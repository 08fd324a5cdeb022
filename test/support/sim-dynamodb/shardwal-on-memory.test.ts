import { describe, expect, it } from 'vitest';
import { flushShard } from '../../../lib/flush/flush-shard.js';
import { listPendingShards } from '../../../lib/memtable/pending-index.js';
import { readShardRecord } from '../../../lib/memtable/shard-record.js';
import { walKey } from '../../../lib/paths.js';
import { putRows } from '../../../lib/put/put-rows.js';
import { seededRandom } from '../../../lib/seeded-random.js';
import { decodeWal } from '../../../lib/wal/decode.js';
import type { Fixture } from '../harness.js';
import { FaultyDynamoClient } from './faulty-dynamo-client.js';
import { MemoryDynamoDB } from './memory-dynamodb.js';
import { clientFixture } from './memory-fixture.js';
import { putBody, rowObject } from './put-bodies.js';

/** Every row of the shard's WAL, in position order. */
async function walRows(f: Fixture, shard: string): Promise<unknown[]> {
  const rows: unknown[] = [];
  for (let position = 0; ; position++) {
    const bytes = await f.memory.get(walKey(shard, position));
    if (!bytes) return rows;
    rows.push(...decodeWal(walKey(shard, position), bytes).rows.map(rowObject));
  }
}

/** Flushes until the shard is idle, moving the clock past leases and gap seals when it waits. */
async function drain(f: Fixture, shard: string): Promise<string[]> {
  const outcomes: string[] = [];
  for (let round = 0; round < 50; round++) {
    const outcome = await flushShard(f.flushDeps(`flusher-${round}`), shard);
    outcomes.push(outcome.status);
    if (outcome.status === 'idle') return outcomes;
    if (outcome.status === 'poisoned') throw new Error(`shard poisoned: ${outcome.reason}`);
    if (outcome.status !== 'flushed') f.clock.advance(10_000);
  }
  throw new Error(`shard ${shard} did not drain: ${outcomes.join(', ')}`);
}

describe('shardwal on MemoryDynamoDB', () => {
  describe('putRows and flushShard', () => {
    it('buffer puts and append them in seq order as one WAL object', async () => {
      const f = await clientFixture(new MemoryDynamoDB({ maxPageItems: 2 }));
      for (let i = 0; i < 3; i++) {
        const put = await putRows(f.put, {
          shard: 's1',
          body: putBody(f.config, [{ i }, { j: i }, { k: i }]),
          durability: 'buffered',
        });
        expect(put.ack).toMatchObject({ shard: 's1', seq: i + 1, rows: 3 });
      }
      expect(await listPendingShards(f.table)).toEqual(['s1']);
      const outcome = await flushShard(f.flushDeps('a'), 's1');
      expect(outcome).toMatchObject({
        status: 'flushed',
        position: 0,
        firstSeq: 1,
        lastSeq: 3,
        rows: 9,
      });
      expect(await walRows(f, 's1')).toEqual([0, 1, 2].flatMap((i) => [{ i }, { j: i }, { k: i }]));
      expect(await readShardRecord(f.table, 's1')).toMatchObject({
        durableSeq: 3,
        walNextPos: 1,
        nextRowOffset: 9,
        bufferedBytes: 0,
        pending: false,
      });
      expect(await listPendingShards(f.table)).toEqual([]);
    });

    it('answer a repeated Idempotency-Key with the original ack and buffer nothing', async () => {
      const f = await clientFixture(new MemoryDynamoDB());
      const request = {
        shard: 's1',
        body: putBody(f.config, [{ a: 1 }]),
        durability: 'buffered' as const,
        idempotencyKey: 'k1',
      };
      const first = await putRows(f.put, request);
      const again = await putRows(f.put, request);
      expect(again).toMatchObject({ ack: first.ack, repeated: true });
      // The repeat allocated seq 2 before its reservation's create found the key, and sealed it void.
      expect((await readShardRecord(f.table, 's1'))?.nextSeq).toBe(3);
    });

    it('lose no acknowledged row under injected DynamoDB faults and the SDK retries', async () => {
      const memory = new MemoryDynamoDB({ maxPageItems: 3 });
      const client = new FaultyDynamoClient(memory, {
        random: seededRandom(42),
        faults: { throttle: 0.05, internalError: 0.05, lostResponse: 0.1 },
        sleep: async () => undefined,
      });
      client.faults.enabled = false;
      const f = await clientFixture(client);
      client.faults.enabled = true;
      const acked: unknown[] = [];
      for (let i = 0; i < 40; i++) {
        const put = await putRows(f.put, {
          shard: 's1',
          body: putBody(f.config, [{ put: i }]),
          durability: 'buffered',
          idempotencyKey: `key-${i}`,
        }).catch(() => undefined);
        if (put) acked.push({ put: i });
      }
      client.faults.enabled = false;
      await drain(f, 's1');
      const rows = await walRows(f, 's1');
      // Every acknowledged put is in the WAL exactly once; nothing in it was never sent.
      for (const row of acked)
        expect(rows.filter((r) => JSON.stringify(r) === JSON.stringify(row))).toHaveLength(1);
      expect(new Set(rows.map((r) => JSON.stringify(r))).size).toBe(rows.length);
      expect(client.counters.lostResponses).toBeGreaterThan(0);
      expect(client.counters.retries).toBeGreaterThan(0);
      expect(acked.length).toBeGreaterThan(20);
    });
  });
});
