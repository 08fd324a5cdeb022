/**
 * The scheduled table job: for every table the routes give the listed
 * shards, append what is new (`append.ts`); with `maintain`, then compact
 * small files, remove rows past history retention, expire old snapshots and
 * remove orphans. Each table runs on its own: one that
 * fails is reported and the others go on (the next run retries it).
 *
 * With a catalog, every run ends a table by moving the catalog's pointer to
 * its current version (`catalog.ts` G3: the catch-up that repairs a pointer
 * a failed move left behind). Every run emits `TableLagMs` once: the oldest
 * uncommitted WAL object's age over the tables it reached (`lag.ts`).
 */
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { Metric } from '../observability/metric-names.js';
import { logger, metrics } from '../observability/telemetry.js';
import { type AppendReport, appendTable } from './append.js';
import { type CatalogMove, followCommit } from './catalog.js';
import { type CompactReport, compactTable } from './compact.js';
import type { TableDeps } from './deps.js';
import { type ExpireReport, expireSnapshots } from './expire.js';
import { maxLagMs, tableLag } from './lag.js';
import { groupShardsByTable } from './names.js';
import { type OrphanReport, removeOrphans } from './orphans.js';
import { metadataUri } from './paths.js';
import { type RetainReport, retainHistory } from './retain.js';
import { tableStatus } from './table-status.js';

/** What one run did, per table. */
export interface TablesReport {
  kind: 'tables';
  tables: Array<{
    table: string;
    append?: AppendReport;
    compact?: CompactReport;
    retain?: RetainReport;
    expire?: ExpireReport;
    orphans?: OrphanReport;
    lagObjects?: number;
    /** Age of the oldest WAL object not yet committed (0: caught up); absent when it could not be read. */
    lagMs?: number;
    /** The catalog catch-up (with a catalog). */
    catalog?: CatalogMove;
    error?: string;
  }>;
}

/** Options of a run. */
export interface RunTablesOptions {
  /** Also compact, remove rows past history retention, expire snapshots and remove orphans. */
  maintain?: boolean;
  /** Checked before each table; true leaves the rest for the next run. */
  shouldStop?: () => boolean;
}

/** Runs the table job over `shards`. */
export async function runTables(
  deps: TableDeps,
  shards: readonly string[],
  options: RunTablesOptions = {},
): Promise<TablesReport> {
  const report: TablesReport = { kind: 'tables', tables: [] };
  for (const [table, members] of groupShardsByTable(deps.config.routes, shards)) {
    if (options.shouldStop?.()) break;
    const entry: TablesReport['tables'][number] = { table };
    report.tables.push(entry);
    try {
      entry.append = await appendTable(deps, table, members);
      metrics.addMetric(Metric.tableRowsCommitted, MetricUnit.Count, entry.append.rows);
      const refused = Object.values(entry.append.refused).reduce((a, b) => a + b, 0);
      if (refused > 0) {
        metrics.addMetric(Metric.tableValuesRefused, MetricUnit.Count, refused);
        logger.warn(
          'typed values not stored: not exact in their type (the row column keeps them)',
          {
            table,
            refused: entry.append.refused,
          },
        );
      }
      if (options.maintain) {
        entry.compact = await compactTable(deps, table);
        entry.retain = await retainHistory(deps, table, members);
        entry.expire = await expireSnapshots(deps, table);
        entry.orphans = await removeOrphans(deps, table);
      }
      const status = await tableStatus(deps, table, members);
      entry.lagObjects = status.shards.reduce((sum, s) => sum + (s.lagObjects ?? 0), 0);
      metrics.addMetric(Metric.tableLagObjects, MetricUnit.Count, entry.lagObjects);
      if (deps.catalog && status.version !== null && status.location !== null) {
        entry.catalog = await followCommit(
          deps.catalog,
          table,
          metadataUri(status.location, status.version),
        );
      }
    } catch (error) {
      logger.error('table job failed; the next run retries', { table, error: error as Error });
      entry.error = error instanceof Error ? error.message : String(error);
    }
    entry.lagMs = await measureLag(deps, table, members);
  }
  // One value a run, so a committer that stopped running is visible too.
  const lags = report.tables.map((t) => t.lagMs ?? 0);
  metrics.addMetric(Metric.tableLagMs, MetricUnit.Milliseconds, Math.max(0, ...lags));
  logger.info('tables', {
    tables: report.tables.map((t) => ({
      table: t.table,
      status: t.append?.status,
      rows: t.append?.rows,
      lag: t.lagObjects,
      lagMs: t.lagMs,
      error: t.error,
    })),
  });
  return report;
}

/** The table's lag (`lag.ts`), measured even when its run failed; undefined when unreadable. */
async function measureLag(
  deps: TableDeps,
  table: string,
  shards: readonly string[],
): Promise<number | undefined> {
  try {
    return maxLagMs(await tableLag(deps, table, shards));
  } catch (error) {
    logger.error('table lag not measured', { table, error: error as Error });
    return undefined;
  }
}
