/**
 * A crash at every step of export and retention leaves a recoverable store:
 * rebuild replays the shard's rows, the next export completes on top of what
 * the crashed one left (adopting or retiring it), and verify finds nothing.
 */
import { describe, expect, it } from 'vitest';
import { ExportFaultPoint } from '../../lib/export/deps.js';
import { exportShard } from '../../lib/export/export-shard.js';
import { SimulatedCrash } from '../../lib/flush/fault-points.js';
import { rebuildShard } from '../../lib/recovery/rebuild.js';
import { replayShard } from '../../lib/recovery/replay.js';
import { verifyShard } from '../../lib/recovery/verify.js';
import type { ObjectStore } from '../../lib/store/object-store.js';
import { exportDepsOf, recoveryDepsOf, snapshotOf, TestShard } from '../recovery/support.js';
import { fixture, useDynalite } from '../support/harness.js';
import { caught } from '../wal/helpers.js';
import { keysOf, manifestState } from './helpers.js';

const dynalite = useDynalite();
const RETENTION_MS = 10_000;

/** A shard with three exports behind it, each older than the retention, and new WAL after the last. */
async function history() {
  const f = await fixture(dynalite(), {
    walRetentionMs: RETENTION_MS,
    exportRetentionMs: RETENTION_MS,
  });
  const s = new TestShard(f);
  for (let round = 0; round < 3; round++) {
    await s.keyed([
      { id: `k${round % 2}`, v: round },
      { id: `k${round + 2}`, v: round },
    ]);
    await s.flush();
    await s.keyless([{ round }, { round, more: true }]);
    await s.flush();
    await exportShard(exportDepsOf(f, { spillBytes: 64 }), 's1');
    f.clock.advance(RETENTION_MS + 1);
  }
  await s.keyed([
    { id: 'k0', $delete: true },
    { id: 'k9', v: 9 },
  ]);
  await s.keyless([{ round: 3 }]);
  await s.flush();
  return { f, s };
}

/** Rebuild, replay, the next export and verify all agree with the model. */
async function expectRecoverable(f: Awaited<ReturnType<typeof history>>['f'], s: TestShard) {
  const live = s.model.snapshot();
  const rebuild = await rebuildShard(recoveryDepsOf(f), 's1');
  expect(rebuild.status).toBe('rebuilt');
  const replay = await replayShard(f.store, 's1', { keepRows: true, keepKeyless: true });
  expect(replay.walk.stop).toEqual({ reason: 'end' });
  expect(snapshotOf(replay.state)).toStrictEqual(live);
  const next = await exportShard(exportDepsOf(f, { spillBytes: 64 }), 's1');
  expect(['exported', 'adopted', 'up-to-date']).toContain(next.status);
  const newest = keysOf(f.memory).manifests.at(-1)!;
  expect(await manifestState(f.memory, newest)).toStrictEqual(live);
  expect((await verifyShard(recoveryDepsOf(f), 's1')).findings).toEqual([]);
}

describe('export crash safety', () => {
  for (const point of Object.values(ExportFaultPoint)) {
    it(`leaves a recoverable store when it crashes at ${point}`, async () => {
      const { f, s } = await history();
      let fired = false;
      const crashing = exportDepsOf(f, {
        spillBytes: 64,
        faults: (at) => {
          if (at === point && !fired) {
            fired = true;
            throw new SimulatedCrash(at as never);
          }
        },
      });
      const outcome = await caught(() => exportShard(crashing, 's1'));
      // Retention points fire only when there is something to retire: this history has some.
      expect(outcome, `the crash at ${point} fired`).toBeInstanceOf(SimulatedCrash);
      await expectRecoverable(f, s);
    });
  }

  it('leaves a recoverable store when a segment upload dies mid-stream', async () => {
    const { f, s } = await history();
    const deps = exportDepsOf(f, { spillBytes: 64 });
    const inner = deps.store;
    const failing: ObjectStore = {
      putIfAbsent: (k, b) => inner.putIfAbsent(k, b),
      get: (k) => inner.get(k),
      getStream: (k) => inner.getStream(k),
      list: (p, o) => inner.list(p, o),
      delete: (k) => inner.delete(k),
      putStreamIfAbsent: async (key, body) => {
        if (!key.includes('/seg/')) return inner.putStreamIfAbsent(key, body);
        for await (const _ of body) throw new Error('connection reset mid-upload');
        return 'created';
      },
    };
    const error = await caught(() => exportShard({ ...deps, store: failing }, 's1'));
    expect((error as Error).message).toContain('connection reset');
    expect(keysOf(f.memory).manifests).toEqual([4, 6]);
    await expectRecoverable(f, s);
  });
});
