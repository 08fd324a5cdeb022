/**
 * The snapshot an export's manifest names: the base export's parts plus this
 * fold's deltas, compacted into a new base when the deltas have grown.
 *
 * Policy: compact when there is no base yet, when the deltas' uncompressed
 * bytes pass `COMPACT_FRACTION` of the base's, or when there are more than
 * `MAX_DELTA_PARTS` deltas (readers merge every part at once).
 *
 * Cost: with B the base's size and d the delta bytes an export adds, an
 * export writes d, and one in every f·B/d exports instead rewrites B after
 * reading B plus about f·B of deltas (its own d merged from memory, never
 * written as a delta). Amortized, an export writes at most d·(1 + 1/f) and
 * reads at most d·(1 + f)/f: 3d and 3d with f = 1/2, whatever the history,
 * and a snapshot holds at most (1 + f)·B plus one spill. Compaction merges
 * the parts by key as they stream (`mergeSnapshot`), a batch of lines per
 * part in memory.
 */
import type { SnapshotEntry, SnapshotPartRef } from '../snapshot/format.js';
import { mergeSnapshot } from '../snapshot/reader.js';
import { SnapshotPartWriter } from '../snapshot/writer.js';
import type { ObjectStore } from '../store/object-store.js';
import { adoptPart } from './adopt-part.js';

/** Compact once the deltas' bytes pass this fraction of the base's. */
const COMPACT_FRACTION = 0.5;

/** Compact once there are more deltas than this. */
const MAX_DELTA_PARTS = 8;

/**
 * True when `parts` (application order), plus a delta of `heldBytes` not yet
 * written (a fold's held changes, 0 for none), should be compacted into a new base.
 */
export function shouldCompact(parts: readonly SnapshotPartRef[], heldBytes = 0): boolean {
  const base = parts[0]?.kind === 'base' ? parts[0] : undefined;
  const deltas = base ? parts.length - 1 : parts.length;
  const held = heldBytes > 0 ? 1 : 0;
  if (deltas + held === 0) return false;
  if (!base || deltas + held > MAX_DELTA_PARTS) return true;
  const deltaBytes = parts.slice(1).reduce((sum, part) => sum + part.rawBytes, heldBytes);
  return deltaBytes > COMPACT_FRACTION * base.rawBytes;
}

/** A compaction's result: the new base (none when no key is live) and its live keys. */
export interface Compacted {
  base: SnapshotPartRef | undefined;
  liveKeys: number;
  written: boolean;
}

/**
 * Merges `parts`, and `held` (a fold's changes in key order, applied last and
 * never written as a delta of their own), into a base at `to`, streaming.
 */
export async function compactSnapshot(
  store: ObjectStore,
  shard: string,
  parts: readonly SnapshotPartRef[],
  to: number,
  gzipLevel: number,
  held?: readonly SnapshotEntry[],
): Promise<Compacted> {
  const writer = new SnapshotPartWriter(
    store,
    shard,
    { kind: 'base', from: 0, to, index: 0 },
    gzipLevel,
  );
  let liveKeys = 0;
  try {
    for await (const { entry } of mergeSnapshot(store, shard, parts, held)) {
      liveKeys += 1;
      const wait = writer.entry(entry);
      if (wait) await wait;
    }
  } catch (error) {
    await writer.abort();
    throw error;
  }
  if (liveKeys === 0) {
    await writer.abort();
    return { base: undefined, liveKeys, written: false };
  }
  const { result, ref } = await writer.finish();
  if (result === 'created') return { base: ref, liveKeys, written: true };
  return { base: await adoptPart(store, shard, ref), liveKeys, written: false };
}
