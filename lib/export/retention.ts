/**
 * Retention, run by export after it recorded the watermark W. With "valid"
 * meaning a manifest that decodes and checks (no part or segment read), and
 * legacy AOF exports counted by their header (unverified: reading one whole
 * costs O(history)):
 *
 * T1. The newest two valid exports at or below W are kept with everything
 *     they list, and so is every export above W (a racing one), every
 *     export younger than `exportRetentionMs`, and every export whose
 *     successor (the next valid export above it) is younger than A: an
 *     export within its deadline may still name it as its base (D4 in
 *     `deadline.ts`). Other valid manifests are
 *     retired: first their parts and segments that no kept manifest lists,
 *     then the manifest itself (a crash in between leaves a manifest the next
 *     run retires again). Legacy exports are retired the same way, but only
 *     once two valid manifests exist at or below W. A manifest that does not
 *     verify is left in place (verify reports it).
 * T2. WAL objects are deleted below min(covered position of the second newest
 *     valid export, covered position of the newest export older than
 *     `walRetentionMs`): recovery from either of the two newest exports
 *     finds every WAL object after it, and WAL objects stay for the retention
 *     period after an export covered them. So nothing at or above W, and
 *     never the newest objects. The listing starts at the `walRetiredBelow`
 *     cursor, not at position 0. Nor below a table's high-water for the
 *     shard (`deps.tableHold`): a table is a retention floor.
 * T3. Orphans (segments and parts no kept manifest lists, left by crashed or
 *     racing exports, or by retired manifests whose deletions a crash cut
 *     short) are deleted once they lie below O, the covered position of the
 *     newest valid manifest older than `exportRetentionMs` (or than twice
 *     the export deadline plus the clock skew, when that is longer): an
 *     export still in flight with a range below O would have started before
 *     O's manifest existed, that long ago, so past its deadline, and writes
 *     no manifest (D1-D3 in `deadline.ts`: one that stalled past it between
 *     check and write deletes its manifest again when an object it names is
 *     gone). Segments are listed from
 *     the `orphansSweptBelow` cursor; parts (few: those of kept manifests)
 *     are listed whole.
 * T4. Segments leave manifests only by history retention (`fold-export.ts`:
 *     the manifest's `historyFloor` says where kept history starts); T1
 *     deletes them once no kept manifest lists them.
 * T5. A retired WAL slot may be re-created by a zombie flusher's late write;
 *     no reader reads below the export it starts from, so it is never read
 *     (and a later run past the cursor does not see it: it stays as garbage
 *     the bucket's lifecycle does not remove; docs/recovery.md).
 * T6. Once T1's deletions are done, the `historyKeptFrom` cursor moves to the
 *     lowest `historyFloor` of the kept manifests (not at all while a
 *     manifest does not verify or a legacy export is kept). No manifest in
 *     S3 lists a segment below it, and none written later will: an export's
 *     floor is at least its base's, its new segments start at its base's
 *     covered position, and the base of an export in flight is kept (D4).
 *     The tables read it as the point below which their keyless rows are
 *     no longer history (`lib/table/retain.ts`).
 */
import { peekAofHeader } from '../aof/reader.js';
import { CorruptDataError } from '../errors.js';
import type { Manifest } from '../manifest/format.js';
import { positionOfKey, walKey, walPrefix } from '../paths.js';
import {
  ExportKind,
  type ExportRef,
  listExports,
  loadManifest,
} from '../recovery/export-source.js';
import { firstOfSegmentKey, segmentKey, segmentPrefix, storedSegments } from '../segment/format.js';
import { rangeOfPartKey, snapshotPartKey, snapshotPrefix } from '../snapshot/format.js';
import { orphanAgeMs } from './deadline.js';
import type { ExportDeps } from './deps.js';
import { ExportFaultPoint } from './deps.js';
import {
  advanceRetentionCursor,
  RetentionCursor,
  readRetentionCursors,
} from './retention-cursor.js';

/** What a retention pass did. */
export interface RetentionReport {
  /** Covered positions of the exports kept (T1). */
  kept: number[];
  /** Covered positions of the exports retired (T1). */
  retired: number[];
  /** Keys of manifests that did not verify, left in place. */
  invalid: string[];
  /** Parts and segments deleted with retired manifests (T1). */
  deletedParts: number;
  deletedSegments: number;
  /** Orphans deleted (T3) and the bound they were swept below. */
  orphans: { parts: number; segments: number; sweptBelow: number };
  /** WAL objects deleted (T2). */
  wal: {
    retiredBelow: number;
    deleted: number;
    fromPosition: number | null;
    toPosition: number | null;
  };
  /** Why nothing (more) was retired, when that is the case. */
  note: string | null;
}

