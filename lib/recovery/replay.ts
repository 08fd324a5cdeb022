/**
 * Replay: the read-only heart of rebuild. Loads the newest valid export (the
 * authority: a manifest, or a legacy AOF export) and replays the WAL objects
 * after the position it covers, in order, stopping at the first gap, corrupt
 * object or discontinuity.
 *
 * The preference rules (DESIGN.md, "Recovery"):
 * 1. The export is the authority: WAL objects below its covered position are
 *    never read, so a WAL object there, whatever it holds, never shadows it.
 * 2. An export that does not verify is passed over for the next older one,
 *    with a warning naming it and why.
 * 3. With no valid export the whole WAL is replayed from position 0, with a
 *    warning saying recovery is running without an export.
 * 4. The WAL tail is applied in position order; an object in an unknown format
 *    version stops the replay by its error's name (never skipped).
 *
 * What is read of a manifest export: the manifest always (the cursors come
 * from it); its snapshot parts only when the caller wants the keyed state
 * (`keys` or `keepRows`; rebuild does not); its segments only when the caller
 * wants the keyless rows (`keepKeyless`). A legacy AOF export is read whole:
 * its checksum is on its last line.
 */
import { logger } from '../observability/telemetry.js';
import { readSegment } from '../segment/reader.js';
import { mergeSnapshot } from '../snapshot/reader.js';
import type { ObjectStore } from '../store/object-store.js';
import {
  type ExportFallback,
  ExportKind,
  type ExportRef,
  loadManifest,
  loadNewestExport,
  streamExport,
} from './export-source.js';
import { Phase, PROGRESS_ROWS, type ProgressListener } from './progress.js';
import { ShardState } from './shard-state.js';
import { type ChainCursor, type ChainWalk, walkWalChain } from './wal-chain.js';

/** Options of `replayShard`. */
export interface ReplayOptions {
  /** Load the newest valid export first (default). False replays the whole WAL from position 0. */
  useExport?: boolean;
  /** Only exports this accepts are candidates (e.g. one kind, or those at or below a position). */
  exportFilter?: (ref: ExportRef) => boolean;
  /** Hold every live key (reads a manifest's snapshot; default false: the tail's keys only). */
  keys?: boolean;
  /** Hold each live key's row (implies `keys`; default false). */
  keepRows?: boolean;
  /** Hold keyless rows (reads a manifest's segments; default false: counted only). */
  keepKeyless?: boolean;
  /** Remember the seq span of each tail object whose lastSeq is above this seq. */
  indexSeqsAbove?: number;
  /** The position the caller expects the chain to reach (progress only). */
  targetPosition?: number;
  onProgress?: ProgressListener;
}

/** The seq span of one replayed WAL object. */
export interface ObjectSpan {
  position: number;
  firstSeq: number;
  lastSeq: number;
  createdAtMs: number;
}

/** The export a replay started from, named by its key. */
export interface ExportUsed {
  key: string;
  kind: ExportKind;
  coveredPosition: number;
  lastSeq: number;
  nextRowOffset: number;
  createdAtMs: number;
  /** Keyless rows the export holds. */
  keylessRows: number;
  /** Keyless rows of positions below it are no longer kept (history retention); 0 for legacy exports. */
  historyFloor: number;
  previousExport: number | null;
}

/** The outcome of a replay. */
export interface Replay {
  shard: string;
  export: ExportUsed | undefined;
  fallbacks: ExportFallback[];
  warnings: string[];
  walk: ChainWalk;
  state: ShardState;
  /** True when `state.keyed` holds every live key (the export's keyed state was read, or there was none). */
  keyedComplete: boolean;
  objectIndex: ObjectSpan[];
  /** Rows read from the export (snapshot entries, segment rows, legacy records). */
  exportRows: number;
}

/** Text of the warning a replay without an export carries. */
export const NO_EXPORT_WARNING = 'recovery is running without an export';

/** Replays `shard` from its newest valid export and the WAL tail after it. */
export async function replayShard(
  store: ObjectStore,
  shard: string,
  options: ReplayOptions = {},
): Promise<Replay> {
  const warnings: string[] = [];
  const warn = (message: string, extra: Record<string, unknown> = {}) => {
    warnings.push(message);
    logger.warn(message, { shard, ...extra });
  };
  const keepRows = options.keepRows ?? false;
  const readKeys = keepRows || (options.keys ?? false);
  const fresh = () => new ShardState({ keepRows, keepKeyless: options.keepKeyless ?? false });
  const fallbacks: ExportFallback[] = [];
  let state = fresh();
  let exportUsed: ExportUsed | undefined;
  let exportRows = 0;
  let keyedComplete = true;
  if (options.useExport ?? true) {
    const { candidates, loaded } = await loadNewestExport(
      store,
      shard,
      options.exportFilter ?? (() => true),
      (ref) => loadExport(store, shard, ref, fresh(), { ...options, readKeys }),
      (fallback) => {
        fallbacks.push(fallback);
        warn(
          `export ${fallback.key} failed verification (${fallback.error.name}: ${fallback.error.message}); falling back to the previous export`,
          { fallback },
        );
      },
    );
    if (loaded) {
      ({ state, exportRows, keyedComplete } = loaded.result);
      exportUsed = loaded.result.used;
    } else {
      const why =
        candidates === 0 ? 'the shard has no export' : `none of its ${candidates} exports verified`;
      warn(`${NO_EXPORT_WARNING}: ${why}; replaying the whole WAL from position 0`);
    }
  } else {
    warn(
      `${NO_EXPORT_WARNING}: exports ignored on request; replaying the whole WAL from position 0`,
    );
  }
  const start: ChainCursor = exportUsed
    ? {
        position: exportUsed.coveredPosition,
        lastSeq: exportUsed.lastSeq,
        nextRowOffset: exportUsed.nextRowOffset,
      }
    : { position: 0, lastSeq: 0, nextRowOffset: 0 };
  const replay: Replay = {
    shard,
    export: exportUsed,
    fallbacks,
    warnings,
    walk: { start, end: start, objects: 0, rows: 0, stop: { reason: 'end' }, beyond: 0 },
    state,
    keyedComplete,
    objectIndex: [],
    exportRows,
  };
  await extendReplay(store, replay, Phase.wal, options);
  return replay;
}

