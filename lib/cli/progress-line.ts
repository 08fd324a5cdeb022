/**
 * One line of progress on the CLI's stderr, shared by the long jobs
 * (`progress.ts`) and `shardwal put` (`put-report.ts`). On a terminal it is
 * redrawn in place (at most ten times a second) and erased before the report
 * prints; elsewhere nothing, unless the caller forces it (`--progress`), and
 * then one plain line a second, so a log file stays short.
 */
import type { Writable } from 'node:stream';

/** Milliseconds between two redraws on a terminal, and between two lines elsewhere. */
const TTY_REDRAW_MS = 100;
const PLAIN_LINE_MS = 1_000;

/** Erase the current terminal line and return to its start. */
const CLEAR_LINE = '\r\x1b[2K';

/** A running line: `show` as often as you like, `end` before printing the report. */
export interface ProgressLine<E> {
  /** Shows `event`'s text when it is time to; undefined when no progress is shown. */
  show: ((event: E) => void) | undefined;
  /** Erases the line (terminal). */
  end: () => void;
}

/** True when `stream` is a terminal. */
function isTerminal(stream: Writable): boolean {
  return (stream as Partial<NodeJS.WriteStream>).isTTY === true;
}

/**
 * A progress line on `stream` whose text is `text(event, elapsedMs)`: on a
 * terminal always, elsewhere only when `forced`.
 */
export function progressLine<E>(
  stream: Writable,
  text: (event: E, elapsedMs: number) => string,
  options: { forced: boolean; now?: () => number },
): ProgressLine<E> {
  const terminal = isTerminal(stream);
  if (!terminal && !options.forced) return { show: undefined, end: () => {} };
  const now = options.now ?? Date.now;
  const started = now();
  const everyMs = terminal ? TTY_REDRAW_MS : PLAIN_LINE_MS;
  let lastAt = Number.NEGATIVE_INFINITY;
  let drawn = false;
  return {
    show: (event) => {
      const at = now();
      if (at - lastAt < everyMs) return;
      lastAt = at;
      const line = text(event, at - started);
      if (terminal) {
        const columns = (stream as Partial<NodeJS.WriteStream>).columns ?? 80;
        // One line that fits: a wrapped line cannot be redrawn in place.
        stream.write(`${CLEAR_LINE}${line.slice(0, Math.max(1, columns - 1))}`);
        drawn = true;
      } else {
        stream.write(`${line}\n`);
      }
    },
    end: () => {
      if (drawn) stream.write(CLEAR_LINE);
      drawn = false;
    },
  };
}
