/**
 * Export: archive a shard's new WAL into segments and snapshot parts and
 * write a manifest naming them (docs/recovery.md, docs/manifest-format.md).
 * The contract of `lib/export/`:
 *
 * 1. An export covers committed WAL positions only (below the record's
 *    `walNextPos`), built on the newest export below it that verifies.
 * 2. Keyed rows: the newest position wins, a delete removes the key (the
 *    snapshot, kept as a base and deltas); keyless rows are kept in offset
 *    order (segments, from the history floor on).
 * 3. It costs O(new data) (plus amortized compaction), never O(history):
 *    the base's segments and parts are listed again, never copied.
 * 4. Everything is written create-if-absent and never overwritten; the
 *    manifest only after what it lists, the watermark only after the
 *    manifest, and only forward.
 * 5. Retention keeps the newest two valid exports with what they list and
 *    the WAL after the second newest; it retires older exports, orphans and
 *    WAL below that, each after its retention period (an export no sooner
 *    than A after the one that superseded it: an export in flight may still
 *    name it as its base).
 */
/**
 * Export one shard: archive its new WAL into segments and snapshot deltas and
 * write a manifest naming them (the export). Read top to bottom:
 *
 *   1. Read the record. The target T is its `walNextPos`: only objects below
 *      it are committed (one at T may be an append in flight). A poisoned
 *      shard is skipped (recovery first); T at the watermark is up to date.
 *   2. List exports. One above T means the record is behind S3: skipped, for
 *      verify and rebuild. A manifest at T is a crashed (written, watermark
 *      not recorded) or racing export: verify it and go to 5.
 *   3. Fold (`fold-export.ts`) onto the newest valid export below T (a legacy
 *      AOF export at T counts too: it is converted): new segments for the
 *      keyless rows since it, delta parts for the keyed rows, a compaction
 *      when due, and the manifest listing the base's objects and the new ones.
 *   4. Write the manifest create-if-absent at `manifestKey(shard, T)`,
 *      unless the export has run past its deadline (`deadline.ts`): then it
 *      fails and leaves what it wrote to retention's orphan sweep. When the
 *      write returns past the deadline (a stall between the check and the
 *      write), confirm every object it names still exists, and delete the
 *      manifest again and fail when one is gone.
 *      'exists' means another exporter won: verify theirs instead. Delta
 *      parts this fold stored and then compacted away are deleted (a crash
 *      first leaves them to retention's orphan sweep).
 *   5. Record the watermark T (forward only, W2 in watermark.ts).
 *   6. Retention (`retention.ts`).
 *
 * Invariants:
 * E1. An export covers committed positions only: it never reads at or past T.
 * E2. Nothing stored is overwritten; an existing manifest is trusted only
 *     after it verifies and says it covers T, an existing segment or part only
 *     once it holds exactly the lines this export would write.
 * E3. The manifest is written only after every part and segment it lists is
 *     stored, and the watermark moves only after the manifest is (a crash
 *     between any two steps leaves objects the next run adopts or retires).
 * E4. Cost: the WAL since the base, plus the amortized compaction of
 *     `snapshot-plan.ts`, plus a manifest of one line per part and segment
 *     (and a listing of the same keys, only when the write returned past
 *     the deadline); the base's segments and parts are listed again, never
 *     read.
 * E5. A manifest is never left in place naming an object retention may
 *     have deleted (an orphan the sweep took, or a part or segment of its
 *     base that T1 retired while later exports completed): it is written
 *     only within the export deadline (D1-D2 and D4 in `deadline.ts`) and
 *     deleted again when its write returned past the deadline and an object
 *     it names is gone (D3; D3 and D4 state the bound that remains).
 */
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { CorruptDataError, NotFoundError } from '../errors.js';
import { encodeManifest } from '../manifest/codec.js';
import { manifestKey } from '../manifest/format.js';
import { readShardRecord } from '../memtable/shard-record.js';
import { recordWatermark } from '../memtable/watermark.js';
import { Metric } from '../observability/metric-names.js';
import { logger, metrics } from '../observability/telemetry.js';
import { assertShardName } from '../paths.js';
import {
  ExportKind,
  type ExportRef,
  listExports,
  loadManifest,
} from '../recovery/export-source.js';
import type { ProgressListener } from '../recovery/progress.js';
import { stopReport } from '../recovery/stop-report.js';
import { snapshotPartKey } from '../snapshot/format.js';
import type { TableHold } from '../table/floor.js';
import { FRAME_GZIP_LEVEL } from '../wal/framing.js';
import { missingObjects } from './confirm-manifest.js';
import { mayHaveBeenSwept, pastDeadline } from './deadline.js';
import { type ExportDeps, ExportFaultPoint } from './deps.js';
import { type ExportReport, ExportStatus } from './export-report.js';
import { foldExport } from './fold-export.js';
import { retire } from './retention.js';

