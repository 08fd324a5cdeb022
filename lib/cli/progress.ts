/**
 * Progress of a long export, verify or rebuild on the CLI's stderr. On a
 * terminal it is one line, redrawn in place (at most ten times a second) and
 * erased before the report prints; elsewhere nothing, unless `--progress`
 * asks for it, and then one plain line a second, so a log file stays short.
 *
 *   export orders: wal 812/2,040, 1,624,000 rows, 3.2 s
 */
import type { Writable } from 'node:stream';
import type { ProgressEvent, ProgressListener } from '../recovery/progress.js';

/** Milliseconds between two redraws on a terminal, and between two lines elsewhere. */
const TTY_REDRAW_MS = 100;
const PLAIN_LINE_MS = 1_000;

/** Erase the current terminal line and return to its start. */
const CLEAR_LINE = '\r\x1b[2K';

/** A running progress display. */
export interface ProgressDisplay {
  /** Pass to the library; undefined when no progress is shown. */
  listener: ProgressListener | undefined;
  /** Erases the line (terminal); call before printing the report. */
  end: () => void;
}

/** True when `stream` is a terminal. */
export function isTerminal(stream: Writable): boolean {
  return (stream as Partial<NodeJS.WriteStream>).isTTY === true;
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
  const terminal = isTerminal(stream);
  if (!terminal && !options.forced) return { listener: undefined, end: () => {} };
  const now = options.now ?? Date.now;
  const started = now();
  const everyMs = terminal ? TTY_REDRAW_MS : PLAIN_LINE_MS;
  let lastAt = Number.NEGATIVE_INFINITY;
  let drawn = false;
  const listener: ProgressListener = (event) => {
    const at = now();
    if (at - lastAt < everyMs) return;
    lastAt = at;
    const text = progressText(job, event, at - started);
    if (terminal) {
      const columns = (stream as Partial<NodeJS.WriteStream>).columns ?? 80;
      // One line that fits: a wrapped line cannot be redrawn in place.
      stream.write(`${CLEAR_LINE}${text.slice(0, Math.max(1, columns - 1))}`);
      drawn = true;
    } else {
      stream.write(`${text}\n`);
    }
  };
  return {
    listener,
    end: () => {
      if (drawn) stream.write(CLEAR_LINE);
      drawn = false;
    },
  };
}
