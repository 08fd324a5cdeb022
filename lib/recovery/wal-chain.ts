/**
 * Walks a shard's WAL chain from a cursor, in position order, streaming each
 * object (bounded memory: one object's undo log at most), and stops at the
 * first thing that breaks the chain. Shared by export (which folds up to the
 * committed `walNextPos`), verify and rebuild (which go as far as S3 goes).
 *
 * The chain rules, checked object by object:
 * 1. Positions are contiguous from the start cursor: a missing position with
 *    a later one present is a gap.
 * 2. Each object decodes and verifies (version, tags, checksum, WAL rules);
 *    an unknown version is reported by its error's name, never skipped.
 * 3. Each object starts where the previous ended: `firstSeq = lastSeq + 1`
 *    and `firstRowOffset = nextRowOffset` (the decoder already checks that
 *    the header names this shard and position).
 * Rows reach `onRow` provisionally; when an object fails at its trailer the
 * caller's `rollbackObject` undoes them before the walk reports the stop.
 */
import type { Readable } from 'node:stream';
import { CorruptDataError } from '../errors.js';
import { positionOfKey, walKey, walPrefix } from '../paths.js';
import type { ObjectStore } from '../store/object-store.js';
import type { WalHeader, WalRow } from '../wal/format.js';
import { FrameReadAhead } from '../wal/frame-reader.js';
import { scanWal } from './wal-scan.js';

/** Where a chain stands after a prefix of it: the next position and the seq and offset it must start at. */
export interface ChainCursor {
  position: number;
  lastSeq: number;
  nextRowOffset: number;
}

/** An error as a report carries it. */
export interface ErrorSummary {
  name: string;
  message: string;
}

/** Why a walk stopped. */
export type ChainStop =
  | { reason: 'end' }
  | { reason: 'limit' }
  | { reason: 'gap'; position: number; key: string; nextPresent: number | undefined }
  | { reason: 'corrupt'; position: number; key: string; error: ErrorSummary }
  | { reason: 'discontinuity'; position: number; key: string; detail: string };

/** The result of a walk. */
export interface ChainWalk {
  start: ChainCursor;
  /** The cursor after the last object that verified. */
  end: ChainCursor;
  objects: number;
  rows: number;
  stop: ChainStop;
  /** WAL objects listed beyond the stop (not read); 0 when the walk reached the end or its limit. */
  beyond: number;
}

/** Callbacks and bounds of a walk. */
export interface WalkOptions {
  /** Stop before this position; a position missing below it is a gap even with nothing after it. */
  until?: number;
  /** Each row, in order; provisional until the object's `onObject`. A returned promise is awaited. */
  onRow?: (row: WalRow) => Promise<void> | undefined | void;
  /** False when `onRow` never reads a row's text (`WalSink.text`); default true. */
  rowText?: boolean;
  /** True when `onRow` keeps no row object past its call or the promise it returned (`WalSink.reuseRows`); default false. */
  reuseRows?: boolean;
  /** Called before an object's rows. */
  beginObject?: () => void;
  /** Called when an object failed after some of its rows reached `onRow`. */
  rollbackObject?: () => void;
  /** Called once an object verified, with its header and the cursor after it. */
  onObject?: (header: WalHeader, after: ChainCursor) => void;
  /**
   * Take the first object's seq and offset as given instead of checking them
   * against the start cursor (verify, when the export that should define them
   * is missing or invalid: that is its own finding).
   */
  trustFirstObject?: boolean;
}

/** An error's name and message; other values as text. */
export function summarize(error: unknown): ErrorSummary {
  return error instanceof Error
    ? { name: error.name, message: error.message }
    : { name: 'Error', message: String(error) };
}

/** Walks the chain of `shard` from `start`. */
export async function walkWalChain(
  store: ObjectStore,
  shard: string,
  start: ChainCursor,
  options: WalkOptions = {},
): Promise<ChainWalk> {
  const startAfter = start.position > 0 ? walKey(shard, start.position - 1) : undefined;
  const listing = positions(store.list(walPrefix(shard), { startAfter }));
  const walk: ChainWalk = {
    start,
    end: { ...start },
    objects: 0,
    rows: 0,
    stop: { reason: 'end' },
    beyond: 0,
  };
  try {
    walk.stop = await follow(store, shard, listing, walk, options);
    return walk;
  } finally {
    await listing.return(undefined);
  }
}

