/**
 * Equivalence across export generations: a store written by the previous
 * version (a legacy AOF export, then WAL) and then exported by this one
 * (manifests built on the legacy export, converted once) gives the same
 * state whichever source a reader starts from — the legacy export, the
 * newest manifest, or the whole WAL — through replay (what rebuild and the
 * simulation read) and through `shardwal dump`'s own readers. Seeded random
 * histories, on the memory store.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dumpLine } from '../../lib/cli/dump-line.js';
import { readDurableRows } from '../../lib/cli/durable-rows.js';
import { findDumpExport, writeExportLines } from '../../lib/cli/export-rows.js';
import { exportShard } from '../../lib/export/export-shard.js';
import { readShardRecord } from '../../lib/memtable/shard-record.js';
import { rebuildShard } from '../../lib/recovery/rebuild.js';
import { replayShard } from '../../lib/recovery/replay.js';
import { readRowLine } from '../../lib/rows/row-line.js';
import type { ObjectStore } from '../../lib/store/object-store.js';
import { type Fixture, fixture, useDynalite } from '../support/harness.js';
import { writeLegacyExport } from '../support/legacy-aof.js';
import {
  exportDepsOf,
  type ModelRow,
  recoveryDepsOf,
  type Snapshot,
  snapshotOf,
  TestShard,
} from './support.js';

const dynalite = useDynalite();

/** The state `shardwal dump` describes, folded from its lines (export rows, then the WAL tail). */
async function dumpedState(store: ObjectStore, f: Fixture, shard: string): Promise<Snapshot> {
  const record = (await readShardRecord(f.table, shard))!;
  const lines: string[] = [];
  const used = await findDumpExport(store, shard, {
    maxPosition: record.walNextPos,
    onFallback: async () => {},
  });
  if (used) await writeExportLines(store, shard, used, async (line) => void lines.push(line));
  const rows = readDurableRows(store, shard, {
    fromPos: used?.coveredPosition ?? 0,
    endPos: record.walNextPos,
    after: used,
  });
  for await (const row of rows) lines.push(dumpLine(row));
  const keyed = new Map<string, ModelRow>();
  const keyless: ModelRow[] = [];
  for (const line of lines) {
    const parsed = readRowLine(line)!;
    const { seq, offset, key, delete: isDelete } = parsed.fields as Record<string, unknown>;
    const keyText =
      key === undefined ? undefined : typeof key === 'string' ? JSON.stringify(key) : String(key);
    const row = { seq: seq as number, offset: offset as number, text: parsed.rowText! };
    if (keyText === undefined) keyless.push(row);
    else if (isDelete) keyed.delete(keyText);
    else keyed.set(keyText, row);
  }
  return {
    keyed: [...keyed].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
    keyless,
  };
}

type Step =
  | { kind: 'keyed'; key: number; del: boolean }
  | { kind: 'keyless' }
  | { kind: 'flush' }
  | { kind: 'export' };
const stepArb: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('keyed' as const),
      key: fc.nat(5),
      del: fc.boolean(),
    }),
  },
  { weight: 3, arbitrary: fc.constant({ kind: 'keyless' as const }) },
  { weight: 3, arbitrary: fc.constant({ kind: 'flush' as const }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'export' as const }) },
);

describe('equivalence across export generations', () => {
  it('legacy export, newest manifest and whole WAL give the same state, through replay and dump', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(stepArb, { minLength: 2, maxLength: 14 }),
        fc.array(stepArb, { minLength: 1, maxLength: 14 }),
        async (before, after) => {
          const f = await fixture(dynalite(), { maxWalObjectBytes: 80 });
          const s = new TestShard(f);
          let n = 0;
          const run = async (steps: Step[], exports: boolean) => {
            for (const step of steps) {
              if (step.kind === 'keyed') {
                await s.keyed([
                  step.del ? { id: `k${step.key}`, $delete: true } : { id: `k${step.key}`, v: n++ },
                ]);
              } else if (step.kind === 'keyless') {
                await s.keyless([{ n: n++, exact: '1.10' }]);
              } else if (step.kind === 'flush') {
                await s.flush();
              } else if (exports) {
                await s.flush();
                await exportShard(exportDepsOf(f), 's1');
              }
            }
          };
          await s.keyless([{ first: true }]);
          await run(before, false);
          await s.flush();
          const legacyAt = await writeLegacyExport(f, 's1');
          await run(after, true);
          await s.keyless([{ last: true }]); // the WAL moves past the legacy export: a manifest follows
          await s.flush();
          await exportShard(exportDepsOf(f), 's1');
          const live = s.model.snapshot();
          const from = async (
            filter?: (kind: string, position: number) => boolean,
            useExport = true,
          ) => {
            const replay = await replayShard(f.store, 's1', {
              useExport,
              keepRows: true,
              keepKeyless: true,
              exportFilter: filter && ((ref) => filter(ref.kind, ref.coveredPosition)),
            });
            expect(replay.walk.stop).toEqual({ reason: 'end' });
            return replay;
          };
          const legacy = await from((kind) => kind === 'aof');
          expect(legacy.export).toMatchObject({ kind: 'aof', coveredPosition: legacyAt });
          const manifest = await from();
          expect(manifest.export?.kind).toBe('manifest');
          const whole = await from(undefined, false);
          expect(snapshotOf(legacy.state)).toStrictEqual(live);
          expect(snapshotOf(manifest.state)).toStrictEqual(live);
          expect(snapshotOf(whole.state)).toStrictEqual(live);
          expect(await dumpedState(f.store, f, 's1')).toStrictEqual(live);
          const rebuild = await rebuildShard(recoveryDepsOf(f), 's1');
          expect(rebuild).toMatchObject({ status: 'rebuilt', export: { kind: 'manifest' } });
        },
      ),
      { seed: 7_070_707, numRuns: 12 },
    );
  });
});
