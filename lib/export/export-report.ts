/** The report of an export: plain JSON, rendered to text by `lib/recovery/render.ts`. */
import type { ExportFallback } from '../recovery/export-source.js';
import type { StopReport } from '../recovery/stop-report.js';
import type { RetentionReport } from './retention.js';

/** How an export run ended for one shard. */
export const ExportStatus = {
  /** A new export was written and its watermark recorded. */
  exported: 'exported',
  /** The export at the target already existed (a crashed or racing export), verified; watermark recorded. */
  adopted: 'adopted',
  /** The WAL has not advanced past the watermark. */
  upToDate: 'up-to-date',
  /** Not exported on purpose (poisoned shard, record behind S3); `reason` says why. */
  skipped: 'skipped',
  /** The WAL tail or the existing export is broken; `reason` names it. */
  failed: 'failed',
} as const;
export type ExportStatus = (typeof ExportStatus)[keyof typeof ExportStatus];

/** The outcome of exporting one shard. */
export interface ExportReport {
  kind: 'export';
  shard: string;
  status: ExportStatus;
  reason: string | null;
  /** The export's key and covered position (written, adopted or attempted). */
  key: string | null;
  coveredPosition: number | null;
  /** The export folded from; null when folded from WAL position 0. */
  base: { key: string; coveredPosition: number } | null;
  fallbacks: ExportFallback[];
  warnings: string[];
  folded: {
    fromPosition: number;
    toPosition: number;
    objects: number;
    walRows: number;
    exportRows: number;
    puts: number;
    deletes: number;
    keyless: number;
  } | null;
  stoppedAt: StopReport | null;
  liveKeys: number;
  keylessRows: number;
  /** Compressed size of the export. */
  bytes: number;
  watermark: { before: number; after: number };
  retention: RetentionReport | null;
  durationMs: number;
}
