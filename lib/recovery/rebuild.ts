/**
 * Recovery: verify shards against S3 and rebuild a shard from its export (a
 * manifest, or a legacy AOF export) and the WAL tail after it
 * (docs/recovery.md). The contract:
 *
 * 1. The newest export that verifies is the authority; WAL objects below the
 *    position it covers are never replayed (after a rollback, reconciliation
 *    may read one for one seq's rows, to date a batch item: C2 in
 *    `seq-content.ts`). An export that does not verify is
 *    passed over for the previous one, loudly; with none, the whole WAL is
 *    replayed with a warning that recovery is running without an export.
 * 2. The WAL after the export is replayed in position order and the replay
 *    stops at the first gap, corrupt object, unknown format version or
 *    discontinuity, naming the object and why. A stopped rebuild resets nothing.
 * 3. A rebuild fences the shard (epoch bump) and then sets the record's
 *    cursors to exactly what S3 proves; batch items S3 cannot take at their
 *    seq are quarantined and listed, never silently dropped.
 * 4. Verify reports every disagreement as a finding (a log line and a metric)
 *    and heals only what is provably safe: expired leases, aged gaps.
 * 5. A rebuild that dies after its fence is finished by the next tick, flush
 *    worker, verify or recover once its lease lapses (`takeover.ts`), within
 *    lease + clock skew + one flush interval (L6 in `lib/liveness.ts`).
 */
/**
 * Rebuild one shard from S3, on demand or after divergence. Read top to bottom:
 *
 *   1. Read the shard record as it stands (the "before" cursors).
 *   2. Replay, unfenced and read-only: the newest valid export, then the WAL
 *      objects after it (`replay.ts` states the preference rules). A gap, a
 *      corrupt object, an unknown version or a discontinuity stops it there:
 *      the report names the object and why, and nothing is written.
 *   3. Fence: bump the epoch (a live flusher's commit fails from now on), take
 *      the lease, mark the record as under a rebuild and poison the shard with
 *      "rebuild in progress" (no put allocates, no flusher claims), so the
 *      cursors hold still. The lease is renewed while steps 4-6 run (F4 in
 *      `lib/fence/lease-keeper.ts`).
 *   4. Catch up: walk on from where the replay ended, over objects appended
 *      meanwhile (including a fenced flusher's uncommitted append: it holds
 *      exactly the batches after the last one, I1 in flush-shard.ts). A stop
 *      here lifts the fence and restores the poison as it was.
 *   5. Reconcile the batch items with what S3 proves (`reconcile-batches.ts`).
 *   6. Reset the cursors to what S3 proves, conditional on the fence's epoch:
 *      durableSeq = last replayed seq, walNextPos = next position, the row
 *      offset after it, nextSeq = max(nextSeq, durableSeq + 1, the newest
 *      pending batch's seq + 1: a record restored from a backup may be behind
 *      the batches still pending), generation + 1,
 *      watermark = the export replayed from; lease, mark and poison cleared;
 *      the pending marker kept while batches remain above durableSeq.
 *
 * Replay runs before the fence so a healthy shard keeps taking puts during
 * the long part; only steps 4-6 hold it. A rebuild that dies after the fence
 * (killed, timed out, a table or store error) stops renewing its lease; once
 * it lapses the next tick, verify or recover takes the rebuild over and
 * finishes it (`takeover.ts`, which says why finishing is safe). Every step
 * can be re-run (quarantine keys are named by the generation the reset has
 * not yet bumped). Fault points between the steps: `fault-points.ts`.
 */
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { NotFoundError } from '../errors.js';
import { keepLease } from '../fence/lease-keeper.js';
import { fenceForRebuild, releaseRebuildFence, resetCursors } from '../memtable/reset-cursors.js';
import { readShardRecord, type ShardRecord, snapshotCursors } from '../memtable/shard-record.js';
import { Metric } from '../observability/metric-names.js';
import { logger, metrics } from '../observability/telemetry.js';
import { assertShardName } from '../paths.js';
import type { RecoveryDeps } from './deps.js';
import { RebuildFaultPoint } from './fault-points.js';
import { Phase, type ProgressListener } from './progress.js';
import type { RebuildReport } from './rebuild-report.js';
import { reconcileBatches } from './reconcile-batches.js';
import { extendReplay, type Replay, replayShard } from './replay.js';
import { type StopReport, stopReport } from './stop-report.js';

/** Options of `rebuildShard`. */
export interface RebuildOptions {
  /** Start from the newest valid export (default). False replays the whole WAL from position 0. */
  useExport?: boolean;
  onProgress?: ProgressListener;
}

