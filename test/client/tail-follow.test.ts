/**
 * `tailShard` following: rows put after it started, in order; `'end'`; a
 * start past the durable end that waits; the poll backoff and the absence
 * of a listing per poll; a hole in the WAL; and a slow follower racing
 * export and WAL retention over seeded random histories. Time is injected
 * (`sleep` runs the next scripted step, `now` adds up the sleeps), so every
 * run interleaves the same way.
 */
import { describe, expect, it } from 'vitest';
import { tailShard } from '../../lib/client/reader/index.js';
import type { TailNotice, TailRow } from '../../lib/client/reader/tail-options.js';
import { CorruptDataError, HistoryFloorError } from '../../lib/errors.js';
import { manifestPrefix } from '../../lib/manifest/format.js';
import { walKey, walPrefix } from '../../lib/paths.js';
import { seededRandom } from '../../lib/seeded-random.js';
import type { ObjectStore } from '../../lib/store/object-store.js';
import { fixture, useDynalite } from '../support/harness.js';
import { collect, keylessRows, noticeLog, RecordingStore, TailHistory } from './tail-support.js';

const dynalite = useDynalite();

async function shard(settings: Parameters<typeof fixture>[1] = {}): Promise<TailHistory> {
  return new TailHistory(await fixture(dynalite(), settings));
}

/**
 * Injected time: each sleep adds to the clock and runs the next step; once
 * the steps are done, the next sleep aborts the tail (it is waiting at the end).
 */
function script(steps: Array<() => Promise<unknown>>) {
  const controller = new AbortController();
  const sleeps: number[] = [];
  let now = 0;
  let next = 0;
  return {
    sleeps,
    options: {
      follow: true,
      signal: controller.signal,
      now: () => now,
      sleep: async (ms: number) => {
        sleeps.push(ms);
        now += ms;
        if (next < steps.length) await steps[next++]!();
        else controller.abort();
      },
    },
  };
}