/** An export as retention weighs it. */
interface Weighed {
  ref: ExportRef;
  createdAtMs: number;
  manifest: Manifest | undefined;
}

/** Input of `retire`. */
export interface RetentionInput {
  shard: string;
  /** The watermark just recorded. */
  watermark: number;
}

/** Applies T1-T3 to `shard`. */
export async function retire(deps: ExportDeps, input: RetentionInput): Promise<RetentionReport> {
  const { shard, watermark } = input;
  const nowMs = deps.now();
  const exportCutoff = nowMs - (deps.exportRetentionMs ?? deps.walRetentionMs);
  const report: RetentionReport = {
    kept: [],
    retired: [],
    invalid: [],
    deletedParts: 0,
    deletedSegments: 0,
    orphans: { parts: 0, segments: 0, sweptBelow: 0 },
    wal: { retiredBelow: 0, deleted: 0, fromPosition: null, toPosition: null },
    note: null,
  };
  const weighed = await weigh(deps, shard, report);
  const atOrBelow = weighed.filter((e) => e.ref.coveredPosition <= watermark);
  const validManifests = atOrBelow.filter((e) => e.manifest);
  const newestTwo = new Set(atOrBelow.slice(-2));
  // D4 (`deadline.ts`): a base an export within its deadline may still name stays until the
  // export after it (the next a fold would try first) is older than A.
  const orphanCutoff = nowMs - orphanAgeMs(deps);
  const successor = new Map(weighed.map((e, i) => [e, weighed[i + 1]]));
  const mayBeBase = (e: Weighed) => {
    const next = successor.get(e);
    return next === undefined || next.createdAtMs > orphanCutoff;
  };
  const keep = (e: Weighed) =>
    newestTwo.has(e) ||
    e.ref.coveredPosition > watermark ||
    e.createdAtMs > exportCutoff ||
    mayBeBase(e) ||
    (e.ref.kind === ExportKind.aof && validManifests.length < 2);
  const kept = weighed.filter(keep);
  const retiring = weighed.filter((e) => !keep(e));
  report.kept = kept.map((e) => e.ref.coveredPosition);

  // T1.
  const referenced = new Set<string>();
  for (const e of kept) for (const key of listedKeys(shard, e.manifest)) referenced.add(key);
  for (const e of retiring) {
    for (const key of listedKeys(shard, e.manifest)) {
      if (referenced.has(key)) continue;
      await deps.store.delete(key);
      if (firstOfSegmentKey(key) === undefined) report.deletedParts += 1;
      else report.deletedSegments += 1;
    }
    await deps.faults?.(ExportFaultPoint.retentionAfterObjects, shard);
    await deps.store.delete(e.ref.key);
    report.retired.push(e.ref.coveredPosition);
    await deps.faults?.(ExportFaultPoint.retentionAfterManifest, shard);
  }

  // T6.
  const cursors = await readRetentionCursors(deps.table, shard);
  const keptFrom = historyKeptFrom(kept, report.invalid.length > 0);
  if (keptFrom > cursors.historyKeptFrom) {
    await advanceRetentionCursor(deps.table, shard, RetentionCursor.history, keptFrom);
  }

  // T3.
  const old = validManifests.filter((e) => e.createdAtMs <= orphanCutoff).at(-1);
  const sweepBelow = old?.ref.coveredPosition ?? 0;
  if (sweepBelow > cursors.orphansSweptBelow) {
    const startAfter =
      cursors.orphansSweptBelow > 0 ? segmentKey(shard, cursors.orphansSweptBelow - 1) : undefined;
    for await (const key of deps.store.list(segmentPrefix(shard), { startAfter })) {
      const first = firstOfSegmentKey(key);
      if (first === undefined) continue;
      if (first >= sweepBelow) break;
      if (referenced.has(key)) continue;
      await deps.store.delete(key);
      report.orphans.segments += 1;
    }
    for await (const key of deps.store.list(snapshotPrefix(shard))) {
      const range = rangeOfPartKey(key);
      if (!range || range.to > sweepBelow || referenced.has(key)) continue;
      await deps.store.delete(key);
      report.orphans.parts += 1;
    }
    await deps.faults?.(ExportFaultPoint.retentionAfterSweep, shard);
    await advanceRetentionCursor(deps.table, shard, RetentionCursor.orphans, sweepBelow);
  }
  report.orphans.sweptBelow = Math.max(sweepBelow, cursors.orphansSweptBelow);

  // T2.
  const remaining = atOrBelow.filter(keep);
  const fallbackFloor = remaining.length >= 2 ? remaining.at(-2)!.ref.coveredPosition : 0;
  const walCutoff = nowMs - deps.walRetentionMs;
  // Retired exports count too: an export that covered a position long ago proves its age.
  const agedFloor =
    atOrBelow.filter((e) => e.createdAtMs <= walCutoff).at(-1)?.ref.coveredPosition ?? 0;
  // Tables are a floor too: a position a table has not committed stays (`lib/table/floor.ts`).
  const tableFloor = (await deps.tableHold?.(shard))?.highWater ?? Number.POSITIVE_INFINITY;
  const retiredBelow = Math.min(fallbackFloor, agedFloor, tableFloor);
  if (tableFloor < Math.min(fallbackFloor, agedFloor)) {
    report.note = `the table holds WAL positions from ${tableFloor} (not yet committed to it)`;
  }
  report.wal.retiredBelow = Math.max(retiredBelow, cursors.walRetiredBelow);
  if (retiredBelow > cursors.walRetiredBelow) {
    const from = cursors.walRetiredBelow;
    const startAfter = from > 0 ? walKey(shard, from - 1) : undefined;
    for await (const key of deps.store.list(walPrefix(shard), { startAfter })) {
      const position = positionOfKey(key);
      if (position === undefined) continue;
      if (position >= retiredBelow) break;
      await deps.store.delete(key);
      report.wal.deleted += 1;
      report.wal.fromPosition ??= position;
      report.wal.toPosition = position;
    }
    await deps.faults?.(ExportFaultPoint.retentionAfterWal, shard);
    await advanceRetentionCursor(deps.table, shard, RetentionCursor.wal, retiredBelow);
  } else if (retiredBelow === 0 && tableFloor !== 0) {
    report.note =
      fallbackFloor === 0
        ? 'fewer than two exports: the WAL is kept whole for a fallback'
        : `no export is older than the WAL retention of ${deps.walRetentionMs} ms`;
  }
  return report;
}