/** Rebuilds `shard`; throws NotFoundError when neither the table nor S3 knows it. */
export async function rebuildShard(
  deps: RecoveryDeps,
  shard: string,
  options: RebuildOptions = {},
): Promise<RebuildReport> {
  assertShardName(shard);
  const started = deps.now();
  const progress = options.onProgress;
  // 1. Before.
  const before = await readShardRecord(deps.table, shard);
  // 2. Replay, unfenced.
  const replay = await replayShard(deps.store, shard, {
    useExport: options.useExport,
    indexSeqsAbove: before?.durableSeq ?? 0,
    targetPosition: before?.walNextPos,
    onProgress: progress,
  });
  if (!before && !replay.export && replay.walk.objects === 0 && replay.walk.stop.reason === 'end') {
    throw new NotFoundError(`shard ${shard}`);
  }
  const report = initialReport(shard, replay, snapshotCursors(before));
  if (replay.walk.stop.reason !== 'end') return finishReport(report, replay, deps.now() - started);

  // 3. Fence.
  const fenced = await fenceForRebuild(deps.table, shard, {
    owner: deps.owner,
    nowMs: deps.now(),
    leaseMs: deps.leaseMs,
    reason: `recovery: rebuild by ${deps.owner} in progress since ${new Date(deps.now()).toISOString()}`,
  });
  // A stop puts the poison back as it was; another rebuild's fence is not put back.
  const underRebuild = before?.rebuildEpoch !== undefined;
  return holdFence(deps, fenced, async () => {
    // The record went back between step 1 and the fence (restored from a backup): the
    // replay indexed only the objects above the old `durableSeq`, and reconciliation must
    // find the content of every seq above the fenced one (rule 2 in reconcile-batches.ts),
    // or batches the WAL holds read as unlocatable and are quarantined. Replay again,
    // under the fence, indexing from the fenced record.
    const rolledBack = fenced.durableSeq < (before?.durableSeq ?? 0);
    const used = rolledBack
      ? await replayShard(deps.store, shard, {
          useExport: options.useExport,
          indexSeqsAbove: fenced.durableSeq,
          targetPosition: fenced.walNextPos,
          onProgress: progress,
        })
      : replay;
    return completeRebuild(deps, {
      shard,
      fenced,
      replay: used,
      report: rolledBack ? initialReport(shard, used, snapshotCursors(before)) : report,
      started,
      indexSeqsAbove: Math.min(before?.durableSeq ?? 0, fenced.durableSeq),
      onProgress: progress,
      poisonAfterStop: (stop) => (underRebuild ? stoppedPoison(shard, stop) : before?.poison),
    });
  });
}

/** A rebuild past its fence (steps 4-6), as a rebuild or a takeover hands it over. */
export interface FencedRebuild {
  shard: string;
  /** The record as the fence left it. */
  fenced: ShardRecord;
  /** The replay so far (steps 2, ended at the end of the chain). */
  replay: Replay;
  report: RebuildReport;
  started: number;
  /** Remember the seq spans of objects above this seq (reconciliation reads them). */
  indexSeqsAbove: number;
  onProgress?: ProgressListener | undefined;
  /** The poison the shard keeps when the catch-up stops (undefined: none). */
  poisonAfterStop: (stop: StopReport | null) => string | undefined;
}

/**
 * Runs `work` with the fence's lease renewed every third of it (F4 in
 * `lib/fence/lease-keeper.ts`), so the lease lapses only once this process
 * stops: a live rebuild, however long, is never taken over (T1 in `takeover.ts`).
 */
export async function holdFence<T>(
  deps: RecoveryDeps,
  fenced: ShardRecord,
  work: () => Promise<T>,
): Promise<T> {
  const keeper = keepLease({
    table: deps.table,
    shard: fenced.shard,
    epoch: fenced.epoch,
    owner: deps.owner,
    leaseMs: deps.leaseMs,
    now: deps.now,
    timers: deps.timers,
  });
  try {
    return await work();
  } finally {
    keeper.stop();
  }
}

