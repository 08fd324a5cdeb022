/**
 * Retirement of WAL objects an export covers.
 *
 * Invariants:
 * T1. Nothing at or above the previous export's covered position B (the base
 *     the watermark's export W was folded from) is retired, so nothing at or
 *     above the watermark, and never the newest objects. Keeping [B, W) is what
 *     lets a reader fall back from W to B when W does not verify, reading only
 *     slots that were never retired.
 * T2. A position is retired only once an export covering it is older than
 *     `walRetentionMs` (its `createdAtMs`): WAL objects stay around for the
 *     retention period after they were exported.
 * T3. A retired slot may be re-created by a zombie flusher's late write; no
 *     reader ever reads below the export it starts from, so such an object is
 *     never read (and a later retirement removes it again).
 */

import { peekAofHeader } from '../aof/reader.js';
import { InternalError } from '../errors.js';
import { positionOfKey, walPrefix } from '../paths.js';
import { listExports } from '../recovery/export-source.js';
import type { ExportDeps } from './deps.js';

/** What a retention pass did. */
export interface RetentionReport {
  /** Nothing at or above this position may be retired (T1). */
  floor: number;
  /** Positions below this were eligible (T2); 0 when none. */
  retiredBelow: number;
  deleted: number;
  fromPosition: number | null;
  toPosition: number | null;
  /** Why nothing (more) was retired, when that is the case. */
  note: string | null;
}

/** Input of `retireCoveredWal`. */
export interface RetentionInput {
  shard: string;
  /** The watermark just recorded. */
  watermark: number;
  /** `previousExport` of the export at the watermark. */
  previousExport: number | null;
}

/** Deletes the WAL objects of `shard` that T1 and T2 allow. */
export async function retireCoveredWal(
  deps: ExportDeps,
  input: RetentionInput,
): Promise<RetentionReport> {
  const { shard, watermark } = input;
  const floor = input.previousExport ?? 0;
  const report: RetentionReport = {
    floor,
    retiredBelow: 0,
    deleted: 0,
    fromPosition: null,
    toPosition: null,
    note: null,
  };
  if (floor === 0) {
    report.note = 'the watermark export was folded from position 0; nothing is covered twice yet';
    return report;
  }
  if (floor >= watermark)
    throw new InternalError(
      `${shard}: retention floor ${floor} is not below the watermark ${watermark}`,
    );
  const cutoffMs = deps.now() - deps.walRetentionMs;
  const exports = (await listExports(deps.store, shard))
    .filter((e) => e.coveredPosition <= floor)
    .reverse();
  for (const ref of exports) {
    const stream = await deps.store.getStream(ref.key);
    if (!stream) continue;
    // The header is unverified here; the floor (T1), which W's fold verified, bounds any harm.
    const header = await peekAofHeader(ref.key, stream).catch(() => undefined);
    if (header && header.createdAtMs <= cutoffMs) {
      report.retiredBelow = ref.coveredPosition;
      break;
    }
  }
  if (report.retiredBelow === 0) {
    report.note = `no export at or below position ${floor} is older than the retention of ${deps.walRetentionMs} ms`;
    return report;
  }
  for await (const key of deps.store.list(walPrefix(shard))) {
    const position = positionOfKey(key);
    if (position === undefined) continue;
    if (position >= report.retiredBelow) break;
    await deps.store.delete(key);
    report.deleted += 1;
    report.fromPosition ??= position;
    report.toPosition = position;
  }
  return report;
}
