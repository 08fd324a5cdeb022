/**
 * The check after a manifest whose write returned past the export deadline
 * (D3 in `deadline.ts`): does every part and segment it names still exist?
 * Retention may have deleted one while the export stalled between its
 * deadline check and its write.
 *
 * Cost: one listing of the shard's parts (few: those of the kept exports,
 * as retention lists them) and one of its segments from the first the
 * manifest names, 1,000 keys a request: the same order as the manifest's
 * own one line per part and segment (E4 in `export-shard.ts`), and paid
 * only by an export that stalled past its deadline.
 */
import type { Manifest } from '../manifest/format.js';
import { segmentKey, segmentPrefix, storedSegments } from '../segment/format.js';
import { snapshotPartKey, snapshotPrefix } from '../snapshot/format.js';
import type { ObjectStore } from '../store/object-store.js';

/** Keys `manifest` names that are not in the store, in the manifest's order. */
export async function missingObjects(
  store: ObjectStore,
  shard: string,
  manifest: Manifest,
): Promise<string[]> {
  const parts = manifest.parts.map((part) => snapshotPartKey(shard, part));
  // A table segment names no object of its own.
  const stored = storedSegments(manifest.segments);
  const segments = stored.map((segment) => segmentKey(shard, segment.first));
  const present = new Set<string>();
  if (parts.length > 0) {
    for await (const key of store.list(snapshotPrefix(shard))) present.add(key);
  }
  const first = stored[0]?.first;
  if (first !== undefined) {
    const last = segments.at(-1)!;
    const startAfter = first > 0 ? segmentKey(shard, first - 1) : undefined;
    for await (const key of store.list(segmentPrefix(shard), { startAfter })) {
      if (key > last) break;
      present.add(key);
    }
  }
  return [...parts, ...segments].filter((key) => !present.has(key));
}