/** Reads one export into `state`; throws `CorruptDataError` when it does not verify. */
async function loadExport(
  store: ObjectStore,
  shard: string,
  ref: ExportRef,
  state: ShardState,
  options: ReplayOptions & { readKeys: boolean },
): Promise<{ state: ShardState; exportRows: number; keyedComplete: boolean; used: ExportUsed }> {
  let rows = 0;
  const tick = () => {
    if (++rows % PROGRESS_ROWS === 0) {
      options.onProgress?.({ shard, phase: Phase.export, position: ref.coveredPosition, rows });
    }
  };
  if (ref.kind === ExportKind.aof) {
    const header = await streamExport(store, ref, {
      keyed: (row) => {
        state.loadKeyed(row);
        tick();
      },
      keyless: (row) => {
        state.loadKeyless(row);
        tick();
      },
    });
    const { shard: _shard, keyedCount: _k, keylessCount, ...fields } = header;
    return {
      state,
      exportRows: rows,
      keyedComplete: true,
      used: { key: ref.key, kind: ref.kind, ...fields, keylessRows: keylessCount, historyFloor: 0 },
    };
  }
  const manifest = await loadManifest(store, ref);
  if (options.readKeys) {
    for await (const { entry } of mergeSnapshot(store, shard, manifest.parts)) {
      state.loadKeyed({ key: entry.key, seq: entry.seq, offset: entry.offset, text: entry.text! });
      tick();
    }
  }
  if (options.keepKeyless) {
    for (const segment of manifest.segments) {
      await readSegment(store, shard, segment, (row) => {
        state.loadKeyless(row);
        tick();
      });
    }
  } else {
    state.keylessCount = manifest.header.keylessRows;
  }
  const { shard: _shard, ...fields } = manifest.header;
  return {
    state,
    exportRows: rows,
    keyedComplete: options.readKeys || manifest.parts.length === 0,
    used: { key: ref.key, kind: ref.kind, ...fields },
  };
}

/**
 * Continues a replay from where its walk ended (rebuild's catch-up after the
 * fence), folding into the same state. The walk's counts accumulate; its stop
 * is replaced by the new walk's.
 */
export async function extendReplay(
  store: ObjectStore,
  replay: Replay,
  phase: Phase,
  options: Pick<ReplayOptions, 'indexSeqsAbove' | 'targetPosition' | 'onProgress'> = {},
): Promise<void> {
  const { shard, state } = replay;
  const indexAbove = options.indexSeqsAbove;
  const previous = replay.walk;
  const walk = await walkWalChain(store, shard, previous.end, {
    onRow: (row) => void state.apply(row),
    // A state that holds no row reads none: the rows' text is checked, not copied.
    rowText: state.options.keepRows || state.options.keepKeyless,
    // `apply` copies what it keeps (the key, seq, offset and text), never the row.
    reuseRows: true,
    beginObject: () => state.beginObject(),
    rollbackObject: () => state.rollbackObject(),
    onObject: (header, after) => {
      state.commitObject();
      if (indexAbove !== undefined && header.lastSeq > indexAbove) {
        replay.objectIndex.push({
          position: header.position,
          firstSeq: header.firstSeq,
          lastSeq: header.lastSeq,
          createdAtMs: header.createdAtMs,
        });
      }
      options.onProgress?.({
        shard,
        phase,
        position: after.position,
        targetPosition: options.targetPosition,
        rows: replay.exportRows + previous.rows + rowsSince(after, previous),
      });
    },
  });
  replay.walk = {
    start: previous.start,
    end: walk.end,
    objects: previous.objects + walk.objects,
    rows: previous.rows + walk.rows,
    stop: walk.stop,
    beyond: walk.beyond,
  };
}

/** Rows folded by the running walk, from the offsets (each row takes one offset). */
function rowsSince(after: ChainCursor, previous: ChainWalk): number {
  return after.nextRowOffset - previous.end.nextRowOffset;
}
