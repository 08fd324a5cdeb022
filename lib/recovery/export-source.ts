/**
 * Finding and reading a shard's exports. An export is a manifest
 * (`shards/<shard>/manifest/<position>`, written by this code) or a legacy
 * AOF export (`shards/<shard>/aof/<position>`, v1 or v2, written before
 * manifests existed and still read so older stores recover). The export is
 * the recovery authority: readers take the newest one that verifies, and fall
 * back to the next older one, loudly, only when it does not
 * (`loadNewestValid`). At one position a manifest is preferred to an AOF.
 */
import type { AofHeader } from '../aof/format.js';
import { type AofSink, scanAof } from '../aof/reader.js';
import { CorruptDataError } from '../errors.js';
import { decodeManifest } from '../manifest/codec.js';
import { type Manifest, manifestPrefix, parseManifestKey } from '../manifest/format.js';
import { aofPrefix, positionOfKey } from '../paths.js';
import type { ObjectStore } from '../store/object-store.js';
import { type ErrorSummary, summarize } from './wal-chain.js';

/** The two kinds of export. */
export const ExportKind = { manifest: 'manifest', aof: 'aof' } as const;
export type ExportKind = (typeof ExportKind)[keyof typeof ExportKind];

/** An export by key. */
export interface ExportRef {
  key: string;
  coveredPosition: number;
  kind: ExportKind;
}

/** An export that failed verification and was passed over. */
export interface ExportFallback extends ExportRef {
  error: ErrorSummary;
}

/** Where a legacy export's records go while it is read (`AofSink` of `scanAof`). */
export type ExportSink = AofSink;

/** The shard's exports, ascending by covered position (an AOF before a manifest at the same one). */
export async function listExports(store: ObjectStore, shard: string): Promise<ExportRef[]> {
  const refs: ExportRef[] = [];
  for await (const key of store.list(aofPrefix(shard))) {
    const coveredPosition = positionOfKey(key);
    if (coveredPosition !== undefined) refs.push({ key, coveredPosition, kind: ExportKind.aof });
  }
  for await (const key of store.list(manifestPrefix(shard))) {
    const named = parseManifestKey(key);
    if (named)
      refs.push({ key, coveredPosition: named.coveredPosition, kind: ExportKind.manifest });
  }
  const rank = (ref: ExportRef) => (ref.kind === ExportKind.aof ? 0 : 1);
  return refs.sort((a, b) => a.coveredPosition - b.coveredPosition || rank(a) - rank(b));
}

/** Reads and verifies one manifest (its own checksum and rules; no part or segment is read). */
export async function loadManifest(store: ObjectStore, ref: ExportRef): Promise<Manifest> {
  const bytes = await store.get(ref.key);
  if (!bytes) throw new CorruptDataError(ref.key, 'listed as an export but no longer readable');
  return decodeManifest(ref.key, bytes);
}

/** Streams one legacy AOF export into `sink`; resolves to its header once the whole export verified. */
export async function streamExport(
  store: ObjectStore,
  ref: ExportRef,
  sink: ExportSink,
): Promise<AofHeader> {
  const stream = await store.getStream(ref.key);
  if (!stream) throw new CorruptDataError(ref.key, 'listed as an export but no longer readable');
  try {
    return await scanAof(ref.key, stream, sink);
  } finally {
    stream.destroy();
  }
}

/**
 * Runs `attempt` on each candidate, newest first, until one succeeds; an
 * attempt that throws `CorruptDataError` (the export did not verify, its
 * version or a tag is unknown, a part it needs is missing) is reported to
 * `onFallback` and the next older candidate is tried. Resolves to undefined
 * when none verified; any other error propagates.
 */
export async function loadNewestValid<T>(
  candidatesNewestFirst: readonly ExportRef[],
  attempt: (ref: ExportRef) => Promise<T>,
  onFallback: (fallback: ExportFallback) => void,
): Promise<{ ref: ExportRef; result: T } | undefined> {
  for (const ref of candidatesNewestFirst) {
    try {
      return { ref, result: await attempt(ref) };
    } catch (error) {
      if (!(error instanceof CorruptDataError)) throw error;
      onFallback({ ...ref, error: summarize(error) });
    }
  }
  return undefined;
}

/**
 * The newest of `shard`'s exports that `accept` admits and `attempt` loads
 * (`loadNewestValid` over them, newest first); `candidates` counts the
 * exports it admitted. Recovery's replay and the CLI's dump choose an export
 * by this one rule.
 */
export async function loadNewestExport<T>(
  store: ObjectStore,
  shard: string,
  accept: (ref: ExportRef) => boolean,
  attempt: (ref: ExportRef) => Promise<T>,
  onFallback: (fallback: ExportFallback) => void,
): Promise<{ candidates: number; loaded: { ref: ExportRef; result: T } | undefined }> {
  const refs = (await listExports(store, shard)).filter(accept).reverse();
  return { candidates: refs.length, loaded: await loadNewestValid(refs, attempt, onFallback) };
}
