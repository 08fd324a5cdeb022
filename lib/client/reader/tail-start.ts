/**
 * Where a tail starts (`findTailStart`), from the store alone:
 *
 * 1. The newest manifest that verifies gives the watermark `C` (WAL
 *    positions below it are covered), the seq `L` it covers through, and the
 *    history floor. With no manifest, the watermark is position 0 (a shard
 *    with only a legacy AOF export is refused: see `newest-export.ts`).
 * 2. `fromSeq <= L`: the rows below the watermark come from the manifest's
 *    segments, the first one read being the last whose first row's seq is at
 *    most `fromSeq` (a binary search reading one line per probe); then the
 *    WAL from `C`. A `fromSeq` below the oldest kept seq, when history
 *    retention raised the floor, is a `HistoryFloorError`.
 * 3. `fromSeq` above `L + 1`, or `'end'`: the WAL keys from `C` are listed
 *    once, and a binary search over their positions (each probe a verified
 *    object) finds the object holding `fromSeq`; `'end'` starts after the
 *    last listed object.
 */
import { HistoryFloorError, UnavailableError } from '../../errors.js';
import type { Manifest } from '../../manifest/format.js';
import { positionOfKey, walKey, walPrefix } from '../../paths.js';
import type { ObjectStore } from '../../store/object-store.js';
import { decodeWal } from '../../wal/decode.js';
import type { WalHeader } from '../../wal/format.js';
import { newestManifest, refuseLegacyExport } from './newest-export.js';
import { firstSegmentSeq } from './segment-rows.js';
import { TailNoticeKind, type TailSettings } from './tail-options.js';

/** Where the WAL chain continues: the last seq and the next row offset before a position. */
export interface ChainCursor {
  lastSeq: number;
  nextOffset: number;
}

/** Where a tail starts. */
export interface TailStart {
  /** Rows with a lower seq are not yielded. */
  fromSeq: number;
  manifest: Manifest | undefined;
  /** The manifest's segments to read first, from `index`; `firstSeq` is what the seek read of it. */
  segments: { index: number; firstSeq: number | undefined } | undefined;
  /** The first WAL position to read. */
  position: number;
  /** What the object at `position` continues. */
  cursor: ChainCursor;
  /** False only at position 0 with no export: nothing precedes it to check it against. */
  checked: boolean;
  /** Positions below this were listed: a miss there is no end of the WAL. */
  knownEnd: number;
}

/** A listed WAL object that was gone when read: the start is looked for again. */
export class ListedObjectGone extends UnavailableError {}

/** Finds where a tail of `shard` with `settings` starts. */
export async function findTailStart(
  store: ObjectStore,
  shard: string,
  settings: TailSettings,
): Promise<TailStart> {
  const manifest = await newestManifest(store, shard, settings.notice);
  if (!manifest) await refuseLegacyExport(store, shard);
  const base = manifest?.header;
  const position = base?.coveredPosition ?? 0;
  const cursor = { lastSeq: base?.lastSeq ?? 0, nextOffset: base?.nextRowOffset ?? 0 };
  const from = settings.fromSeq;
  if (from === 'end' || (from !== undefined && from > cursor.lastSeq + 1)) {
    return seekWal(store, shard, manifest, { position, cursor }, from);
  }
  const fromSeq = from ?? 1;
  const start: TailStart = {
    fromSeq,
    manifest,
    segments: undefined,
    position,
    cursor,
    checked: manifest !== undefined,
    knownEnd: position,
  };
  if (manifest && fromSeq <= cursor.lastSeq) {
    start.segments = await seekSegments(store, shard, manifest, from, settings);
  }
  if (manifest && fromSeq <= cursor.lastSeq && hadKeyedRows(manifest)) {
    settings.notice({
      kind: TailNoticeKind.keyedHistory,
      message: `keyed changes below WAL position ${position} (seqs up to ${cursor.lastSeq}) are not kept as history: the export keeps only each key's newest row (\`shardwal dump\` prints them); below it the tail yields the keyless rows, from the export's segments`,
      position,
    });
  }
  return start;
}

