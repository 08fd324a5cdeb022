/**
 * Finding and reading a shard's AOF exports. The export is the recovery
 * authority: readers take the newest one that verifies, and fall back to the
 * next older one, loudly, only when it does not (`loadNewestValid`).
 */
import type { AofHeader } from '../aof/format.js';
import { type AofSink, scanAof } from '../aof/reader.js';
import { CorruptDataError } from '../errors.js';
import { aofPrefix, positionOfKey } from '../paths.js';
import type { ObjectStore } from '../store/object-store.js';
import { type ErrorSummary, summarize } from './wal-chain.js';

/** An export by key. */
export interface ExportRef {
  key: string;
  coveredPosition: number;
}

/** An export that failed verification and was passed over. */
export interface ExportFallback extends ExportRef {
  error: ErrorSummary;
}

/** Where an export's records go while it is read (`AofSink` of `scanAof`). */
export type ExportSink = AofSink;

/** The shard's exports, ascending by covered position. */
export async function listExports(store: ObjectStore, shard: string): Promise<ExportRef[]> {
  const refs: ExportRef[] = [];
  for await (const key of store.list(aofPrefix(shard))) {
    const coveredPosition = positionOfKey(key);
    if (coveredPosition !== undefined) refs.push({ key, coveredPosition });
  }
  return refs;
}

/** Streams one export into `sink`; resolves to its header once the whole export verified. */
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
 * version or a tag is unknown) is reported to `onFallback` and the next older
 * candidate is tried. Resolves to undefined when none verified; any other
 * error propagates.
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
