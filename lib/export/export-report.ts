/** The report of an export: plain JSON, rendered to text by `render.ts`. */
import type { ExportFallback, ExportKind } from '../recovery/export-source.js';
import type { StopReport } from '../recovery/stop-report.js';
import type { FoldWrites } from './fold-export.js';
import type { RetentionReport } from './retention.js';

/** How an export run ended for one shard. */
export const ExportStatus = {
  /** A new manifest was written and its watermark recorded. */
  exported: 'exported',
  /** The manifest at the target already existed (a crashed or racing export), verified; watermark recorded. */
  adopted: 'adopted',
  /** The WAL has not advanced past the watermark. */
  upToDate: 'up-to-date',
  /** Not exported on purpose (poisoned shard, record behind S3); `reason` says why. */
  skipped: 'skipped',
  /** The WAL tail, the existing manifest or a leftover object is broken or conflicting; `reason` names it. */
  failed: 'failed',
} as const;
export type ExportStatus = (typeof ExportStatus)[keyof typeof ExportStatus];

/** The outcome of exporting one shard. */
export interface ExportReport {
  kind: 'export';
  shard: string;
  status: ExportStatus;
  reason: string | null;
  /** The manifest's key and covered position (written, adopted or attempted). */
  key: string | null;
  coveredPosition: number | null;
  /** The export folded onto (a manifest, or a legacy AOF export converted once); null: WAL position 0. */
  base: { key: string; coveredPosition: number; kind: ExportKind } | null;
  fallbacks: ExportFallback[];
  warnings: string[];
  folded: {
    fromPosition: number;
    toPosition: number;
    objects: number;
    walRows: number;
    /** Rows read from a legacy base export (a manifest base is never read). */
    exportRows: number;
    puts: number;
    deletes: number;
    keyless: number;
  } | null;
  /** Objects this export stored or reused. */
  writes: FoldWrites | null;
  stoppedAt: StopReport | null;
  /** Live keys when known (after a compaction, or a lone base part); null otherwise. */
  liveKeys: number | null;
  /** Keyless rows the manifest's segments hold. */
  keylessRows: number;
  /** Segments and parts the manifest lists. */
  segments: number;
  parts: number;
  historyFloor: number;
  /** Compressed bytes this export created: segments, parts and the manifest. */
  bytes: number;
  watermark: { before: number; after: number };
  retention: RetentionReport | null;
  durationMs: number;
}
