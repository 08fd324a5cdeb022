/**
 * Folds a new export: the newest valid export below the target position (the
 * base) and the WAL objects from its covered position up to the target, which
 * is the shard's committed `walNextPos` and never beyond it (an object at or
 * past it may be an append still in flight). What it writes:
 *
 * - keyless rows of the range → new segments (`segment-archive.ts`); the
 *   base's segments are listed again, never copied;
 * - keyed rows of the range → delta parts of the snapshot (`keyed-delta.ts`);
 *   the base's parts are listed again, and compacted into a new base only
 *   when the policy of `snapshot-plan.ts` says so (the fold's held changes
 *   then go straight into the new base, never stored as a delta);
 * - and it returns the manifest naming all of them, for the caller to write.
 *
 * So an export costs O(new data) plus, amortized, O(new keyed data) for
 * compaction: never O(history). A legacy AOF base is converted once: its
 * keyed rows become the base part, its keyless rows one segment.
 *
 * A base that does not verify (a manifest, a legacy export, or a part a
 * compaction reads) is passed over for the next older one, loudly; with none
 * left the fold starts at WAL position 0. A broken WAL object below the target
 * fails the fold: the uploads in progress are abandoned and no manifest is
 * written (segments and parts already stored are adopted by the next fold of
 * the same range, or retired as orphans).
 */
import type { AofHeader } from '../aof/format.js';
import type { Manifest } from '../manifest/format.js';
import {
  type ExportFallback,
  ExportKind,
  type ExportRef,
  loadManifest,
  loadNewestValid,
  streamExport,
} from '../recovery/export-source.js';
import { Phase, PROGRESS_ROWS, type ProgressListener } from '../recovery/progress.js';
import { type ChainCursor, type ChainWalk, walkWalChain } from '../recovery/wal-chain.js';
import type { SegmentRef } from '../segment/format.js';
import type { SnapshotPartRef } from '../snapshot/format.js';
import { SnapshotPartWriter } from '../snapshot/writer.js';
import type { ObjectStore } from '../store/object-store.js';
import type { TableHold } from '../table/floor.js';
import { adoptPart } from './adopt-part.js';
import { KeyedDelta } from './keyed-delta.js';
import { SegmentArchive } from './segment-archive.js';
import { compactSnapshot, shouldCompact } from './snapshot-plan.js';

/** Input of `foldExport`. */
export interface FoldInput {
  shard: string;
  /** The new export's covered position: the record's `walNextPos`. */
  target: number;
  /** Exports to fold onto, newest first. */
  candidates: readonly ExportRef[];
  createdAtMs: number;
  gzipLevel: number;
  /** Segments written this long before `createdAtMs` leave the manifest (0: keep all). */
  historyRetentionMs: number;
  /** The shard's table and its high-water: keyless rows below it are listed as table segments. */
  tableHold?: TableHold;
  /** Overrides of the size rules (tests and benchmarks). */
  segmentTargetRawBytes?: number;
  spillBytes?: number;
  onProgress?: ProgressListener;
  onFallback?: (fallback: ExportFallback) => void;
}

/** What a fold wrote and reused. */
export interface FoldWrites {
  segments: number;
  /** Table segments listed: keyless rows the shard's table holds (nothing stored). */
  tableSegments: number;
  adoptedSegments: number;
  parts: number;
  adoptedParts: number;
  compacted: boolean;
  /** Compressed bytes of the objects this fold created. */
  bytes: number;
}