describe('tailShard', () => {
  describe('following', () => {
    it('yields rows put after it started, in order, and ends cleanly when aborted', async () => {
      const h = await shard();
      await h.put(keylessRows(0, 2));
      await h.flush();
      const run = script([
        async () => {
          await h.put(keylessRows(2, 4));
          await h.flush();
        },
        async () => {}, // a tick with nothing to flush
        async () => {
          await h.put([{ id: 'a', v: 1 }], 'id');
          await h.put([{ id: 'a', $delete: true }], 'id');
          await h.put(keylessRows(4, 5));
          await h.flush();
        },
      ]);
      const rows = await collect(tailShard(h.f.memory, 's1', run.options));
      expect(rows).toEqual(h.rows);
      expect(rows.map((r) => r.offset)).toEqual([0, 1, 2, 3, 4, 5, 6]);
      // A hit resets the wait; consecutive misses double it.
      expect(run.sleeps).toEqual([1000, 1000, 2000, 1000]);
    });

    it("from 'end' yields only what commits after it started", async () => {
      const h = await shard();
      await h.put(keylessRows(0, 3));
      await h.flush();
      await h.export();
      await h.put(keylessRows(3, 5));
      await h.flush();
      const before = h.rows.length;
      const run = script([
        async () => {
          await h.put(keylessRows(5, 7));
          await h.flush();
        },
      ]);
      const rows = await collect(tailShard(h.f.memory, 's1', { ...run.options, fromSeq: 'end' }));
      expect(rows).toEqual(h.rows.slice(before));
    });

    it('waits at a fromSeq past the durable end and yields from it once it commits', async () => {
      const h = await shard();
      await h.put(keylessRows(0, 2));
      await h.flush();
      const steps = Array.from({ length: 4 }, (_, i) => async () => {
        await h.put(keylessRows(10 + i, 11 + i));
        await h.flush();
      });
      const run = script(steps);
      const rows = await collect(tailShard(h.f.memory, 's1', { ...run.options, fromSeq: 4 }));
      expect(rows).toEqual(h.rows.filter((r) => r.seq >= 4));
      expect(rows.map((r) => r.text)).toEqual(['{"n":12}', '{"n":13}']);
    });

    it('backs off to maxPollMs and lists at most once per recheckMs while nothing comes', async () => {
      const h = await shard();
      await h.put(keylessRows(0, 2));
      await h.flush();
      const store = new RecordingStore(h.f.memory);
      const run = script(Array.from({ length: 30 }, () => async () => {}));
      const rows = await collect(tailShard(store, 's1', run.options));
      expect(rows).toEqual(h.rows);
      expect(run.sleeps.slice(0, 6)).toEqual([1000, 2000, 4000, 8000, 8000, 8000]);
      expect(Math.max(...run.sleeps)).toBe(8000);
      const waitedMs = run.sleeps.reduce((a, b) => a + b, 0);
      // One GET per poll, of the next position's key; listing only on the recheck clock.
      expect(store.count('get', walKey('s1', 1))).toBe(run.sleeps.length);
      expect(store.count('list', walPrefix('s1'))).toBe(Math.floor(waitedMs / 60_000));
      expect(store.count('list', manifestPrefix('s1'))).toBe(1);
    });

    it('fails loudly on a hole in the WAL that no export covers, at once without follow', async () => {
      const h = await shard();
      for (let i = 0; i < 3; i++) {
        await h.put(keylessRows(i, i + 1));
        await h.flush();
      }
      await h.f.memory.delete(walKey('s1', 1));
      const message = `${walKey('s1', 1)}: missing: the WAL of shard s1 continues at position 2, and no export covers position 1`;
      const read: TailRow[] = [];
      const once = await (async () => {
        for await (const row of tailShard(h.f.memory, 's1')) read.push(row);
      })().catch((e) => e);
      expect(once).toBeInstanceOf(CorruptDataError);
      expect(once.message).toBe(message);
      expect(read).toEqual(h.rows.slice(0, 1));
      // Following, the hole looks like the end until the next recheck (a minute of waiting).
      const run = script(Array.from({ length: 20 }, () => async () => {}));
      const following = await collect(tailShard(h.f.memory, 's1', run.options)).catch((e) => e);
      expect(following).toBeInstanceOf(CorruptDataError);
      expect(following.message).toBe(message);
      expect(run.sleeps.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(60_000);
    });
  });

  describe('following while export and retention run', () => {
    /**
     * A seeded random history of puts (keyless, keyed, deletes), flushes and
     * exports (with retention: the WAL below the second newest export is
     * deleted), interleaved with the tail at every store request it makes:
     * a slow follower, whose next WAL position is often retired before it
     * gets there.
     */
    async function race(seed: number, historyRetentionMs = 0) {
      const h = await shard({
        walRetentionMs: 1,
        exportRetentionMs: 1,
        historyRetentionMs,
      });
      const random = seededRandom(seed);
      let budget = 120;
      const step = async () => {
        if (budget <= 0) return;
        budget--;
        const dice = random();
        if (dice < 0.35) {
          const n = 1 + Math.floor(random() * 3);
          await h.put(keylessRows(1000 * seed + budget * 10, 1000 * seed + budget * 10 + n));
        } else if (dice < 0.55) {
          const id = `k${Math.floor(random() * 4)}`;
          await h.put([random() < 0.25 ? { id, $delete: true } : { id, v: budget }], 'id');
        } else if (dice < 0.85) {
          await h.flush();
        } else if (h.rows.length > 0) {
          h.f.clock.advance(10);
          await h.export();
        }
      };
      const racing: ObjectStore = {
        putIfAbsent: (k, b) => h.f.memory.putIfAbsent(k, b),
        putStreamIfAbsent: (k, b) => h.f.memory.putStreamIfAbsent(k, b),
        delete: (k) => h.f.memory.delete(k),
        get: async (k) => {
          await step();
          return h.f.memory.get(k);
        },
        getStream: async (k) => {
          await step();
          return h.f.memory.getStream(k);
        },
        list: (prefix, options) => {
          const inner = h.f.memory.list(prefix, options);
          return (async function* () {
            await step();
            yield* inner;
          })();
        },
      };
      const log = noticeLog();
      const controller = new AbortController();
      let now = 0;
      let idleSleeps = 0;
      const rows: TailRow[] = [];
      const tail = tailShard(racing, 's1', {
        follow: true,
        signal: controller.signal,
        onNotice: log.onNotice,
        now: () => now,
        sleep: async (ms) => {
          now += ms;
          if (budget > 0) {
            for (let i = 0; i < 3; i++) await step();
            return;
          }
          // The history is done: flush the last puts; from now on every miss is checked
          // (a recheck per minute of waiting), so a second wait is at the true end.
          now += 60_000;
          await h.flush();
          if (++idleSleeps === 2) controller.abort();
        },
      });
      for await (const row of tail) {
        rows.push(row);
        // A slow consumer: the history moves on while it handles each row.
        await step();
        await step();
      }
      return { h, rows, notices: log.notices };
    }

    /** The rows a tail must yield: all, except keyed changes of positions read from segments. */
    function expected(h: TailHistory, notices: TailNotice[]): TailRow[] {
      const retired = notices.filter((n) => n.kind === 'retired');
      const fromSegments = (position: number) =>
        retired.some((n) => position >= n.position! && position < n.endPosition!);
      return h.rows.filter((r) => r.key === undefined || !fromSegments(h.positionOf(r.seq)));
    }

    it('yields every row once, in order, over seeded random histories', async () => {
      let retirements = 0;
      for (const seed of [1, 2, 3, 4, 5, 6]) {
        const { h, rows, notices } = await race(seed);
        expect(rows, `seed ${seed}`).toEqual(expected(h, notices));
        const offsets = rows.map((r) => r.offset);
        expect(offsets).toEqual([...offsets].sort((a, b) => a - b));
        expect(new Set(offsets).size).toBe(offsets.length);
        // Every keyless row is there, whatever was retired under the reader.
        expect(rows.filter((r) => r.key === undefined)).toEqual(
          h.rows.filter((r) => r.key === undefined),
        );
        retirements += notices.filter((n) => n.kind === 'retired').length;
      }
      // The race is real: positions were retired before the follower got to them.
      expect(retirements).toBeGreaterThanOrEqual(6);
    }, 90_000);

    it('fails with HistoryFloorError when history retention dropped rows the follower had not read', async () => {
      const error = await race(7, 5).catch((e) => e);
      expect(error).toBeInstanceOf(HistoryFloorError);
      expect(error.message).toMatch(/^shard s1: seq \d+ is below the history floor/);
    });
  });
});
