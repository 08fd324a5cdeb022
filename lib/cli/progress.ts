/**
 * Progress of a long export, verify or rebuild on the CLI's stderr: one
 * line (`progress-line.ts`: redrawn in place on a terminal; elsewhere only
 * with `--progress`, one plain line a second).
 *
 *   export orders: wal 812/2,040, 1,624,000 rows, 3.2 s
 */
import type { Writable } from 'node:stream';
import type { ProgressEvent, ProgressListener } from '../recovery/progress.js';
import { progressLine } from './progress-line.js';

/** A running progress display. */
export interface ProgressDisplay {
  /** Pass to the library; undefined when no progress is shown. */
  listener: ProgressListener | undefined;
  /** Erases the line (terminal); call before printing the report. */
  end: () => void;
}

/** The text of one event. */
function progressText(job: string, event: ProgressEvent, elapsedMs: number): string {
  const n = (value: number) => value.toLocaleString('en-US');
  const where =
    event.position === undefined
      ? ''
      : event.targetPosition === undefined
        ? ` ${n(event.position)}`
        : ` ${n(event.position)}/${n(event.targetPosition)}`;
  return `${job} ${event.shard}: ${event.phase}${where}, ${n(event.rows)} rows, ${(elapsedMs / 1000).toFixed(1)} s`;
}

/**
 * A display for `job` (e.g. `export`) on `stream`: on a terminal always,
 * elsewhere only when `forced` (`--progress`).
 */
export function progressDisplay(
  stream: Writable,
  job: string,
  options: { forced: boolean; now?: () => number },
): ProgressDisplay {
  const line = progressLine<ProgressEvent>(
    stream,
    (event, elapsedMs) => progressText(job, event, elapsedMs),
    options,
  );
  return { listener: line.show, end: line.end };
}