/**
 * Whether keyed rows were written below the export's watermark: only then
 * does the tail pass over history it cannot yield. With all keyless history
 * kept, the rows below the watermark that are not in the segments are the
 * keyed ones; past a history floor, the snapshot's lines tell (a key put
 * and later deleted leaves none once compacted).
 */
function hadKeyedRows(manifest: Manifest): boolean {
  const { header, parts } = manifest;
  if (header.historyFloor === 0) return header.nextRowOffset > header.keylessRows;
  return parts.some((part) => part.rows > 0);
}

/** The segment to start at, and the floor check (step 2). */
async function seekSegments(
  store: ObjectStore,
  shard: string,
  manifest: Manifest,
  from: number | undefined,
  settings: TailSettings,
): Promise<{ index: number; firstSeq: number | undefined }> {
  const { header, segments } = manifest;
  const fromSeq = from ?? 1;
  const probed = new Map<number, number>();
  const firstSeqOf = async (index: number) => {
    let seq = probed.get(index);
    if (seq === undefined) {
      seq = await firstSegmentSeq(store, shard, segments[index]!);
      probed.set(index, seq);
    }
    return seq;
  };
  if (header.historyFloor > 0) {
    const floorSeq = segments.length > 0 ? await firstSeqOf(0) : header.lastSeq + 1;
    if (from !== undefined && from < floorSeq) {
      throw new HistoryFloorError(shard, from, header.historyFloor, floorSeq);
    }
    if (from === undefined) {
      settings.notice({
        kind: TailNoticeKind.historyFloor,
        message: `keyless rows of WAL positions below ${header.historyFloor} are past the history retention and no longer kept; reading from the oldest kept seq, ${floorSeq}`,
        position: header.historyFloor,
      });
    }
  }
  if (segments.length === 0 || fromSeq <= 1) return { index: 0, firstSeq: probed.get(0) };
  // The last segment whose first row's seq is at most fromSeq: a seq's rows never span two.
  let lo = 0;
  let hi = segments.length - 1;
  let found = 0;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    if ((await firstSeqOf(mid)) <= fromSeq) {
      found = mid;
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  return { index: found, firstSeq: probed.get(found) };
}

/** Step 3: the WAL object holding `from`, or the end for `'end'`. */
async function seekWal(
  store: ObjectStore,
  shard: string,
  manifest: Manifest | undefined,
  base: { position: number; cursor: ChainCursor },
  from: number | 'end',
): Promise<TailStart> {
  const positions: number[] = [];
  const startAfter = base.position > 0 ? walKey(shard, base.position - 1) : undefined;
  for await (const key of store.list(walPrefix(shard), { startAfter })) {
    const position = positionOfKey(key);
    if (position !== undefined) positions.push(position);
  }
  const header = async (position: number): Promise<WalHeader> => {
    const key = walKey(shard, position);
    const bytes = await store.get(key);
    if (!bytes) throw new ListedObjectGone(`${key}: listed a moment ago but gone when read`);
    return decodeWal(key, bytes).header;
  };
  const start = (position: number, cursor: ChainCursor, fromSeq: number): TailStart => ({
    fromSeq,
    manifest,
    segments: undefined,
    position,
    cursor,
    checked: manifest !== undefined || position > 0,
    knownEnd: positions.length > 0 ? positions.at(-1)! + 1 : base.position,
  });
  if (positions.length === 0) {
    return start(base.position, base.cursor, from === 'end' ? base.cursor.lastSeq + 1 : from);
  }
  if (from === 'end') {
    const last = await header(positions.at(-1)!);
    const cursor = { lastSeq: last.lastSeq, nextOffset: last.firstRowOffset + last.rowCount };
    return start(last.position + 1, cursor, last.lastSeq + 1);
  }
  let lo = 0;
  let hi = positions.length - 1;
  let found: WalHeader | undefined;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const probe = await header(positions[mid]!);
    if (probe.firstSeq <= from) {
      found = probe;
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  // None starts at or below `from`: the chain from the watermark says why (a gap is loud there).
  if (!found) return start(base.position, base.cursor, from);
  const cursor = { lastSeq: found.firstSeq - 1, nextOffset: found.firstRowOffset };
  return start(found.position, cursor, from);
}