/** Every export of the shard with its age; manifests decoded (invalid ones noted and left out). */
async function weigh(deps: ExportDeps, shard: string, report: RetentionReport): Promise<Weighed[]> {
  const out: Weighed[] = [];
  for (const ref of await listExports(deps.store, shard)) {
    if (ref.kind === ExportKind.manifest) {
      const manifest = await loadManifest(deps.store, ref).catch((error: unknown) => {
        if (!(error instanceof CorruptDataError)) throw error;
        return undefined;
      });
      if (!manifest) {
        report.invalid.push(ref.key);
        continue;
      }
      out.push({ ref, createdAtMs: manifest.header.createdAtMs, manifest });
      continue;
    }
    const stream = await deps.store.getStream(ref.key);
    if (!stream) continue;
    // Unverified: only its age is read, and T1 keeps legacy exports until two manifests verify.
    const header = await peekAofHeader(ref.key, stream).catch(() => undefined);
    if (header) out.push({ ref, createdAtMs: header.createdAtMs, manifest: undefined });
  }
  return out;
}

/** T6: the lowest history floor of the kept exports; 0 while one cannot be read (invalid, or legacy). */
function historyKeptFrom(kept: readonly Weighed[], anyInvalid: boolean): number {
  if (anyInvalid || kept.length === 0) return 0;
  let floor = Number.POSITIVE_INFINITY;
  for (const e of kept) floor = Math.min(floor, e.manifest?.header.historyFloor ?? 0);
  return floor;
}

/** Keys of the parts and segments a manifest lists (a table segment names no object of its own). */
function listedKeys(shard: string, manifest: Manifest | undefined): string[] {
  if (!manifest) return [];
  return [
    ...manifest.parts.map((part) => snapshotPartKey(shard, part)),
    ...storedSegments(manifest.segments).map((segment) => segmentKey(shard, segment.first)),
  ];
}
