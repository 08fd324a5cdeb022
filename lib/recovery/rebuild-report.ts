/** The report of a rebuild: plain JSON (what `--json` prints), rendered to text by `render.ts`. */
import type { CursorSnapshot } from '../memtable/shard-record.js';
import type { ExportFallback } from './export-source.js';
import type { Reconciliation } from './reconcile-batches.js';
import type { ExportUsed } from './replay.js';
import type { StopReport } from './stop-report.js';

/** The outcome of one rebuild. */
export interface RebuildReport {
  kind: 'rebuild';
  shard: string;
  /**
   * `rebuilt`: cursors reset to what S3 proves. `stopped`: the chain is broken
   * at `stoppedAt`; nothing was reset. `fenced-out`: a later rebuild took over.
   */
  status: 'rebuilt' | 'stopped' | 'fenced-out';
  /** The export replayed from; null when the whole WAL was replayed. */
  export: ExportUsed | null;
  /** Newer exports passed over because they did not verify. */
  fallbacks: ExportFallback[];
  /** Loud conditions an operator must see (a fallback, no export, a lost race). */
  warnings: string[];
  replayed: {
    fromPosition: number;
    /** First position not replayed. */
    toPosition: number;
    objects: number;
    walRows: number;
    exportRows: number;
  };
  /** Live keys, when the replay held them all (a legacy export, or no export); null otherwise. */
  liveKeys: number | null;
  keylessRows: number;
  stoppedAt: StopReport | null;
  /** WAL objects at or beyond the stop that were not replayed. */
  skippedObjects: number;
  /** Batch item reconciliation; null when the rebuild stopped before it. */
  batches: Reconciliation | null;
  cursors: { before: CursorSnapshot | null; after: CursorSnapshot | null };
  durationMs: number;
}
