/**
 * L5 (`lib/liveness.ts`) for a multi-chunk batch and at the stall refusal's
 * bound: every item of a pending batch, chunks included, expires no sooner
 * than its head and is renewed with it; a shard refuses new puts once its
 * oldest pending batch has lived half the lifetime its items carry.
 */
import { describe, expect, it } from 'vitest';
import { ShardStalledError } from '../../lib/errors.js';
import { poisonShard } from '../../lib/fence/commit.js';
import { readShardRecord } from '../../lib/memtable/shard-record.js';
import { batchRange, type Item, lifetimesOf, queryShardItems } from '../../lib/memtable/table.js';
import { putRows } from '../../lib/put/put-rows.js';
import { parsePutValue } from '../../lib/put/schema.js';
import { verifyShard } from '../../lib/recovery/verify.js';
import { seededRandom } from '../../lib/seeded-random.js';
import { recoveryDepsOf } from '../recovery/support.js';
import { type Fixture, fixture, useDynalite } from '../support/harness.js';
import { putBatch } from '../support/wal-chain.js';
import { caught } from '../wal/helpers.js';

const dynalite = useDynalite();
const SHARD = 'pending';

/** A put of ~650 KB gzip'd: two or more chunks, kept in DynamoDB (no spilling). */
async function putMultiChunk(f: Fixture): Promise<number> {
  const random = seededRandom(11);
  const rows = Array.from({ length: 40 }, (_, i) => {
    let text = '';
    while (text.length < 25_000) text += random().toString(36).slice(2);
    return { i, text };
  });
  const { ack } = await putRows(f.put, {
    shard: SHARD,
    body: parsePutValue({ rows }, 10_000),
    durability: 'buffered',
  });
  return ack.seq!;
}

async function itemsOf(f: Fixture, seq: number): Promise<Item[]> {
  const items: Item[] = [];
  for await (const item of queryShardItems(f.table, SHARD, batchRange(seq, seq), 'test')) {
    items.push(item);
  }
  return items;
}

const expiryOf = (item: Item) => Number(item.expiresAt?.N);

describe('a pending multi-chunk batch', () => {
  it('gives every chunk the TTL of its head', async () => {
    const f = await fixture(dynalite(), { spillBytes: 'off' });
    const seq = await putMultiChunk(f);
    const items = await itemsOf(f, seq);
    expect(items.length).toBeGreaterThan(1);
    const expected = Math.ceil((f.clock.now() + lifetimesOf(f.table).batchMs) / 1000);
    expect(items.map(expiryOf)).toEqual(items.map(() => expected));
  });

  it('has every chunk renewed with its head by the scheduled verify, poisoned shard included', async () => {
    const f = await fixture(dynalite(), { spillBytes: 'off' });
    const seq = await putMultiChunk(f);
    await poisonShard(f.table, SHARD, 'test: stalled', f.clock.now());
    const { batchMs } = lifetimesOf(f.table);
    f.clock.advance(batchMs / 2 + 60_000);
    await verifyShard(recoveryDepsOf(f), SHARD);
    const renewed = Math.ceil((f.clock.now() + batchMs) / 1000);
    const items = await itemsOf(f, seq);
    expect(items.length).toBeGreaterThan(1);
    expect(items.map(expiryOf)).toEqual(items.map(() => renewed));
  });
});

describe('putRows', () => {
  describe('on a shard whose oldest pending batch has lived half its TTL', () => {
    it('refuses, by the lifetime the pending items carry', async () => {
      const f = await fixture(dynalite());
      const { seq } = await putBatch(f.put, SHARD, [{ n: 1 }]);
      const [head] = await itemsOf(f, seq!);
      const written = f.clock.now();
      const lifetimeMs = expiryOf(head!) * 1000 - written;
      expect(lifetimeMs).toBeGreaterThanOrEqual(lifetimesOf(f.table).batchMs);
      f.clock.advance(Math.ceil(lifetimeMs / 2) + 1);
      const refused = await caught(() => putBatch(f.put, SHARD, [{ n: 2 }]));
      expect(refused).toBeInstanceOf(ShardStalledError);
      expect((await readShardRecord(f.table, SHARD))?.nextSeq).toBe(2);
    });
  });
});