/** A fold that produced a manifest. */
export interface Folded {
  ok: true;
  manifest: Manifest;
  base: ExportRef | null;
  walk: ChainWalk;
  applied: { puts: number; deletes: number; keyless: number };
  /** Rows read from a legacy base export (a manifest base is not read). */
  exportRows: number;
  writes: FoldWrites;
  /** Live keys when known (a compaction, or a lone base); null otherwise. */
  liveKeys: number | null;
  /** Parts this fold stored that its manifest does not list (deltas a compaction folded in). */
  superseded: SnapshotPartRef[];
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
  const { shard, target, gzipLevel, createdAtMs } = input;
  const archive = new SegmentArchive(store, shard, {
    gzipLevel,
    createdAtMs,
    targetRawBytes: input.segmentTargetRawBytes,
    tableHold: input.tableHold,
  });
  const writes: FoldWrites = {
    segments: 0,
    tableSegments: 0,
    adoptedSegments: 0,
    parts: 0,
    adoptedParts: 0,
    compacted: false,
    bytes: 0,
  };
  const progress = (phase: Phase, position: number, rows: number) =>
    input.onProgress?.({ shard, phase, position, targetPosition: target, rows });
  try {
    let start: ChainCursor = { position: 0, lastSeq: 0, nextRowOffset: 0 };
    let baseParts: SnapshotPartRef[] = [];
    let baseSegments: SegmentRef[] = [];
    let historyFloor = 0;
    let exportRows = 0;
    if (base?.kind === ExportKind.manifest) {
      const manifest = await loadManifest(store, base);
      const { header } = manifest;
      start = {
        position: header.coveredPosition,
        lastSeq: header.lastSeq,
        nextRowOffset: header.nextRowOffset,
      };
      baseParts = manifest.parts;
      baseSegments = manifest.segments;
      historyFloor = header.historyFloor;
    } else if (base?.kind === ExportKind.aof) {
      const converted = await convertLegacy(store, shard, base, archive, gzipLevel, (rows) => {
        exportRows = rows;
        if (rows % PROGRESS_ROWS === 0) progress(Phase.export, base.coveredPosition, rows);
      });
      const header = converted.header;
      start = {
        position: header.coveredPosition,
        lastSeq: header.lastSeq,
        nextRowOffset: header.nextRowOffset,
      };
      baseParts = converted.base ? [converted.base.ref] : [];
      if (converted.base) countPart(writes, converted.base);
    }

    const delta = new KeyedDelta(store, shard, {
      from: start.position,
      to: target,
      gzipLevel,
      spillBytes: input.spillBytes,
    });
    let position = start.position;
    let keyless = 0;
    const walk = await walkWalChain(store, shard, start, {
      until: target,
      // Both sinks copy what they keep: the archive a row's fields, the delta its key,
      // seq, offset and text (after a spill, before the scan reads on).
      reuseRows: true,
      onRow: (row) => {
        if (row.key !== undefined) return delta.apply(position, row);
        keyless += 1;
        return archive.row(position, row.seq, row.offset, row.text!);
      },
      onObject: (_header, after) => {
        position = after.position;
        progress(Phase.wal, after.position, exportRows + after.nextRowOffset - start.nextRowOffset);
      },
    });
    if (walk.stop.reason !== 'limit') {
      await archive.abort();
      return { ok: false, base, walk };
    }
    progress(Phase.write, target, exportRows + walk.rows);
    await archive.finish();
    // The held changes count toward the policy unwritten: a compaction merges them
    // straight into the new base, so they are never stored as a delta only to be read back.
    const fromScratch = baseParts.length === 0 && delta.parts.length === 0;
    const stored = [...baseParts, ...delta.parts];
    const compacting = !fromScratch && shouldCompact(stored, delta.heldRawBytes());
    if (!compacting) await delta.finish(fromScratch);
    writes.segments += archive.written;
    writes.tableSegments += archive.tableSegments;
    writes.adoptedSegments += archive.adopted;
    writes.parts += delta.written;
    writes.adoptedParts += delta.adopted;
    for (const ref of archive.refs) writes.bytes += ref.bytes;
    for (const part of delta.parts) writes.bytes += part.bytes;

    let parts = [...baseParts, ...delta.parts];
    let liveKeys: number | null = null;
    let superseded: SnapshotPartRef[] = [];
    if (compacting) {
      superseded = delta.parts; // spilled earlier in this fold
      const compacted = await compactSnapshot(
        store,
        shard,
        stored,
        target,
        gzipLevel,
        delta.takeHeld(),
      );
      parts = compacted.base ? [compacted.base] : [];
      liveKeys = compacted.liveKeys;
      writes.compacted = true;
      if (compacted.base) countPart(writes, { ref: compacted.base, written: compacted.written });
    } else if (parts.length === 1 && parts[0]!.kind === 'base') {
      liveKeys = parts[0]!.rows;
    } else if (parts.length === 0) {
      liveKeys = 0;
    }

    let segments = baseSegments;
    if (input.historyRetentionMs > 0) {
      const cutoff = createdAtMs - input.historyRetentionMs;
      let dropped = 0;
      while (dropped < segments.length && segments[dropped]!.createdAtMs <= cutoff) {
        historyFloor = Math.max(historyFloor, segments[dropped]!.end);
        dropped += 1;
      }
      segments = segments.slice(dropped);
    }
    segments = [...segments, ...archive.refs];
    const manifest: Manifest = {
      header: {
        shard,
        coveredPosition: target,
        lastSeq: walk.end.lastSeq,
        nextRowOffset: walk.end.nextRowOffset,
        historyFloor,
        keylessRows: segments.reduce((sum, segment) => sum + segment.rows, 0),
        previousExport: base?.coveredPosition ?? null,
        createdAtMs,
      },
      parts,
      segments,
    };
    return {
      ok: true,
      manifest,
      base,
      walk,
      applied: { ...delta.applied, keyless },
      exportRows,
      writes,
      liveKeys,
      superseded,
    };
  } catch (error) {
    await archive.abort();
    throw error;
  }
}

function countPart(writes: FoldWrites, part: { ref: SnapshotPartRef; written: boolean }): void {
  if (part.written) {
    writes.parts += 1;
    writes.bytes += part.ref.bytes;
  } else {
    writes.adoptedParts += 1;
  }
}

/**
 * Converts a legacy AOF export in one streaming pass: its keyed section
 * (ascending keys, as a base part wants them) becomes the base part, its
 * keyless rows one segment at position 0. Both are published only after the
 * export verified to its trailer.
 */
async function convertLegacy(
  store: ObjectStore,
  shard: string,
  ref: ExportRef,
  archive: SegmentArchive,
  gzipLevel: number,
  onRows: (rows: number) => void,
): Promise<{ header: AofHeader; base: { ref: SnapshotPartRef; written: boolean } | undefined }> {
  let writer: SnapshotPartWriter | undefined;
  let rows = 0;
  try {
    const header = await streamExport(store, ref, {
      keyed: (row) => {
        onRows(++rows);
        writer ??= new SnapshotPartWriter(
          store,
          shard,
          { kind: 'base', from: 0, to: ref.coveredPosition, index: 0 },
          gzipLevel,
        );
        return writer.entry({ key: row.key, seq: row.seq, offset: row.offset, text: row.text });
      },
      keyless: (row) => {
        onRows(++rows);
        return archive.legacyRow(row.seq, row.offset, row.text);
      },
    });
    await archive.closeLegacy(header.coveredPosition);
    if (!writer) return { header, base: undefined };
    const { result, ref: part } = await writer.finish();
    writer = undefined;
    if (result === 'created') return { header, base: { ref: part, written: true } };
    return { header, base: { ref: await adoptPart(store, shard, part), written: false } };
  } catch (error) {
    await writer?.abort();
    throw error;
  }
}
