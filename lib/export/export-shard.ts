/**
 * Export one shard: fold its WAL into a new AOF export. Read top to bottom:
 *
 *   1. Read the record. The target T is its `walNextPos`: only objects below
 *      it are committed (one at T may be an append in flight). A poisoned
 *      shard is skipped (recovery first); T at the watermark is up to date.
 *   2. List exports. One above T means the record is behind S3: skipped, for
 *      verify and rebuild. One at T is a crashed (written, watermark not
 *      recorded) or racing export: verify it and go to 5.
 *   3. Fold the newest valid export below T and the WAL from it up to T.
 *   4. Write it create-if-absent at `aofKey(shard, T)`. 'exists' means
 *      another exporter won: verify theirs instead.
 *   5. Record the watermark T (forward only, W2 in watermark.ts).
 *   6. Retire the WAL objects the retention rules allow (retention.ts).
 *
 * Invariants:
 * E1. An export covers committed positions only: it never reads at or past T.
 * E2. An export is never overwritten, and an existing one is trusted only
 *     after it verifies and says it covers T.
 * E3. The watermark moves only after its export is in the store (a crash
 *     between 4 and 5 leaves an export the next run or a rebuild uses).
 */
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { CorruptDataError, NotFoundError } from '../errors.js';
import { readShardRecord } from '../memtable/shard-record.js';
import { recordWatermark } from '../memtable/watermark.js';
import { Metric } from '../observability/metric-names.js';
import { logger, metrics } from '../observability/telemetry.js';
import { aofKey, assertShardName } from '../paths.js';
import { type ExportRef, listExports, streamExport } from '../recovery/export-source.js';
import type { ProgressListener } from '../recovery/progress.js';
import { stopReport } from '../recovery/stop-report.js';
import { type ExportDeps, ExportFaultPoint } from './deps.js';
import { type ExportReport, ExportStatus } from './export-report.js';
import { foldExport } from './fold-export.js';
import { retireCoveredWal } from './retention.js';

/** Options of `exportShard`. */
export interface ExportOptions {
  /** Retire covered WAL objects after recording the watermark (default true). */
  retention?: boolean;
  onProgress?: ProgressListener;
}

/** Exports `shard`; throws NotFoundError when the table has no record of it. */
export async function exportShard(
  deps: ExportDeps,
  shard: string,
  options: ExportOptions = {},
): Promise<ExportReport> {
  assertShardName(shard);
  const started = deps.now();
  // 1. Read.
  const record = await readShardRecord(deps.table, shard);
  if (!record) throw new NotFoundError(`shard ${shard}`);
  const target = record.walNextPos;
  const report = emptyReport(shard, record.aofWatermark);
  const done = (status: ExportStatus, reason: string | null = null) =>
    finish(deps, report, status, reason, started);
  if (record.poison)
    return done(ExportStatus.skipped, `the shard is poisoned (${record.poison}); rebuild it first`);
  if (target <= record.aofWatermark) return done(ExportStatus.upToDate);

  // 2. Existing exports.
  const exports = await listExports(deps.store, shard);
  const beyond = exports.find((e) => e.coveredPosition > target);
  if (beyond) {
    return done(
      ExportStatus.skipped,
      `${beyond.key} covers beyond the record's walNextPos ${target}: the record is behind S3; run verify and rebuild`,
    );
  }
  const key = aofKey(shard, target);
  report.key = key;
  report.coveredPosition = target;
  let previousExport: number | null;
  if (exports.some((e) => e.coveredPosition === target)) {
    const found = await verifyExisting(deps, { key, coveredPosition: target }, report);
    if (typeof found === 'string') return done(ExportStatus.failed, found);
    previousExport = found;
    report.status = ExportStatus.adopted;
  } else {
    // 3. Fold.
    const candidates = exports.filter((e) => e.coveredPosition < target).reverse();
    const folded = await foldExport(deps.store, {
      shard,
      target,
      candidates,
      createdAtMs: deps.now(),
      gzipLevel: deps.gzipLevel,
      onProgress: options.onProgress,
      onFallback: (fallback) => {
        report.fallbacks.push(fallback);
        warn(
          report,
          `export ${fallback.key} failed verification (${fallback.error.name}: ${fallback.error.message}); folding from the previous export`,
        );
        metrics.addMetric(Metric.exportFallbacks, MetricUnit.Count, 1);
      },
    });
    const { walk } = folded;
    report.base = folded.base;
    report.folded = {
      fromPosition: walk.start.position,
      toPosition: walk.end.position,
      objects: walk.objects,
      walRows: walk.rows,
      exportRows: folded.ok ? folded.exportRows : 0,
      puts: folded.ok ? folded.applied.puts : 0,
      deletes: folded.ok ? folded.applied.deletes : 0,
      keyless: folded.ok ? folded.applied.keyless : 0,
    };
    if (!folded.base && candidates.length > 0) {
      warn(
        report,
        `no export below position ${target} verified; the export was folded from the whole WAL`,
      );
    }
    if (!folded.ok) {
      report.stoppedAt = stopReport(walk.stop);
      return done(
        ExportStatus.failed,
        `the WAL below walNextPos ${target} is broken: ${report.stoppedAt?.detail}`,
      );
    }
    report.liveKeys = folded.header.keyedCount;
    report.keylessRows = folded.header.keylessCount;
    report.bytes = folded.bytes.byteLength;
    previousExport = folded.header.previousExport;

    // 4. Write create-if-absent.
    await deps.faults?.(ExportFaultPoint.beforeWrite, shard);
    const written = await deps.store.putIfAbsent(key, folded.bytes);
    await deps.faults?.(ExportFaultPoint.afterWrite, shard);
    report.status = ExportStatus.exported;
    if (written === 'exists') {
      const found = await verifyExisting(deps, { key, coveredPosition: target }, report);
      if (typeof found === 'string') return done(ExportStatus.failed, found);
      previousExport = found;
      report.status = ExportStatus.adopted;
    }
  }

  // 5. Watermark.
  const moved = await recordWatermark(deps.table, shard, target, deps.now());
  report.watermark.after =
    moved === 'advanced'
      ? target
      : ((await readShardRecord(deps.table, shard))?.aofWatermark ?? target);
  await deps.faults?.(ExportFaultPoint.afterWatermark, shard);

  // 6. Retention.
  if (options.retention ?? true) {
    report.retention = await retireCoveredWal(deps, {
      shard,
      watermark: report.watermark.after,
      previousExport,
    });
  }
  return done(report.status);
}

