/**
 * Folds a new export: the newest valid export below the target position (the
 * base), then the WAL objects from its covered position up to the target,
 * which is the shard's committed `walNextPos` and never beyond it (an object
 * at or past it may be an append still in flight).
 *
 * Keyed rows: the newest position wins and a delete removes the key (the
 * state holds one entry per live key: that is the memory bound). Keyless rows
 * stream from the base and the tail straight into the writer's compressed
 * section in offset order, never held uncompressed.
 *
 * A base that does not verify is passed over for the next older one, loudly;
 * with none left the fold starts at WAL position 0. A broken WAL tail (gap,
 * corrupt or unknown-version object, discontinuity) fails the fold: no export
 * is written and the report names the object.
 */
import type { AofHeader } from '../aof/format.js';
import { AofTag } from '../aof/lines-v1.js';
import { AofWriter } from '../aof/writer.js';
import { InternalError } from '../errors.js';
import { aofKey } from '../paths.js';
import {
  type ExportFallback,
  type ExportRef,
  loadNewestValid,
  streamExport,
} from '../recovery/export-source.js';
import { Phase, PROGRESS_ROWS, type ProgressListener } from '../recovery/progress.js';
import { type AppliedCounts, ShardState } from '../recovery/shard-state.js';
import { type ChainCursor, type ChainWalk, walkWalChain } from '../recovery/wal-chain.js';
import type { ObjectStore } from '../store/object-store.js';
import { WalTag } from '../wal/lines-v1.js';

// The fold copies keyless WAL row lines into the export as they are; that holds
// only while the two formats give those lines the same tag and fields.
if ((AofTag.keyless as string) !== WalTag.row) {
  throw new InternalError('AOF keyless records and WAL rows no longer share a line format');
}

/** Input of `foldExport`. */
export interface FoldInput {
  shard: string;
  /** The new export's covered position: the record's `walNextPos`. */
  target: number;
  /** Exports below `target`, newest first. */
  candidates: readonly ExportRef[];
  createdAtMs: number;
  gzipLevel?: number;
  onProgress?: ProgressListener;
  onFallback?: (fallback: ExportFallback) => void;
}

/** A fold that produced an export. */
export interface Folded {
  ok: true;
  bytes: Uint8Array;
  header: AofHeader;
  base: ExportRef | null;
  walk: ChainWalk;
  applied: AppliedCounts;
  exportRows: number;
}

/** A fold the WAL tail stopped. */
export interface FoldBlocked {
  ok: false;
  base: ExportRef | null;
  walk: ChainWalk;
}

/** Folds the export covering positions below `input.target`. */
export async function foldExport(
  store: ObjectStore,
  input: FoldInput,
): Promise<Folded | FoldBlocked> {
  const attempt = (base: ExportRef | null) => foldFrom(store, input, base);
  const loaded = await loadNewestValid(input.candidates, attempt, (fallback) =>
    input.onFallback?.(fallback),
  );
  return loaded ? loaded.result : attempt(null);
}

async function foldFrom(
  store: ObjectStore,
  input: FoldInput,
  base: ExportRef | null,
): Promise<Folded | FoldBlocked> {
  const { shard, target } = input;
  const writer = new AofWriter(aofKey(shard, target), input.gzipLevel);
  const state = new ShardState({ keepRows: true, keepKeyless: false });
  let exportRows = 0;
  const progress = (position: number, rows: number) =>
    input.onProgress?.({
      shard,
      phase: base && position === base.coveredPosition ? Phase.export : Phase.wal,
      position,
      targetPosition: target,
      rows,
    });
  try {
    let start: ChainCursor = { position: 0, lastSeq: 0, nextRowOffset: 0 };
    if (base) {
      const header = await streamExport(store, base, {
        keyed: (row) => {
          state.loadKeyed(row);
          if (++exportRows % PROGRESS_ROWS === 0) progress(base.coveredPosition, exportRows);
        },
        keyless: (row, bytes) => {
          if (++exportRows % PROGRESS_ROWS === 0) progress(base.coveredPosition, exportRows);
          return writer.keylessLine(row.offset, bytes);
        },
      });
      start = {
        position: header.coveredPosition,
        lastSeq: header.lastSeq,
        nextRowOffset: header.nextRowOffset,
      };
    }
    const walk = await walkWalChain(store, shard, start, {
      until: target,
      // A keyless WAL row line is byte for byte the AOF keyless record: copied, not re-serialized.
      onRow: (row, bytes) => (state.apply(row) ? writer.keylessLine(row.offset, bytes) : undefined),
      onObject: (_header, after) =>
        progress(after.position, exportRows + after.nextRowOffset - start.nextRowOffset),
    });
    if (walk.stop.reason !== 'limit') {
      writer.abort();
      return { ok: false, base, walk };
    }
    const header = {
      shard,
      coveredPosition: target,
      lastSeq: walk.end.lastSeq,
      nextRowOffset: walk.end.nextRowOffset,
      keyedCount: state.keyed.size,
      previousExport: base?.coveredPosition ?? null,
      createdAtMs: input.createdAtMs,
    };
    input.onProgress?.({
      shard,
      phase: Phase.write,
      position: target,
      targetPosition: target,
      rows: exportRows + walk.rows,
    });
    const bytes = await writer.finish(header, state.sortedKeyed());
    return {
      ok: true,
      bytes,
      header: { ...header, keylessCount: writer.keylessCount },
      base,
      walk,
      applied: { ...state.applied },
      exportRows,
    };
  } catch (error) {
    writer.abort();
    throw error;
  }
}
