import { mkdtemp, rm, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UnprocessedItemsError } from '../../lib/errors.js';
import { itemLifetimes } from '../../lib/liveness.js';
import { sweepExpiredItems, sweepExpiredSpills } from '../../lib/local/ttl-sweep.js';
import { readBatchHead } from '../../lib/memtable/batch-heads.js';
import { SPILL_LIFECYCLE_DAYS } from '../../lib/memtable/spill.js';
import { spillKey, walKey } from '../../lib/paths.js';
import { FsObjectStore } from '../../lib/store/fs-store.js';
import { fixture, useDynalite } from '../support/harness.js';
import { isBatchWriteItem, scriptedTable } from '../support/scripted-table.js';
import { drain, putBatch } from '../support/wal-chain.js';

const dynalite = useDynalite();
const SHARD = 'ttl';

describe('sweepExpiredItems', () => {
  it('deletes batch items once their TTL passed, and nothing earlier', async () => {
    const f = await fixture(dynalite());
    await putBatch(f.put, SHARD, [{ n: 1 }]);
    await drain(f.flushDeps('ticker'), SHARD);
    const { batchMs } = itemLifetimes(f.config);
    expect(await sweepExpiredItems(f.table, f.clock.now() + batchMs - 2_000)).toBe(0);
    expect(await readBatchHead(f.table, SHARD, 1)).toBeDefined();
    expect(await sweepExpiredItems(f.table, f.clock.now() + batchMs + 2_000)).toBe(1);
    expect(await readBatchHead(f.table, SHARD, 1)).toBeUndefined();
  });

  it('raises UnprocessedItemsError when DynamoDB keeps leaving the expired items in place', async () => {
    const f = await fixture(dynalite());
    await putBatch(f.put, SHARD, [{ n: 1 }]);
    await drain(f.flushDeps('ticker'), SHARD);
    const scripted = scriptedTable(f.table);
    scripted.add({ match: isBatchWriteItem, effect: 'unprocessed', times: 5 });
    const afterTtlMs = f.clock.now() + itemLifetimes(f.config).batchMs + 2_000;
    await expect(sweepExpiredItems(scripted.table, afterTtlMs)).rejects.toBeInstanceOf(
      UnprocessedItemsError,
    );
    expect(await readBatchHead(f.table, SHARD, 1)).toBeDefined();
  });
});

describe('sweepExpiredSpills', () => {
  it('removes spilled payloads older than the lifecycle rule, and nothing else', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'spill-sweep-'));
    try {
      const store = new FsObjectStore(dir);
      const old = spillKey('s', 1, 'put-a');
      const young = spillKey('s', 2, 'put-b');
      const wal = walKey('s', 0);
      for (const key of [old, young, wal]) await store.putIfAbsent(key, new Uint8Array([1]));
      const nowMs = Date.now();
      const lifecycleMs = SPILL_LIFECYCLE_DAYS * 86_400_000;
      const aged = new Date(nowMs - lifecycleMs - 60_000);
      await utimes(join(dir, ...old.split('/')), aged, aged);
      await utimes(join(dir, ...wal.split('/')), aged, aged);
      expect(await sweepExpiredSpills(dir, nowMs)).toBe(1);
      expect(await store.get(old)).toBeUndefined();
      expect(await store.get(young)).toBeDefined();
      expect(await store.get(wal)).toBeDefined();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('finds nothing to do in a store that never spilled', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'spill-sweep-'));
    try {
      expect(await sweepExpiredSpills(dir, Date.now())).toBe(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
