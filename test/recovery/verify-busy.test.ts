import { describe, expect, it } from 'vitest';
import { flushShard } from '../../lib/flush/flush-shard.js';
import { verifyShard } from '../../lib/recovery/verify.js';
import type { ListOptions, ObjectStore } from '../../lib/store/object-store.js';
import { fixture, useDynalite } from '../support/harness.js';
import { recoveryDepsOf, TestShard } from './support.js';

const dynalite = useDynalite();

/** A store whose first WAL listing waits for `beforeList` (commits landing mid-verify). */
function listingHook(inner: ObjectStore, beforeList: () => Promise<void>): ObjectStore {
  let fired = false;
  return {
    putIfAbsent: (key, body) => inner.putIfAbsent(key, body),
    putStreamIfAbsent: (key, body) => inner.putStreamIfAbsent(key, body),
    get: (key) => inner.get(key),
    getStream: (key) => inner.getStream(key),
    delete: (key) => inner.delete(key),
    async *list(prefix: string, options?: ListOptions) {
      if (!fired && prefix.includes('/wal/')) {
        fired = true;
        await beforeList();
      }
      yield* inner.list(prefix, options);
    },
  };
}

describe(verifyShard, () => {
  describe('on a busy shard', () => {
    it('reports no finding when flushes commit between its record read and its WAL listing', async () => {
      const f = await fixture(dynalite());
      const s = new TestShard(f, 'busy');
      await s.keyless([{ n: 1 }]);
      await s.flush();
      const store = listingHook(f.store, async () => {
        // Two more objects commit after verify read the record: S3 now looks "ahead".
        for (const n of [2, 3]) {
          await s.keyless([{ n }]);
          await flushShard(f.flushDeps('busy-flusher'), 'busy');
        }
      });
      const report = await verifyShard({ ...recoveryDepsOf(f), store }, 'busy', { heal: false });
      expect(report.findings).toEqual([]);
      expect(report).toMatchObject({ ok: true, record: { walNextPos: 3 } });
    });

    it('still reports a record that really is behind S3', async () => {
      const f = await fixture(dynalite());
      const s = new TestShard(f, 'behind');
      await s.keyless([{ n: 1 }]);
      await s.flush();
      const store = listingHook(f.store, async () => {
        // An object appears beyond walNextPos with no commit: the record does not move.
        await s.keyless([{ n: 2 }]);
        await flushShard(
          f.flushDeps('crasher', {
            faults: async (point) => {
              if (point === 'flush:after-wal-write') throw new Error('crash');
            },
          }),
          'behind',
        ).catch(() => undefined);
        await s.keyless([{ n: 3 }]);
        const object = await f.memory.get('shards/behind/wal/00000000000000000001');
        await f.memory.putIfAbsent('shards/behind/wal/00000000000000000002', object!);
      });
      const report = await verifyShard({ ...recoveryDepsOf(f), store }, 'behind', { heal: false });
      expect(report.ok).toBe(false);
      expect(report.findings.length).toBeGreaterThan(0);
    });
  });
});