/** Steps 4-6 under the fence. */
export async function completeRebuild(
  deps: RecoveryDeps,
  run: FencedRebuild,
): Promise<RebuildReport> {
  const { shard, fenced, replay, report } = run;
  const progress = run.onProgress;
  const hit = async (point: RebuildFaultPoint) => deps.faults?.(point, shard);
  const finish = () => finishReport(report, replay, deps.now() - run.started);
  await hit(RebuildFaultPoint.afterFence);

  // 4. Catch up.
  await extendReplay(deps.store, replay, Phase.catchUp, {
    indexSeqsAbove: run.indexSeqsAbove,
    targetPosition: fenced.walNextPos,
    onProgress: progress,
  });
  if (replay.walk.stop.reason !== 'end') {
    await releaseRebuildFence(
      deps.table,
      shard,
      fenced,
      run.poisonAfterStop(stopReport(replay.walk.stop)),
    );
    return finish();
  }
  await hit(RebuildFaultPoint.afterCatchUp);

  // 5. Reconcile batch items.
  const proven = replay.walk.end;
  const generation = fenced.generation + 1;
  progress?.({ shard, phase: Phase.batches, position: proven.position, rows: rowsRead(replay) });
  report.batches = await reconcileBatches(deps, {
    shard,
    fenced,
    proven,
    replay,
    generation,
    nowMs: deps.now(),
  });
  await hit(RebuildFaultPoint.beforeReset);

  // 6. Reset the cursors.
  progress?.({ shard, phase: Phase.commit, position: proven.position, rows: rowsRead(replay) });
  const after = await resetCursors(deps.table, shard, {
    epoch: fenced.epoch,
    durableSeq: proven.lastSeq,
    walNextPos: proven.position,
    nextRowOffset: proven.nextRowOffset,
    // Above every pending batch too: a record restored from a backup may be behind them.
    nextSeq: Math.max(fenced.nextSeq, proven.lastSeq + 1, (report.batches.pending.toSeq ?? 0) + 1),
    releasedBytes: report.batches.releasedThrough,
    generation: fenced.generation,
    aofWatermark: replay.export?.coveredPosition ?? 0,
    nowMs: deps.now(),
  });
  report.status = after ? 'rebuilt' : 'fenced-out';
  report.cursors.after = snapshotCursors(after);
  if (!after) {
    report.warnings.push(
      `a later fence (epoch above ${fenced.epoch}) took the shard during the rebuild; its cursors were not reset by this run`,
    );
  }
  return finish();
}

/**
 * The poison a shard keeps when a rebuild run over another rebuild's fence
 * (a takeover, or a recover of a shard under a fence) stops: S3 no longer
 * replays to the end (it did when the first fence was taken), which needs an
 * operator. The "in progress" text is not put back: no taker acts on it again.
 */
export function stoppedPoison(shard: string, stop: StopReport | null): string {
  const where = stop ? ` at ${stop.key} (${stop.reason}: ${stop.detail})` : '';
  return `recovery: a rebuild after another rebuild's fence stopped${where}; the shard stays closed until \`shardwal recover ${shard}\` rebuilds it`;
}

/** The report of a rebuild before its fence. */
export function initialReport(
  shard: string,
  replay: Replay,
  before: RebuildReport['cursors']['before'],
): RebuildReport {
  return {
    kind: 'rebuild',
    shard,
    status: 'stopped',
    export: replay.export ?? null,
    fallbacks: replay.fallbacks,
    warnings: replay.warnings,
    replayed: { fromPosition: 0, toPosition: 0, objects: 0, walRows: 0, exportRows: 0 },
    liveKeys: 0,
    keylessRows: 0,
    stoppedAt: null,
    skippedObjects: 0,
    batches: null,
    cursors: { before, after: null },
    durationMs: 0,
  };
}

/** Completes, logs and counts `report`. */
export function finishReport(
  report: RebuildReport,
  replay: Replay,
  durationMs: number,
): RebuildReport {
  const { walk, state } = replay;
  report.replayed = {
    fromPosition: walk.start.position,
    toPosition: walk.end.position,
    objects: walk.objects,
    walRows: walk.rows,
    exportRows: replay.exportRows,
  };
  report.liveKeys = replay.keyedComplete ? state.keyed.size : null;
  report.keylessRows = state.keylessCount;
  report.stoppedAt = stopReport(walk.stop);
  report.skippedObjects =
    walk.beyond + (report.stoppedAt && report.stoppedAt.reason !== 'gap' ? 1 : 0);
  report.durationMs = durationMs;
  const summary = {
    shard: report.shard,
    status: report.status,
    export: report.export?.key ?? null,
    replayed: report.replayed,
    stoppedAt: report.stoppedAt,
    rejected: report.batches?.rejected.length ?? 0,
    durationMs,
  };
  metrics.addMetric(Metric.rebuildRows, MetricUnit.Count, walk.rows + replay.exportRows);
  metrics.addMetric(Metric.rebuildDurationMs, MetricUnit.Milliseconds, durationMs);
  if (report.batches && report.batches.rejectedRows > 0) {
    metrics.addMetric(Metric.rowsRejected, MetricUnit.Count, report.batches.rejectedRows);
    logger.error('rebuild rejected rows whose seq is already durable in S3 with other content', {
      shard: report.shard,
      rejected: report.batches.rejected.map((r) => ({
        seq: r.seq,
        rows: r.rowCount,
        quarantineKey: r.quarantineKey,
      })),
    });
  }
  if (report.status === 'stopped') {
    metrics.addMetric(Metric.rebuildsStopped, MetricUnit.Count, 1);
    logger.error('rebuild stopped', summary);
  } else {
    logger.info('rebuild', summary);
  }
  return report;
}

function rowsRead(replay: Replay): number {
  return replay.exportRows + replay.walk.rows;
}
