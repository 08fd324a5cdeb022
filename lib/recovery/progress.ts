/**
 * Progress of a long export, verify or rebuild, for a terminal (the CLI draws
 * it) or a log. Events arrive in order, at least once per WAL object and
 * every `PROGRESS_ROWS` rows of an export; listeners must be cheap.
 */

/** Phases, in the order a rebuild passes them (export and verify use a subset). */
export const Phase = {
  export: 'export',
  wal: 'wal',
  catchUp: 'catch-up',
  write: 'write',
  batches: 'batches',
  commit: 'commit',
  retention: 'retention',
} as const;
export type Phase = (typeof Phase)[keyof typeof Phase];

/** One progress event. */
export interface ProgressEvent {
  shard: string;
  phase: Phase;
  /** The next WAL position to read (the walk's cursor). */
  position?: number;
  /** The position the walk expects to reach, when known (the record's `walNextPos`). */
  targetPosition?: number;
  /** Rows read so far in this run (export rows included). */
  rows: number;
}

/** Receives progress events. */
export type ProgressListener = (event: ProgressEvent) => void;

/** Rows between two events while an export is read. */
export const PROGRESS_ROWS = 50_000;
