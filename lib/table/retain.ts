/**
 * History retention in a table: a routed shard's keyless rows that its
 * exports no longer keep as history leave the table, as stored segments
 * leave S3 (`SHARDWAL_HISTORY_RETENTION_MS`; with zero-copy the table is
 * that history). Invariants:
 *
 * H1. A shard's rows may leave only below its `historyKeptFrom` cursor, which
 *     export retention moves once no manifest in S3 lists history below it,
 *     nor can one written later (T6 in `lib/export/retention.ts`): so no
 *     table segment a reader can reach names a row that left.
 * H2. Only keyless rows leave. Keyed rows are the keys' change log, and a
 *     key's current state needs its newest change however old it is.
 * H3. A run rewrites the live files that hold such rows (a file whose bounds
 *     exclude every shard's rows below its cursor, or that counts no row
 *     without a key, is not read; one recording neither is), up to the
 *     target file size of files read, writing back every other row, and
 *     commits an `overwrite` snapshot (`delete` when nothing is written
 *     back) that carries the base's high-water and lowers `total-records`
 *     by the rows that left (`rewrite.ts`, W1-W4: a lost commit re-applies
 *     while every rewritten file is still live).
 * H4. The rewritten files stay until the snapshots that list them expire
 *     (`expire.ts`); readers of an older snapshot still see the rows.
 */

import { fileBounds, keylessRows } from './bounds.js';
import type { TableRow } from './data-file.js';
import type { TableDeps } from './deps.js';
import { TableFaultPoint } from './fault-points.js';
import { readLiveRows, rewriteTable } from './rewrite.js';
import type { LiveFile } from './snapshot-files.js';

/** Where each shard's history is kept from (H1), by shard. */
export type HistoryKeptFrom = (shards: readonly string[]) => Promise<Map<string, number>>;

/** What a retention run did. */
export interface RetainReport {
  table: string;
  status: 'removed' | 'nothing-to-do' | 'gave-up';
  /** Files rewritten, files written in their place, rows that left. */
  rewritten: number;
  added: number;
  rows: number;
  version: number | null;
  conflicts: number;
}

/** True when `live` may hold a keyless row below its shard's cursor (H3; no bounds or counts: it may). */
function mayHold(live: LiveFile, keptFrom: ReadonlyMap<string, number>): boolean {
  if (keylessRows(live.file.null_value_counts) === 0) return false;
  const bounds = fileBounds(live.file.lower_bounds, live.file.upper_bounds);
  if (!bounds) return true;
  const [low, high] = bounds.shard;
  for (const [shard, from] of keptFrom) {
    if (shard >= low && shard <= high && bounds.position[0] < from) return true;
  }
  return false;
}

/** True when `row` is history no export keeps (H1, H2). */
function retired(row: TableRow, keptFrom: ReadonlyMap<string, number>): boolean {
  return row.key === null && row.position < (keptFrom.get(row.shard) ?? 0);
}

/** Removes the rows of `shards` no export keeps as history from `table` (H1-H4); nothing without `deps.historyKeptFrom`. */
export async function retainHistory(
  deps: TableDeps,
  table: string,
  shards: readonly string[],
): Promise<RetainReport> {
  const report: RetainReport = {
    table,
    status: 'nothing-to-do',
    rewritten: 0,
    added: 0,
    rows: 0,
    version: null,
    conflicts: 0,
  };
  if (!deps.historyKeptFrom) return report;
  const keptFrom = new Map(
    [...(await deps.historyKeptFrom(shards))].filter(([, from]) => from > 0),
  );
  if (keptFrom.size === 0) return report;
  const result = await rewriteTable(
    deps,
    table,
    {
      async plan(base, files, schema) {
        const chosen: LiveFile[] = [];
        const rows: TableRow[] = [];
        let removed = 0;
        let bytes = 0;
        for (const live of files) {
          if (bytes >= deps.config.targetFileBytes) break;
          if (!mayHold(live, keptFrom)) continue;
          const held = await readLiveRows(deps, table, base, [live], schema);
          bytes += live.file.file_size_in_bytes;
          const kept = held.filter((row) => !retired(row, keptFrom));
          if (kept.length === held.length) continue;
          chosen.push(live);
          rows.push(...kept);
          removed += held.length - kept.length;
        }
        return chosen.length === 0 ? undefined : { files: chosen, rows, removed };
      },
      afterDataFiles: TableFaultPoint.retainAfterDataFiles,
      afterManifests: TableFaultPoint.retainAfterManifests,
    },
    report,
  );
  report.status = result.status === 'committed' ? 'removed' : result.status;
  if (result.rewrite) {
    report.rewritten = result.rewrite.files.length;
    report.added = result.added;
    report.rows = result.rewrite.removed;
    report.version = result.version;
  }
  return report;
}
