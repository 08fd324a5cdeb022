/**
 * Compaction: small data files of one partition merged into files of the
 * target size, committed as a `replace` snapshot that changes no row
 * (`rewrite.ts`, W1-W4, holds how). Invariants:
 *
 * K1. The merged files hold exactly the rows of the files they replace (read
 *     back whole, typed columns re-projected from `row`: `read-data-file.ts`),
 *     ordered by shard, position and offset.
 * K2. The replace snapshot lists every live file of its base and carries
 *     the base's high-water and row count unchanged (W1).
 * K3. A lost commit re-applies on the new base only while every replaced
 *     file is still live there (W2).
 * K4. The replaced files stay until the snapshots that list them expire (W3).
 */

import type { TableDeps } from './deps.js';
import { TableFaultPoint } from './fault-points.js';
import { readLiveRows, rewriteTable } from './rewrite.js';
import type { LiveFile } from './snapshot-files.js';

/** What a compaction did. */
export interface CompactReport {
  table: string;
  status: 'compacted' | 'nothing-to-do' | 'gave-up';
  replaced: number;
  added: number;
  rows: number;
  version: number | null;
  conflicts: number;
}

/** The small files of the first partition that has at least two, up to the target size. */
function plan(files: readonly LiveFile[], targetBytes: number): LiveFile[] {
  const groups = new Map<string, LiveFile[]>();
  for (const live of files) {
    if (live.file.file_size_in_bytes >= targetBytes / 2) continue;
    const key = JSON.stringify(live.file.partition);
    groups.set(key, [...(groups.get(key) ?? []), live]);
  }
  for (const group of groups.values()) {
    if (group.length < 2) continue;
    const chosen: LiveFile[] = [];
    let bytes = 0;
    for (const live of group.sort((a, b) => (a.file.file_path < b.file.file_path ? -1 : 1))) {
      if (chosen.length >= 2 && bytes + live.file.file_size_in_bytes > targetBytes) break;
      chosen.push(live);
      bytes += live.file.file_size_in_bytes;
    }
    if (chosen.length >= 2) return chosen;
  }
  return [];
}

/** Compacts one partition's small files, if any (K1-K4). */
export async function compactTable(deps: TableDeps, table: string): Promise<CompactReport> {
  const report: CompactReport = {
    table,
    status: 'nothing-to-do',
    replaced: 0,
    added: 0,
    rows: 0,
    version: null,
    conflicts: 0,
  };
  const result = await rewriteTable(
    deps,
    table,
    {
      async plan(base, files, schema) {
        const chosen = plan(files, deps.config.targetFileBytes);
        if (chosen.length === 0) return undefined;
        return {
          files: chosen,
          rows: await readLiveRows(deps, table, base, chosen, schema),
          removed: 0,
        };
      },
      afterDataFiles: TableFaultPoint.compactAfterDataFile,
      afterManifests: TableFaultPoint.compactAfterManifests,
    },
    report,
  );
  report.status = result.status === 'committed' ? 'compacted' : result.status;
  if (result.rewrite) {
    report.replaced = result.rewrite.files.length;
    report.added = result.added;
    report.rows = result.rewrite.rows.length;
    report.version = result.version;
  }
  return report;
}
