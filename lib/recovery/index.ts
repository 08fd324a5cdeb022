/**
 * Recovery: verify shards against S3 and rebuild a shard from its export (a
 * manifest, or a legacy AOF export) and the WAL tail after it
 * (docs/recovery.md). The contract:
 *
 * 1. The newest export that verifies is the authority; WAL objects below the
 *    position it covers are never read. An export that does not verify is
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
 *
 * This index is the API the CLI and the recovery function call.
 */
export { listRejectedBatches, type RejectedBatch } from '../memtable/quarantine.js';
export { type CursorSnapshot, snapshotCursors } from '../memtable/shard-record.js';
export { type RecoveryDeps, type RecoveryParts, recoveryDeps, recoveryDepsFrom } from './deps.js';
export type { ExportFallback } from './export-source.js';
export { type RebuildFaultHook, RebuildFaultPoint } from './fault-points.js';
export { type Finding, FindingKind, type Heal, HealKind } from './findings.js';
export { Phase, type ProgressEvent, type ProgressListener } from './progress.js';
export { type RebuildOptions, rebuildShard } from './rebuild.js';
export type { RebuildReport } from './rebuild-report.js';
export type { Reconciliation, RejectedBatchReport } from './reconcile-batches.js';
export {
  handleRecoverEvent,
  parseRecoverEvent,
  RecoverMode,
  type RecoverRequest,
} from './recover-event.js';
export {
  renderRebuildReport,
  renderVerifyAllReport,
  renderVerifyReport,
  reportJson,
} from './render.js';
export {
  type ExportUsed,
  NO_EXPORT_WARNING,
  type Replay,
  type ReplayOptions,
  replayShard,
} from './replay.js';
export type { StopReport } from './stop-report.js';
export { type RebuildTakeover, takeOverRebuild, takeoverDue } from './takeover.js';
export { type VerifyOptions, type VerifyReport, verifyShard } from './verify.js';
export { type VerifyAllOptions, type VerifyAllReport, verifyAll } from './verify-all.js';
