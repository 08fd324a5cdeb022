/**
 * Snapshot expiry. Invariants:
 *
 * E1. The current snapshot is always kept, and so are the newest
 *     `keepSnapshots` and every snapshot younger than `snapshotMaxAgeMs`.
 * E2. The expiry is committed first (a new metadata version without the
 *     expired snapshots, created if absent like every commit; on a lost race
 *     it is recomputed on the new base); only then are files deleted, and
 *     only those the expired snapshots reach and no kept snapshot does.
 *     A commit racing the expiry builds on the current snapshot (kept) or
 *     loses its race and re-applies on the expiry's version, so it never
 *     references a deleted file.
 * E3. A crash between the commit and the deletes leaves unreferenced files,
 *     which orphan removal takes once they are old enough.
 */
import { createVersion } from './commit.js';
import { readOrStale } from './commit-loop.js';
import type { TableDeps } from './deps.js';
import { TableFaultPoint } from './fault-points.js';
import { currentSnapshot, loadCurrent } from './metadata.js';
import { referencedKeys } from './references.js';

/** What an expiry did. */
export interface ExpireReport {
  table: string;
  expired: number[];
  kept: number;
  deleted: number;
  version: number | null;
}

/** Expires the table's old snapshots (E1-E3). */
export async function expireSnapshots(deps: TableDeps, table: string): Promise<ExpireReport> {
  const report: ExpireReport = { table, expired: [], kept: 0, deleted: 0, version: null };
  for (let attempt = 0; attempt < 8; attempt++) {
    const base = await loadCurrent(deps.store, table);
    if (!base) return report;
    const { metadata } = base;
    const current = currentSnapshot(metadata);
    const bySequence = [...metadata.snapshots].sort(
      (a, b) => b['sequence-number'] - a['sequence-number'],
    );
    const newest = new Set(bySequence.slice(0, deps.config.keepSnapshots));
    const cutoff = deps.now() - deps.config.snapshotMaxAgeMs;
    const keep = (s: (typeof bySequence)[number]) =>
      s === current || newest.has(s) || s['timestamp-ms'] > cutoff;
    const kept = metadata.snapshots.filter(keep);
    const expired = metadata.snapshots.filter((s) => !keep(s));
    report.kept = kept.length;
    if (expired.length === 0) return report;
    const next = structuredClone(metadata);
    const keptIds = new Set(kept.map((s) => s['snapshot-id']));
    next.snapshots = next.snapshots.filter((s) => keptIds.has(s['snapshot-id']));
    next['snapshot-log'] = next['snapshot-log'].filter((e) => keptIds.has(e['snapshot-id']));
    next['last-updated-ms'] = deps.now();
    if (!(await createVersion(deps, table, base, next))) continue;
    report.version = base.version + 1;
    report.expired = expired.map((s) => s['snapshot-id']);
    await deps.faults?.(TableFaultPoint.expireAfterCommit, table);
    // Its own commit superseded `base`: a racing expiry or orphan removal may have deleted
    // what it lists since. Then nothing is deleted here; orphan removal takes what is left.
    const keys = await readOrStale(
      deps,
      table,
      base,
      async () => ({
        kept: await referencedKeys(deps, table, metadata, kept),
        expired: await referencedKeys(deps, table, metadata, expired),
      }),
      undefined,
    );
    if (!keys) return report;
    const { kept: keptKeys, expired: expiredKeys } = keys;
    for (const key of expiredKeys) {
      if (keptKeys.has(key)) continue;
      await deps.store.delete(key);
      report.deleted += 1;
      if (report.deleted === 1) await deps.faults?.(TableFaultPoint.expireDuringDeletes, table);
    }
    return report;
  }
  return report;
}
