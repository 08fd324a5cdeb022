/**
 * Orphan removal: deletes the table's files no snapshot of the current
 * metadata references (left by crashed or losing commits, or by an expiry a
 * crash cut short). Invariants:
 *
 * O1. The version hint and the newest `METADATA_VERSIONS_KEPT` metadata files
 *     are never removed; older metadata files are (they are history only:
 *     the loader starts from the hint or the newest listed version).
 * O2. A file is removed only when its name says it was made more than
 *     `orphanAgeMs` ago (`paths.ts`); a file whose name carries no time is
 *     never removed.
 * O3. An append or compaction commits only files it made less than
 *     `orphanAgeMs / 2` ago, else it starts over (`append.ts`), and a removal
 *     pass deletes only within `orphanAgeMs / 4` of reading the references.
 *     So a file a racing commit is about to reference is either younger
 *     than the threshold or its commit is already in the references read:
 *     a referenced file is never removed, even while commits race.
 */

import { readOrStale } from './commit-loop.js';
import type { TableDeps } from './deps.js';
import { TableFaultPoint } from './fault-points.js';
import { loadCurrent } from './metadata.js';
import { madeAtOfKey, tablePrefix, versionHintKey, versionOfKey } from './paths.js';
import { referencedKeys } from './references.js';

/** Metadata versions kept below the current one (the rest of `metadata-log`'s history goes). */
export const METADATA_VERSIONS_KEPT = 100;

/** What an orphan removal did. */
export interface OrphanReport {
  table: string;
  scanned: number;
  deleted: number;
  /** Set when the pass stopped before deleting because it ran too long (O3). */
  abandoned: boolean;
}

/** Removes the table's orphans (O1-O3). */
export async function removeOrphans(deps: TableDeps, table: string): Promise<OrphanReport> {
  const report: OrphanReport = { table, scanned: 0, deleted: 0, abandoned: false };
  const startedMs = deps.now();
  const loaded = await loadCurrent(deps.store, table);
  if (!loaded) return report;
  // A newer version may have dropped, and maintenance deleted, what this one lists: then this
  // pass deletes nothing (the next one reads the newer version).
  const referenced = await readOrStale(
    deps,
    table,
    loaded,
    () => referencedKeys(deps, table, loaded.metadata, loaded.metadata.snapshots),
    undefined,
  );
  if (!referenced) return report;
  const cutoff = startedMs - deps.config.orphanAgeMs;
  const candidates: string[] = [];
  for await (const key of deps.store.list(tablePrefix(table))) {
    report.scanned += 1;
    const version = versionOfKey(key);
    if (version !== undefined) {
      if (version <= loaded.version - METADATA_VERSIONS_KEPT) candidates.push(key);
      continue;
    }
    if (key === versionHintKey(table)) continue;
    const madeAt = madeAtOfKey(key);
    if (madeAt === undefined || madeAt > cutoff || referenced.has(key)) continue;
    candidates.push(key);
  }
  await deps.faults?.(TableFaultPoint.orphansAfterScan, table);
  for (const key of candidates) {
    if (deps.now() - startedMs > deps.config.orphanAgeMs / 4) {
      report.abandoned = true;
      break;
    }
    await deps.store.delete(key);
    report.deleted += 1;
    if (report.deleted === 1) await deps.faults?.(TableFaultPoint.orphansDuringDeletes, table);
  }
  return report;
}
