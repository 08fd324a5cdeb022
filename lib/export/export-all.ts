/**
 * The scheduled export: every shard whose WAL advanced past its watermark,
 * one at a time. Shards come from the registry index (`list-shards.ts`): the
 * listing costs O(shards), and each shard's record is then read once; an idle
 * shard costs that read and nothing else.
 */

import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { listShards } from '../memtable/list-shards.js';
import { readShardRecord } from '../memtable/shard-record.js';
import { Metric } from '../observability/metric-names.js';
import { logger, metrics } from '../observability/telemetry.js';
import { type ErrorSummary, summarize } from '../recovery/wal-chain.js';
import type { ExportDeps } from './deps.js';
import type { ExportReport } from './export-report.js';
import { type ExportOptions, exportShard } from './export-shard.js';

/** Options of `exportAll`. */
export interface ExportAllOptions extends ExportOptions {
  /** Checked before each shard; true leaves the rest for the next run (a Lambda near its deadline). */
  shouldStop?: () => boolean;
}

/** The outcome of one scheduled run. */
export interface ExportAllReport {
  kind: 'export-all';
  /** Shards the registry lists. */
  shards: number;
  /** Shards whose WAL had advanced past the watermark (and were not poisoned). */
  due: number;
  reports: ExportReport[];
  failed: Array<{ shard: string; error: ErrorSummary }>;
  /** Due shards left for the next run. */
  deferred: string[];
  durationMs: number;
}

/** Exports every due shard. */
export async function exportAll(
  deps: ExportDeps,
  options: ExportAllOptions = {},
): Promise<ExportAllReport> {
  const started = deps.now();
  const due: string[] = [];
  let shards = 0;
  for (const shard of await listShards(deps.table)) {
    shards += 1;
    const record = await readShardRecord(deps.table, shard);
    if (record && !record.poison && record.walNextPos > record.aofWatermark) due.push(shard);
  }
  const report: ExportAllReport = {
    kind: 'export-all',
    shards,
    due: due.length,
    reports: [],
    failed: [],
    deferred: [],
    durationMs: 0,
  };
  for (const [index, shard] of due.entries()) {
    if (options.shouldStop?.()) {
      report.deferred = due.slice(index);
      break;
    }
    try {
      report.reports.push(await exportShard(deps, shard, options));
    } catch (error) {
      logger.error('export threw; the next run retries', { shard, error: error as Error });
      report.failed.push({ shard, error: summarize(error) });
    }
  }
  report.durationMs = deps.now() - started;
  // One figure per run, so a schedule that stopped running is visible.
  metrics.addMetric(Metric.exportShardsScanned, MetricUnit.Count, shards);
  logger.info('export-all', {
    shards,
    due: due.length,
    exported: report.reports.filter((r) => r.status === 'exported' || r.status === 'adopted')
      .length,
    failed: report.failed.length + report.reports.filter((r) => r.status === 'failed').length,
    deferred: report.deferred.length,
  });
  return report;
}
