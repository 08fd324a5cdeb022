/**
 * The takeover of an abandoned rebuild. A rebuild killed between its fence
 * and its cursor reset (kill -9 of `shardwal recover`, a recovery Lambda
 * timing out, a table error) leaves its shard closed: poisoned "rebuild in
 * progress", marked with the fence's epoch, under the fence's lease. Once the
 * lease lapses the next tick (the fenced shard is in the pending index, and
 * its refused claim reads the record), verify (with heals) or recover takes
 * the rebuild over and finishes it: fence again, replay, catch up, reconcile,
 * reset, exactly as `rebuild.ts` does.
 *
 * Invariants kept here:
 * T1. A live rebuild is never taken over: it renews its lease every third of
 *     the lease while it holds the fence (`holdFence` in `rebuild.ts`, F4), and
 *     a taker acts only once the lease expired more than the clock skew ago.
 *     The lease lapses only when its rebuild stopped renewing it (died, or
 *     stalled for longer than a lease: then T4 holds).
 * T2. One taker wins: the takeover fence is conditional on the rebuild mark
 *     naming the current epoch and the lease having lapsed, and it bumps the
 *     epoch and takes a fresh lease, which falsifies the condition for every
 *     other taker (R7 in `reset-cursors.ts`).
 * T3. Finishing is safe: a rebuild's result is a function of S3 and of the
 *     fenced record, and neither moved while the shard was fenced. No put
 *     allocates and no flusher claims under the poison (R2), and a fence
 *     changes no cursor, so the taker reads the same `durableSeq`, `nextSeq`,
 *     `walNextPos` and `generation` the abandoned rebuild fenced; the WAL
 *     chain below `walNextPos` is immutable, and an append a fenced flusher
 *     made at `walNextPos` is caught up by either. Every write between fence
 *     and reset is idempotent: voids are sealed conditionally (an existing
 *     void is kept), a quarantine copy is keyed by the generation the reset
 *     has not yet bumped (the taker writes the same keys) and is written
 *     before its original is deleted, and the reset applies once (R5). So the
 *     taker resets the cursors to what the abandoned rebuild would have, and
 *     a batch quarantined by the abandoned run stays in the quarantine.
 * T4. An abandoned rebuild that wakes after the takeover changes nothing the
 *     taker did not also do: its lease renewals, its reset and its release
 *     are conditional on its own epoch, which the takeover fence passed
 *     (R3, F4), and its reconciliation writes are the idempotent ones of T3.
 * T5. Finishing, not rolling back. Lifting the fence with the old cursors
 *     cannot be shown safe: the fence overwrote the poison that prompted the
 *     rebuild (a divergence the old cursors still carry), and reconciliation
 *     may already have quarantined batches and sealed voids the old cursors
 *     would read as gaps to seal or seqs to flush. Finishing needs nothing
 *     the fence lost. If S3 no longer replays to the end, the taker lifts the
 *     fence with a poison naming the stop (`stoppedPoison`): the shard stays
 *     closed for an operator, and no taker runs again.
 * T6. Cheap to notice: the fence puts the shard in the pending index (R7), so
 *     a tick meets it among the shards it already lists; its claim is refused
 *     by the poison and the refusal reads the record, which carries the mark
 *     and the lease. No scan, and no extra request while the lease is live.
 *
 * The bound (L6 in `lib/liveness.ts`): a shard whose rebuild died is taken
 * over within lease + clock skew + one flush interval of the rebuild's last
 * lease renewal (7 s with the defaults), and open again once the taker's
 * rebuild has run.
 */
import { releaseRebuildFence, takeOverRebuildFence } from '../memtable/reset-cursors.js';
import {
  type RebuildFence,
  readShardRecord,
  rebuildFenceLapsed,
  rebuildFenceOf,
  snapshotCursors,
} from '../memtable/shard-record.js';
import { logger } from '../observability/telemetry.js';
import { assertShardName } from '../paths.js';
import type { RecoveryDeps } from './deps.js';
import type { ProgressListener } from './progress.js';
import {
  completeRebuild,
  finishReport,
  holdFence,
  initialReport,
  stoppedPoison,
} from './rebuild.js';
import type { RebuildReport } from './rebuild-report.js';
import { replayShard } from './replay.js';
import { type StopReport, stopReport } from './stop-report.js';

/** Takes over a rebuild as `fence` saw it, when lapsed; what a tick or a flush worker calls. */
export type RebuildTakeover = (
  shard: string,
  fence: RebuildFence,
) => Promise<RebuildReport | undefined>;

/** True when `fence` may be taken over at the deps' time (T1). */
export function takeoverDue(deps: RecoveryDeps, fence: RebuildFence): boolean {
  return rebuildFenceLapsed(fence, deps.now(), deps.clockSkewMs ?? 0);
}

/**
 * Takes over the rebuild fencing `shard` when its lease has lapsed (T1, T2)
 * and finishes it (T3); undefined, without a request, when `seen` (the fence
 * as the caller read it) is not due, and without a change when the record
 * shows no lapsed rebuild fence any more.
 */
export async function takeOverRebuild(
  deps: RecoveryDeps,
  shard: string,
  seen?: RebuildFence,
  options: { onProgress?: ProgressListener } = {},
): Promise<RebuildReport | undefined> {
  assertShardName(shard);
  let abandoned = seen;
  if (!abandoned) {
    const record = await readShardRecord(deps.table, shard);
    abandoned = record && rebuildFenceOf(record);
  }
  if (!abandoned || !takeoverDue(deps, abandoned)) return undefined;
  const started = deps.now();
  const fenced = await takeOverRebuildFence(deps.table, shard, {
    owner: deps.owner,
    nowMs: started,
    leaseMs: deps.leaseMs,
    reason: `recovery: rebuild by ${deps.owner} (taking over an abandoned one) in progress since ${new Date(started).toISOString()}`,
    lapsedBeforeMs: started - (deps.clockSkewMs ?? 0),
  });
  if (!fenced) return undefined; // live again, finished, or another taker won (T2)
  const took = `took over the rebuild by ${abandoned.owner ?? 'unknown'} under epoch ${abandoned.epoch}, whose lease expired at ${new Date(abandoned.leaseExpiresAtMs ?? 0).toISOString()}`;
  logger.warn(took, { shard, epoch: fenced.epoch });
  return holdFence(deps, fenced, async () => {
    // The shard is closed already: the replay runs under the fence (T3).
    const replay = await replayShard(deps.store, shard, {
      indexSeqsAbove: fenced.durableSeq,
      targetPosition: fenced.walNextPos,
      onProgress: options.onProgress,
    });
    const report = initialReport(shard, replay, snapshotCursors(fenced));
    report.warnings.unshift(took);
    const poisonAfterStop = (stop: StopReport | null) => stoppedPoison(shard, stop);
    if (replay.walk.stop.reason !== 'end') {
      await releaseRebuildFence(
        deps.table,
        shard,
        fenced,
        poisonAfterStop(stopReport(replay.walk.stop)),
      );
      return finishReport(report, replay, deps.now() - started);
    }
    return completeRebuild(deps, {
      shard,
      fenced,
      replay,
      report,
      started,
      indexSeqsAbove: fenced.durableSeq,
      onProgress: options.onProgress,
      poisonAfterStop,
    });
  });
}
