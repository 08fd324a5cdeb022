/**
 * A rebuild that stops after its fence (step 4 of `lib/recovery/rebuild.ts`:
 * the catch-up met an object it cannot trust) rolls back: it resets nothing,
 * lifts its fence and leaves the shard's poison as it found it, so a shard an
 * operator or a divergence had closed stays closed, and an open one opens.
 */
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { PoisonedError } from '../../lib/errors.js';
import { poisonShard } from '../../lib/fence/commit.js';
import { readShardRecord } from '../../lib/memtable/shard-record.js';
import { walKey, walPrefix } from '../../lib/paths.js';
import { rebuildShard } from '../../lib/recovery/rebuild.js';
import type { ObjectStore } from '../../lib/store/object-store.js';
import { type Fixture, fixture, useDynalite } from '../support/harness.js';
import { putBatch } from '../support/wal-chain.js';
import { caught } from '../wal/helpers.js';
import { recoveryDepsOf, TestShard } from './support.js';

const dynalite = useDynalite();

/**
 * `f`'s store, where the WAL object at `position` is missing when the replay
 * reads it and a damaged one is there by the catch-up (a writer racing the fence).
 */
function racingStore(f: Fixture, position: number): ObjectStore {
  const key = walKey('s1', position);
  const damaged = new Uint8Array([31, 139, 8, 0, 1, 2, 3]);
  let listings = 0;
  const inner = f.store;
  return {
    putIfAbsent: (k, b) => inner.putIfAbsent(k, b),
    putStreamIfAbsent: (k, b) => inner.putStreamIfAbsent(k, b),
    get: async (k) => (k === key ? damaged : inner.get(k)),
    getStream: async (k) =>
      k === key ? Readable.from([Buffer.from(damaged)]) : inner.getStream(k),
    delete: (k) => inner.delete(k),
    async *list(prefix, options) {
      const first = prefix === walPrefix('s1') && listings++ === 0;
      for await (const k of inner.list(prefix, options)) if (!(first && k === key)) yield k;
      if (!first && prefix === walPrefix('s1') && (options?.startAfter ?? '') < key) yield key;
    },
  };
}

async function rolledBack(poison: string | undefined) {
  const f = await fixture(dynalite());
  const s = new TestShard(f);
  await s.keyless([{ n: 1 }]);
  await s.flush();
  if (poison) await poisonShard(f.table, 's1', poison, f.clock.now());
  const before = await readShardRecord(f.table, 's1');
  const report = await rebuildShard({ ...recoveryDepsOf(f), store: racingStore(f, 1) }, 's1');
  const after = await readShardRecord(f.table, 's1');
  return { f, report, before: before!, after: after! };
}

describe('rebuildShard', () => {
  describe('when its catch-up stops after the fence', () => {
    it('leaves a poisoned shard poisoned with the same reason, cursors untouched', async () => {
      const { f, report, before, after } = await rolledBack('operator: hold for inspection');
      expect(report.status).toBe('stopped');
      expect(after.poison).toBe('operator: hold for inspection');
      expect(after).toMatchObject({
        durableSeq: before.durableSeq,
        walNextPos: before.walNextPos,
        generation: before.generation,
      });
      expect(after.leaseOwner).toBeUndefined();
      expect(await caught(() => putBatch(f.put, 's1', [{ n: 2 }]))).toBeInstanceOf(PoisonedError);
    });

    it('opens a shard that was open before it', async () => {
      const { f, report, after } = await rolledBack(undefined);
      expect(report.status).toBe('stopped');
      expect(after.poison).toBeUndefined();
      expect((await putBatch(f.put, 's1', [{ n: 2 }])).seq).toBe(2);
    });
  });
});
