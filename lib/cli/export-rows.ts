/**
 * The export half of `dump`: which export a dump starts from, and its rows as
 * dump lines. The choice is recovery's rule: the newest export that verifies
 * (one past the record's `walNextPos` would cover uncommitted positions, so
 * it is not a candidate), passing over a broken one loudly.
 *
 * An export is read twice, streamed each time: once to verify it (a manifest:
 * every snapshot part and segment against the manifest's record of it; a
 * legacy AOF export: to its checksum on the last line), then to print it. So
 * no row of a broken export is ever printed, and memory stays bounded by one
 * line per snapshot part.
 *
 * A manifest's rows print as the snapshot's live keyed rows by key (the parts
 * merged), then the segments' keyless rows by offset: their stored lines are
 * dump lines already, so they are copied, not re-serialized.
 */
import { readAof } from '../aof/reader.js';
import { CorruptDataError } from '../errors.js';
import type { Manifest } from '../manifest/format.js';
import {
  type ExportFallback,
  ExportKind,
  type ExportRef,
  listExports,
  loadManifest,
  loadNewestExport,
  streamExport,
} from '../recovery/export-source.js';
import { readSegment } from '../segment/reader.js';
import { mergeSnapshot, readPart } from '../snapshot/reader.js';
import type { ObjectStore } from '../store/object-store.js';
import { dumpLine } from './dump-line.js';

/** The export a dump starts from, verified. */
export interface DumpExport {
  ref: ExportRef;
  coveredPosition: number;
  lastSeq: number;
  nextRowOffset: number;
  /** Live keys (a legacy export states them; a manifest's are counted while printed): null when unknown. */
  liveKeys: number | null;
  keylessRows: number;
  historyFloor: number;
  manifest: Manifest | undefined;
}

/** The newest export of `shard` covering at most `maxPosition` that verifies; undefined if none. */
export async function findDumpExport(
  store: ObjectStore,
  shard: string,
  options: { maxPosition?: number; onFallback: (fallback: ExportFallback) => Promise<void> },
): Promise<DumpExport | undefined> {
  const fallbacks: ExportFallback[] = [];
  const { loaded } = await loadNewestExport(
    store,
    shard,
    (ref) => options.maxPosition === undefined || ref.coveredPosition <= options.maxPosition,
    (ref) => verifyExport(store, shard, ref),
    (fallback) => fallbacks.push(fallback),
  );
  for (const fallback of fallbacks) await options.onFallback(fallback);
  return loaded?.result;
}

async function verifyExport(
  store: ObjectStore,
  shard: string,
  ref: ExportRef,
): Promise<DumpExport> {
  if (ref.kind === ExportKind.aof) {
    const header = await streamExport(store, ref, { keyed: () => {}, keyless: () => undefined });
    return {
      ref,
      coveredPosition: header.coveredPosition,
      lastSeq: header.lastSeq,
      nextRowOffset: header.nextRowOffset,
      liveKeys: header.keyedCount,
      keylessRows: header.keylessCount,
      historyFloor: 0,
      manifest: undefined,
    };
  }
  const manifest = await loadManifest(store, ref);
  for (const part of manifest.parts) await readPart(store, shard, part);
  for (const segment of manifest.segments) await readSegment(store, shard, segment);
  const { header } = manifest;
  return {
    ref,
    coveredPosition: header.coveredPosition,
    lastSeq: header.lastSeq,
    nextRowOffset: header.nextRowOffset,
    // A lone base holds exactly the live keys; deltas would have to be merged to count them.
    liveKeys:
      manifest.parts.length === 1 && manifest.parts[0]!.kind === 'base'
        ? manifest.parts[0]!.rows
        : manifest.parts.length === 0
          ? 0
          : null,
    keylessRows: header.keylessRows,
    historyFloor: header.historyFloor,
    manifest,
  };
}

/** The newest export's covered position by its key alone (unverified); 0 when there is none. */
export async function newestExportPosition(store: ObjectStore, shard: string): Promise<number> {
  const refs = await listExports(store, shard);
  return refs.at(-1)?.coveredPosition ?? 0;
}

/** Writes the rows of a verified export as dump lines: live keyed rows by key, then keyless rows by offset. */
export async function writeExportLines(
  store: ObjectStore,
  shard: string,
  used: DumpExport,
  write: (line: string) => Promise<void>,
): Promise<void> {
  if (used.manifest) {
    for await (const { line } of mergeSnapshot(store, shard, used.manifest.parts))
      await write(line);
    for (const segment of used.manifest.segments) {
      await readSegment(store, shard, segment, (_row, bytes) => write(bytes.toString('utf8')));
    }
    return;
  }
  const stream = await store.getStream(used.ref.key);
  if (!stream)
    throw new CorruptDataError(used.ref.key, 'verified a moment ago but no longer readable');
  try {
    for await (const entry of readAof(used.ref.key, stream)) {
      if (entry.kind === 'keyed') {
        const { seq, offset, key, text } = entry.row;
        await write(dumpLine({ seq, offset, key, text }));
      } else if (entry.kind === 'keyless') {
        const { seq, offset, text } = entry.row;
        await write(dumpLine({ seq, offset, text }));
      }
    }
  } finally {
    stream.destroy();
  }
}
