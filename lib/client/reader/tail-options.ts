/**
 * What `tailShard` takes and gives: its options with their defaults and
 * checks, the rows it yields and the notices it reports on the side.
 */
import { InvalidInputError } from '../../errors.js';
import type { WalRow } from '../../wal/format.js';

/**
 * One durable row, in the shape of the WAL's rows: `seq` (the batch it was
 * put in), `offset` (shard-wide, strictly ascending along a tail), and a
 * keyless row (`text`), a keyed upsert (`key` and `text`) or a keyed delete
 * (`key` and `delete`). `text` and `key` are JSON text exactly as put
 * (`lib/rows`): print them verbatim, never re-serialize.
 */
export type TailRow = Omit<WalRow, 'ingestedAtMs'>;

/** Where a tail starts: a seq, or `'end'` for only what commits after it started. */
export type TailFrom = number | 'end';

/** Options of `tailShard`. */
export interface TailOptions {
  /** First seq to yield (rows with `seq >= fromSeq`); `'end'`: after the durable end; default: the oldest kept row. */
  fromSeq?: TailFrom;
  /** Keep waiting for new WAL objects at the end instead of returning (default false). */
  follow?: boolean;
  /** Wait after the first miss at the end; doubles per miss up to `maxPollMs` (default 1000). */
  pollMs?: number;
  /** Cap of the backed-off wait (default 8000). */
  maxPollMs?: number;
  /**
   * While waiting, how often to list once to tell the end of the WAL from a
   * position retention retired (default 60000). A position known to exist
   * is checked at once.
   */
  recheckMs?: number;
  /** Segments up to this many uncompressed bytes are verified in one read, held in memory; larger ones are read twice (default 8 MiB). */
  segmentBufferBytes?: number;
  /** Ends the iteration (it returns, no error) at the next row (batch, for `tailShardBatches`) or wait. */
  signal?: AbortSignal;
  /** What a person should know about the read: which export, what is not history, a fallback. */
  onNotice?: (notice: TailNotice) => void;
  /** Injected for tests: waits `ms`, resolving early when `signal` aborts. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Injected for tests: the clock `recheckMs` is measured on. */
  now?: () => number;
}

/** Defaults of `TailOptions`. */
export const TAIL_DEFAULTS = {
  pollMs: 1000,
  maxPollMs: 8000,
  recheckMs: 60_000,
  segmentBufferBytes: 8 * 1024 * 1024,
} as const;

/** Kinds of `TailNotice`. */
export const TailNoticeKind = {
  /** Where the read starts: the export it reads below the watermark, the WAL position after it. */
  start: 'start',
  /** The newest export did not verify and an older one is read instead. */
  exportFallback: 'export-fallback',
  /** Keyed changes below an export's position are not history (the snapshot keeps only the newest row per key). */
  keyedHistory: 'keyed-history',
  /** History retention dropped rows below the floor; the read starts at the oldest kept row. */
  historyFloor: 'history-floor',
  /** The next WAL position was retired while the reader was behind; its rows come from a newer export's segments. */
  retired: 'retired',
} as const;
export type TailNoticeKind = (typeof TailNoticeKind)[keyof typeof TailNoticeKind];

/** Something about the read a person should know; `message` says it in a sentence. */
export interface TailNotice {
  kind: TailNoticeKind;
  message: string;
  /** The WAL position the notice is about, where there is one. */
  position?: number;
  /** Where the range of positions it is about ends (exclusive), for `retired`. */
  endPosition?: number;
}

/** The options, checked, with defaults applied. */
export interface TailSettings {
  fromSeq: TailFrom | undefined;
  follow: boolean;
  pollMs: number;
  maxPollMs: number;
  recheckMs: number;
  segmentBufferBytes: number;
  signal: AbortSignal | undefined;
  notice: (notice: TailNotice) => void;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  now: () => number;
}

function positive(name: string, value: number | undefined, fallback: number): number {
  const chosen = value ?? fallback;
  if (!Number.isSafeInteger(chosen) || chosen < 1) {
    throw new InvalidInputError(name, `expected a positive integer, got ${chosen}`);
  }
  return chosen;
}

/** Checks `options` (each bad value an `InvalidInputError` naming it) and fills in the defaults. */
export function tailSettings(options: TailOptions): TailSettings {
  const { fromSeq } = options;
  if (fromSeq !== undefined && fromSeq !== 'end') positive('fromSeq', fromSeq, 1);
  const pollMs = positive('pollMs', options.pollMs, TAIL_DEFAULTS.pollMs);
  const maxPollMs = positive(
    'maxPollMs',
    options.maxPollMs,
    Math.max(pollMs, TAIL_DEFAULTS.maxPollMs),
  );
  if (maxPollMs < pollMs) {
    throw new InvalidInputError(
      'maxPollMs',
      `expected at least pollMs (${pollMs}), got ${maxPollMs}`,
    );
  }
  return {
    fromSeq,
    follow: options.follow ?? false,
    pollMs,
    maxPollMs,
    recheckMs: positive('recheckMs', options.recheckMs, TAIL_DEFAULTS.recheckMs),
    segmentBufferBytes: positive(
      'segmentBufferBytes',
      options.segmentBufferBytes,
      TAIL_DEFAULTS.segmentBufferBytes,
    ),
    signal: options.signal,
    notice: options.onNotice ?? (() => {}),
    sleep: options.sleep ?? abortableSleep,
    now: options.now ?? Date.now,
  };
}

/** Waits `ms`, or less when `signal` aborts first. */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
