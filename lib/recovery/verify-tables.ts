/**
 * Verify of the Iceberg tables (`lib/table`), beside the shards': every
 * append committed within the finding window (the verify period) that left
 * typed values null, because their declared type cannot hold them exactly,
 * is a finding (`table-values-refused`). Nothing is lost (the `row` column
 * keeps the exact text) but the declared schema does not fit the rows.
 * Each such append is reported by the run after it; the exact count is also
 * the `TableValuesRefused` metric of the committer.
 */
import { logger } from '../observability/telemetry.js';
import { groupShardsByTable, type TableRoute } from '../table/names.js';
import { refusedAppendsSince } from '../table/refused.js';
import type { RecoveryDeps } from './deps.js';
import { FindingKind, reportTableFinding, type TableFinding } from './findings.js';
import { type ErrorSummary, summarize } from './wal-chain.js';

/** What verify found in the tables. */
export interface TablesVerifyReport {
  /** Tables checked. */
  tables: string[];
  findings: TableFinding[];
  /** Tables whose metadata could not be read (the next run tries again). */
  failed: Array<{ table: string; error: ErrorSummary }>;
}

/** Checks the tables of `shards` under `routes`; reports each finding. */
export async function verifyTables(
  deps: RecoveryDeps,
  tables: { routes: TableRoute[]; findingWindowMs: number },
  shards: readonly string[],
): Promise<TablesVerifyReport> {
  const report: TablesVerifyReport = { tables: [], findings: [], failed: [] };
  const sinceMs = deps.now() - tables.findingWindowMs;
  for (const table of [...groupShardsByTable(tables.routes, shards).keys()].sort()) {
    report.tables.push(table);
    try {
      for (const append of await refusedAppendsSince(deps.store, table, sinceMs)) {
        const counts = Object.entries(append.counts);
        const total = counts.reduce((sum, [, count]) => sum + count, 0);
        report.findings.push({
          kind: FindingKind.tableValuesRefused,
          table,
          shards: append.shards,
          detail: `the append of snapshot ${append.snapshotId} at ${new Date(append.timestampMs).toISOString()} (shards ${append.shards.join(', ')}) left ${total} typed value(s) null, not exact in their declared type: ${counts.map(([column, count]) => `${column} ${count}`).join(', ')}; the row column keeps their text (shardwal table ${table})`,
        });
      }
    } catch (error) {
      logger.error('table verify failed', { table, error: error as Error });
      report.failed.push({ table, error: summarize(error) });
    }
  }
  for (const finding of report.findings) reportTableFinding(finding);
  return report;
}
