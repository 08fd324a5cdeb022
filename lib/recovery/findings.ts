/**
 * What verify reports: findings (something is wrong; an operator acts) and
 * heals (something was wrong and provably safe to fix, so verify fixed it).
 * Each is one structured log line and one `VerifyFindings` / `VerifyHeals`
 * metric with a `kind` dimension, so an alarm can watch one kind.
 */
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { Metric } from '../observability/metric-names.js';
import { logger, metrics } from '../observability/telemetry.js';

/** Kinds of finding. */
export const FindingKind = {
  /** S3 holds objects of a shard the table has no record of. */
  recordMissing: 'record-missing',
  /** The watermark names an export that does not exist. */
  exportMissing: 'export-missing',
  /** The watermark's export does not verify. */
  exportInvalid: 'export-invalid',
  /** A snapshot part or segment the watermark's manifest lists is missing, or (full check) a part does not verify. */
  exportIncomplete: 'export-incomplete',
  /** An export covers positions the record has not committed: the record is behind S3. */
  exportBeyondRecord: 'export-beyond-record',
  /** A WAL position is missing while a later one exists. */
  walGap: 'wal-gap',
  /** A WAL object fails verification (checksum, truncation, rules, unknown tag). */
  walCorrupt: 'wal-corrupt',
  /** A WAL object is in a format version this reader does not know. */
  walUnknownVersion: 'wal-unknown-version',
  /** A WAL object does not start where the previous one ended (seq or row offset). */
  walDiscontinuity: 'wal-discontinuity',
  /** The record has committed positions S3 does not hold: the record is ahead of S3. */
  walMissing: 'wal-missing',
  /** S3 holds objects beyond the record's `walNextPos` that are not one valid pending append. */
  walBeyondRecord: 'wal-beyond-record',
  /** `durableSeq` is not the last seq of the WAL prefix the record covers. */
  durableSeqMismatch: 'durable-seq-mismatch',
  /** `nextRowOffset` is not where the WAL prefix the record covers ends. */
  rowOffsetMismatch: 'row-offset-mismatch',
  /** `nextSeq` is at or below `durableSeq`. */
  seqCounterBehind: 'seq-counter-behind',
  /** The watermark is above `walNextPos`. */
  watermarkAhead: 'watermark-ahead',
  /** The shard is poisoned (the reason is the detail); rebuild is the way out. */
  poisoned: 'poisoned',
  /** An Iceberg table append left typed values null: their declared type cannot hold them exactly (the row column keeps them). */
  tableValuesRefused: 'table-values-refused',
} as const;
export type FindingKind = (typeof FindingKind)[keyof typeof FindingKind];

/** One thing verify found wrong. */
export interface Finding {
  kind: FindingKind;
  shard: string;
  /** The WAL (or export covered) position it concerns, when it concerns one. */
  position?: number;
  detail: string;
}

/** One thing verify found about an Iceberg table (`lib/table`), not about one shard. */
export interface TableFinding {
  kind: FindingKind;
  table: string;
  /** The shards whose rows it concerns. */
  shards: string[];
  detail: string;
}

/** Kinds of heal. */
export const HealKind = {
  /** A lease that expired was removed (it blocked nobody; the record is tidy again). */
  expiredLeaseCleared: 'expired-lease-cleared',
  /** An allocated seq left unwritten past `gapSealMs` was sealed void, as the flusher would. */
  gapSealed: 'gap-sealed',
  /** Pending batch items near their expiry had it extended: a stalled shard loses nothing (L5). */
  pendingExpiryExtended: 'pending-expiry-extended',
  /** A pending batch's spilled payload neared the lifecycle rule's age and was copied to a fresh key. */
  spilledPayloadCopied: 'spilled-payload-copied',
  /** A rebuild whose fence lease lapsed (it died after fencing) was taken over and finished (L6). */
  rebuildTakenOver: 'rebuild-taken-over',
} as const;
export type HealKind = (typeof HealKind)[keyof typeof HealKind];

/** One thing verify fixed, because fixing it was provably safe. */
export interface Heal {
  kind: HealKind;
  shard: string;
  seq?: number;
  detail: string;
}

/** Logs a finding and counts it under its kind. */
export function reportFinding(finding: Finding): void {
  logger.error('verify finding', { ...finding });
  countByKind(Metric.verifyFindings, finding.kind);
}

/** Logs a table finding and counts it under its kind, as `reportFinding` does. */
export function reportTableFinding(finding: TableFinding): void {
  logger.error('verify finding', { ...finding });
  countByKind(Metric.verifyFindings, finding.kind);
}

/** Logs a heal and counts it under its kind. */
export function reportHeal(heal: Heal): void {
  logger.warn('verify healed', { ...heal });
  countByKind(Metric.verifyHeals, heal.kind);
}

function countByKind(name: string, kind: string): void {
  const single = metrics.singleMetric();
  single.addDimension('kind', kind);
  single.addMetric(name, MetricUnit.Count, 1);
}