/** Options of `exportShard`. */
export interface ExportOptions {
  /** Run retention after recording the watermark (default true). */
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
  // Before the record is read, so before the first object is written (D1 in deadline.ts).
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
  // The shard's table hold, read once: the fold's table segments and retention's WAL floor (an
  // older high-water only keeps more WAL).
  let hold: Promise<TableHold | undefined> | undefined;
  const holdOnce = () => (hold ??= deps.tableHold?.(shard) ?? Promise.resolve(undefined));

  // 2. Existing exports.
  const exports = await listExports(deps.store, shard);
  const beyond = exports.find((e) => e.coveredPosition > target);
  if (beyond) {
    return done(
      ExportStatus.skipped,
      `${beyond.key} covers beyond the record's walNextPos ${target}: the record is behind S3; run verify and rebuild`,
    );
  }
  const key = manifestKey(shard, target);
  const ref: ExportRef = { key, coveredPosition: target, kind: ExportKind.manifest };
  report.key = key;
  report.coveredPosition = target;
  if (exports.some((e) => e.kind === ExportKind.manifest && e.coveredPosition === target)) {
    const found = await verifyExisting(deps, ref, report);
    if (found) return done(ExportStatus.failed, found);
    report.status = ExportStatus.adopted;
  } else {
    // 3. Fold.
    const candidates = exports
      .filter((e) => e.coveredPosition < target || e.kind === ExportKind.aof)
      .reverse();
    const folded = await foldExport(deps.store, {
      shard,
      target,
      candidates,
      createdAtMs: deps.now(),
      gzipLevel: deps.gzipLevel ?? FRAME_GZIP_LEVEL,
      historyRetentionMs: deps.historyRetentionMs ?? 0,
      tableHold: await holdOnce(),
      segmentTargetRawBytes: deps.segmentTargetRawBytes,
      spillBytes: deps.spillBytes,
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
    report.base = folded.base && {
      key: folded.base.key,
      coveredPosition: folded.base.coveredPosition,
      kind: folded.base.kind,
    };
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
    const { manifest } = folded;
    report.writes = folded.writes;
    report.liveKeys = folded.liveKeys;
    describe(report, manifest);
    await deps.faults?.(ExportFaultPoint.afterArchive, shard);

    // 4. Write the manifest create-if-absent, unless past the deadline (D1); then confirm it (D3).
    const bytes = encodeManifest(manifest);
    const late = pastDeadline(deps, started);
    if (late) {
      metrics.addMetric(Metric.exportsAbandoned, MetricUnit.Count, 1);
      return done(ExportStatus.failed, late);
    }
    await deps.faults?.(ExportFaultPoint.beforeWrite, shard);
    const written = await deps.store.putIfAbsent(key, bytes);
    await deps.faults?.(ExportFaultPoint.afterWrite, shard);
    report.status = ExportStatus.exported;
    report.bytes = folded.writes.bytes + (written === 'created' ? bytes.byteLength : 0);
    if (written === 'exists') {
      const found = await verifyExisting(deps, ref, report);
      if (found) return done(ExportStatus.failed, found);
      report.status = ExportStatus.adopted;
    } else {
      const missing = mayHaveBeenSwept(deps, started)
        ? await missingObjects(deps.store, shard, manifest)
        : [];
      if (missing.length > 0) {
        await deps.store.delete(key);
        metrics.addMetric(Metric.exportsAbandoned, MetricUnit.Count, 1);
        return done(
          ExportStatus.failed,
          `${missing.length} object(s) the manifest names were gone once it was written (first: ${missing[0]}; retention swept them while the export stalled for ${deps.now() - started} ms): the manifest was deleted again; the next export redoes the range`,
        );
      }
      for (const part of folded.superseded) await deps.store.delete(snapshotPartKey(shard, part));
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
    const once = { ...deps, tableHold: deps.tableHold && holdOnce };
    report.retention = await retire(once, { shard, watermark: report.watermark.after });
  }
  return done(report.status);
}

/** Checks the manifest at the target; the reason it cannot be used, or undefined when it verifies. */
async function verifyExisting(
  deps: ExportDeps,
  ref: ExportRef,
  report: ExportReport,
): Promise<string | undefined> {
  try {
    describe(report, await loadManifest(deps.store, ref));
    return undefined;
  } catch (error) {
    if (!(error instanceof CorruptDataError)) throw error;
    return `a manifest already exists at ${ref.key} and does not verify (${error.name}: ${error.message}); remove it so a new one can be written`;
  }
}

function describe(
  report: ExportReport,
  manifest: {
    header: { keylessRows: number; historyFloor: number };
    parts: unknown[];
    segments: unknown[];
  },
): void {
  report.keylessRows = manifest.header.keylessRows;
  report.historyFloor = manifest.header.historyFloor;
  report.segments = manifest.segments.length;
  report.parts = manifest.parts.length;
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
    writes: null,
    stoppedAt: null,
    liveKeys: null,
    keylessRows: 0,
    segments: 0,
    parts: 0,
    historyFloor: 0,
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
    retiredWal: report.retention?.wal.deleted ?? 0,
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
  if (report.retention?.wal.deleted) {
    metrics.addMetric(Metric.walObjectsRetired, MetricUnit.Count, report.retention.wal.deleted);
  }
  return report;
}
