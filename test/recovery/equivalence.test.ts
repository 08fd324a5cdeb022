/**
 * Equivalence: for randomized keyed and keyless workloads with deletes, run
 * through the real put and flush paths with exports at random points, the
 * state rebuilt from the newest export plus its WAL tail equals the state
 * replayed from the whole WAL from position 0, and both equal the live
 * shard's rows (the fold of every acked put). Seeded, on the memory store and
 * on the filesystem store.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { exportShard } from '../../lib/export/export-shard.js';
import { rebuildShard } from '../../lib/recovery/rebuild.js';
import { replayShard } from '../../lib/recovery/replay.js';
import { verifyShard } from '../../lib/recovery/verify.js';
import { FsObjectStore } from '../../lib/store/fs-store.js';
import type { ObjectStore } from '../../lib/store/object-store.js';
import { fixture, useDynalite } from '../support/harness.js';
import { exportDepsOf, recoveryDepsOf, snapshotOf, TestShard } from './support.js';

const dynalite = useDynalite();
const SEED = 4_242_001;

type Command =
  | { kind: 'keyed'; rows: Array<{ key: number; value: number; del: boolean }> }
  | { kind: 'keyless'; rows: number[] }
  | { kind: 'flush' }
  | { kind: 'export' };

const commandArb: fc.Arbitrary<Command> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('keyed' as const),
      rows: fc.array(fc.record({ key: fc.nat(7), value: fc.nat(1000), del: fc.boolean() }), {
        minLength: 1,
        maxLength: 3,
      }),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('keyless' as const),
      rows: fc.array(fc.nat(1000), { minLength: 1, maxLength: 3 }),
    }),
  },
  { weight: 3, arbitrary: fc.constant({ kind: 'flush' as const }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'export' as const }) },
);

/** A history, then a flush and an export, then a tail that may be empty. */
const workloadArb = fc
  .tuple(
    fc.array(commandArb, { minLength: 1, maxLength: 30 }),
    fc.array(commandArb, { maxLength: 12 }),
  )
  .map(([history, tail]): Command[] => [
    ...history,
    { kind: 'flush' },
    { kind: 'export' },
    ...tail,
  ]);

const tempDirs: string[] = [];
afterAll(async () => {
  for (const dir of tempDirs) await rm(dir, { recursive: true, force: true });
});

const stores: Array<{ name: string; runs: number; make: () => Promise<ObjectStore | undefined> }> =
  [
    { name: 'the memory store', runs: 14, make: async () => undefined },
    {
      name: 'the filesystem store',
      runs: 5,
      make: async () => {
        const dir = await mkdtemp(path.join(tmpdir(), 'shardwal-equivalence-'));
        tempDirs.push(dir);
        return new FsObjectStore(dir);
      },
    },
  ];

describe('replay equivalence', () => {
  for (const { name, runs, make } of stores) {
    it(`export + tail = whole WAL = live rows, on ${name}`, async () => {
      await fc.assert(
        fc.asyncProperty(workloadArb, async (commands) => {
          // Small WAL objects: a flush writes several, so exports land mid-history.
          const f = await fixture(dynalite(), { maxWalObjectBytes: 60 }, await make());
          const s = new TestShard(f);
          let exports = 0;
          let puts = 0;
          for (const command of commands) {
            if (command.kind === 'keyed' || command.kind === 'keyless') puts += 1;
            if (command.kind === 'keyed') {
              await s.keyed(
                command.rows.map((r) =>
                  r.del ? { id: `k${r.key}`, $delete: true } : { id: `k${r.key}`, v: r.value },
                ),
              );
            } else if (command.kind === 'keyless') {
              await s.keyless(command.rows.map((n) => ({ n })));
            } else if (command.kind === 'flush') {
              await s.flush();
            } else if (puts > 0) {
              const report = await exportShard(exportDepsOf(f), 's1');
              expect(['exported', 'up-to-date']).toContain(report.status);
              if (report.status === 'exported') exports += 1;
            }
          }
          if (puts === 0) return;
          await s.flush();
          const live = s.model.snapshot();
          const fromExport = await replayShard(f.store, 's1', {
            keepRows: true,
            keepKeyless: true,
          });
          const fromZero = await replayShard(f.store, 's1', {
            useExport: false,
            keepRows: true,
            keepKeyless: true,
          });
          expect(fromExport.walk.stop).toEqual({ reason: 'end' });
          expect(fromZero.walk.stop).toEqual({ reason: 'end' });
          expect(fromExport.export !== undefined).toBe(exports > 0);
          expect(snapshotOf(fromExport.state)).toStrictEqual(live);
          expect(snapshotOf(fromZero.state)).toStrictEqual(live);
          expect((await verifyShard(recoveryDepsOf(f), 's1')).findings).toEqual([]);
          // A rebuild of a healthy shard proves exactly the cursors it had.
          const rebuild = await rebuildShard(recoveryDepsOf(f), 's1');
          expect(rebuild.status).toBe('rebuilt');
          const { before, after } = rebuild.cursors;
          for (const field of ['durableSeq', 'walNextPos', 'nextRowOffset', 'nextSeq'] as const) {
            expect(after?.[field]).toBe(before?.[field]);
          }
        }),
        { seed: SEED, numRuns: runs },
      );
    });
  }
});