async function follow(
  store: ObjectStore,
  shard: string,
  listing: AsyncGenerator<{ position: number; key: string }, void, undefined>,
  walk: ChainWalk,
  options: WalkOptions,
): Promise<ChainStop> {
  let ahead: { position: number; opened: Promise<Opened | undefined> } | undefined;
  try {
    for (;;) {
      const expected = walk.end.position;
      if (options.until !== undefined && expected >= options.until) return { reason: 'limit' };
      const next = await listing.next();
      if (next.done) {
        return options.until === undefined
          ? { reason: 'end' }
          : {
              reason: 'gap',
              position: expected,
              key: walKey(shard, expected),
              nextPresent: undefined,
            };
      }
      const { position, key } = next.value;
      if (position !== expected) {
        walk.beyond = 1 + (await count(listing));
        return {
          reason: 'gap',
          position: expected,
          key: walKey(shard, expected),
          nextPresent: position,
        };
      }
      // The object opened ahead is this one (opened again if it was not there yet then).
      const previous = ahead;
      ahead = undefined;
      const reuse = previous?.position === position && key === walKey(shard, position);
      const opened = reuse
        ? previous!.opened.then((found) => found ?? open(store, key))
        : open(store, key);
      if (previous && !reuse) discard(previous.opened);
      if (options.until === undefined || position + 1 < options.until) {
        ahead = { position: position + 1, opened: open(store, walKey(shard, position + 1)) };
        ahead.opened.catch(() => undefined); // its error surfaces when it is read
      }
      const stop = await readObject(shard, key, opened, walk, options);
      if (stop) {
        walk.beyond = await count(listing);
        return stop;
      }
    }
  } finally {
    if (ahead) discard(ahead.opened);
  }
}

/** A WAL object being read: its stream, and its decompression started ahead of the scan. */
interface Opened {
  stream: Readable;
  readAhead: FrameReadAhead;
}

/**
 * Opens the object at `key` and starts decompressing it (undefined when it is
 * absent). The walk opens the next position while it scans the current one,
 * so the store's latency (an S3 GET's first byte) and zlib's work overlap the
 * scan instead of adding to it; memory holds one object's read-ahead.
 */
async function open(store: ObjectStore, key: string): Promise<Opened | undefined> {
  const stream = await store.getStream(key);
  return stream && { stream, readAhead: new FrameReadAhead(key, stream) };
}

/** Lets go of an object opened ahead that the walk did not read. */
function discard(opened: Promise<Opened | undefined>): void {
  opened.then(
    (found) => {
      found?.stream.destroy();
      void found?.readAhead.close();
    },
    () => undefined,
  );
}

/** Reads one object into the walk; returns why the chain stops there, if it does. */
async function readObject(
  shard: string,
  key: string,
  opening: Promise<Opened | undefined>,
  walk: ChainWalk,
  options: WalkOptions,
): Promise<ChainStop | undefined> {
  const position = walk.end.position;
  const opened = await opening;
  if (!opened) return { reason: 'gap', position, key, nextPresent: undefined };
  options.beginObject?.();
  let header: WalHeader | undefined;
  let detail: string | undefined;
  let rows = 0;
  try {
    const complete = await scanWal(shard, position, opened.readAhead, {
      header: (h) => {
        header = h;
        const trusted = options.trustFirstObject && walk.objects === 0;
        detail = trusted ? undefined : discontinuity(h, walk.end);
        return detail === undefined;
      },
      row: (row) => {
        rows += 1;
        return options.onRow?.(row);
      },
      text: options.rowText ?? true,
      reuseRows: options.reuseRows ?? false,
    });
    if (!complete) {
      options.rollbackObject?.();
      return { reason: 'discontinuity', position, key, detail: detail! };
    }
  } catch (error) {
    options.rollbackObject?.();
    if (error instanceof CorruptDataError)
      return { reason: 'corrupt', position, key, error: summarize(error) };
    throw error;
  } finally {
    opened.stream.destroy();
  }
  const h = header!;
  walk.end = {
    position: position + 1,
    lastSeq: h.lastSeq,
    nextRowOffset: h.firstRowOffset + h.rowCount,
  };
  walk.objects += 1;
  walk.rows += rows;
  options.onObject?.(h, walk.end);
  return undefined;
}

function discontinuity(header: WalHeader, cursor: ChainCursor): string | undefined {
  if (header.firstSeq !== cursor.lastSeq + 1) {
    return `firstSeq ${header.firstSeq}, expected ${cursor.lastSeq + 1} (the previous object or export ends at seq ${cursor.lastSeq})`;
  }
  if (header.firstRowOffset !== cursor.nextRowOffset) {
    return `firstRowOffset ${header.firstRowOffset}, expected ${cursor.nextRowOffset}`;
  }
  return undefined;
}

/** WAL keys of a listing as positions; keys that are not positions are not chain members. */
async function* positions(
  keys: AsyncIterable<string>,
): AsyncGenerator<{ position: number; key: string }, void, undefined> {
  for await (const key of keys) {
    const position = positionOfKey(key);
    if (position !== undefined) yield { position, key };
  }
}

async function count(listing: AsyncGenerator<unknown>): Promise<number> {
  let n = 0;
  for (let next = await listing.next(); !next.done; next = await listing.next()) n += 1;
  return n;
}