/** The `previousExport` of a verified export at the target, or why it cannot be used. */
async function verifyExisting(
  deps: ExportDeps,
  ref: ExportRef,
  report: ExportReport,
): Promise<number | null | string> {
  try {
    const header = await streamExport(deps.store, ref, {
      keyed: () => {},
      keyless: () => undefined,
    });
    report.liveKeys = header.keyedCount;
    report.keylessRows = header.keylessCount;
    return header.previousExport;
  } catch (error) {
    if (!(error instanceof CorruptDataError)) throw error;
    return `an export already exists at ${ref.key} and does not verify (${error.name}: ${error.message}); remove it so a new one can be written`;
  }
}

function warn(report: ExportReport, message: string): void {
  report.warnings.push(message);
  logger.warn(message, { shard: report.shard });
}

function emptyReport(shard: string, watermark: number): ExportReport {
  return {
    kind: 'export',
    shard,
    status: ExportStatus.upToDate,
    reason: null,
    key: null,
    coveredPosition: null,
    base: null,
    fallbacks: [],
    warnings: [],
    folded: null,
    stoppedAt: null,
    liveKeys: 0,
    keylessRows: 0,
    bytes: 0,
    watermark: { before: watermark, after: watermark },
    retention: null,
    durationMs: 0,
  };
}

function finish(
  deps: ExportDeps,
  report: ExportReport,
  status: ExportStatus,
  reason: string | null,
  started: number,
): ExportReport {
  report.status = status;
  report.reason = reason;
  report.durationMs = deps.now() - started;
  const line = {
    shard: report.shard,
    status,
    reason,
    key: report.key,
    base: report.base?.key ?? null,
    walRows: report.folded?.walRows ?? 0,
    bytes: report.bytes,
    retired: report.retention?.deleted ?? 0,
    durationMs: report.durationMs,
  };
  if (status === ExportStatus.failed) logger.error('export failed', line);
  else if (status === ExportStatus.skipped) logger.warn('export skipped', line);
  else logger.info('export', line);
  if (status === ExportStatus.exported) {
    metrics.addMetric(Metric.exportRows, MetricUnit.Count, report.folded?.walRows ?? 0);
    metrics.addMetric(Metric.exportBytes, MetricUnit.Bytes, report.bytes);
    metrics.addMetric(Metric.exportDurationMs, MetricUnit.Milliseconds, report.durationMs);
  }
  if (report.retention?.deleted) {
    metrics.addMetric(Metric.walObjectsRetired, MetricUnit.Count, report.retention.deleted);
  }
  return report;
}
