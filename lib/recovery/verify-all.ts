/**
 * The scheduled job: verify every shard. Shards come from the registry index
 * (`listShards`): O(shards) per run, whatever else the table holds.
 * Exports are checked by their header only unless asked, so a run costs a
 * listing, the WAL after each watermark, and a few table reads per shard.
 * With Iceberg tables, each table of the listed shards is checked too
 * (`verify-tables.ts`): one metadata read per table.
 */

import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { listShards } from '../memtable/list-shards.js';
import { Metric } from '../observability/metric-names.js';
import { logger, metrics } from '../observability/telemetry.js';
import { mapWithConcurrency } from '../ticker/concurrency.js';
import type { RecoveryDeps } from './deps.js';
import { type VerifyOptions, type VerifyReport, verifyShard } from './verify.js';
import { type TablesVerifyReport, verifyTables } from './verify-tables.js';
import { type ErrorSummary, summarize } from './wal-chain.js';

/** Options of `verifyAll`. */
export interface VerifyAllOptions extends VerifyOptions {
  /** Shards verified at once (default 4). */
  concurrency?: number;
  /** Checked before each shard; true skips the rest (a Lambda near its deadline). */
  shouldStop?: () => boolean;
}

/** The outcome of one run over every shard. */
export interface VerifyAllReport {
  kind: 'verify-all';
  /** Shards the registry lists. */
  shards: number;
  /** Shards verified with no finding. */
  ok: number;
  /** Reports of every verified shard, ascending by name. */
  reports: VerifyReport[];
  /** Shards whose verify threw (a transient store or table failure). */
  failed: Array<{ shard: string; error: ErrorSummary }>;
  /** Shards not reached because `shouldStop` said so. */
  skipped: string[];
  /** The tables' findings (with tables on). */
  tables?: TablesVerifyReport;
  findings: number;
  heals: number;
  durationMs: number;
}

/** Verifies every shard of the table. */
export async function verifyAll(
  deps: RecoveryDeps,
  options: VerifyAllOptions = {},
): Promise<VerifyAllReport> {
  const started = deps.now();
  const shards = await listShards(deps.table);
  const verifyOptions: VerifyOptions = { fullExportCheck: false, ...options };
  const report: VerifyAllReport = {
    kind: 'verify-all',
    shards: shards.length,
    ok: 0,
    reports: [],
    failed: [],
    skipped: [],
    findings: 0,
    heals: 0,
    durationMs: 0,
  };
  const results = await mapWithConcurrency(shards, options.concurrency ?? 4, async (shard) => {
    if (options.shouldStop?.()) {
      report.skipped.push(shard);
      return undefined;
    }
    try {
      return await verifyShard(deps, shard, verifyOptions);
    } catch (error) {
      logger.error('verify failed', { shard, error: error as Error });
      report.failed.push({ shard, error: summarize(error) });
      return undefined;
    }
  });
  for (const result of results) {
    if (!result) continue;
    report.reports.push(result);
    if (result.ok) report.ok += 1;
    report.findings += result.findings.length;
    report.heals += result.heals.length;
  }
  if (deps.tables && !options.shouldStop?.()) {
    report.tables = await verifyTables(deps, deps.tables, shards);
    report.findings += report.tables.findings.length;
  }
  report.durationMs = deps.now() - started;
  // One figure per run, so a schedule that stopped running is visible.
  metrics.addMetric(Metric.verifyShardsScanned, MetricUnit.Count, report.shards);
  logger.info('verify-all', {
    shards: report.shards,
    ok: report.ok,
    findings: report.findings,
    heals: report.heals,
    failed: report.failed.length,
    skipped: report.skipped.length,
  });
  return report;
}
