/** What the export tests read back: a manifest's state, its objects, and the store's keys by kind. */
import { decodeManifest } from '../../lib/manifest/codec.js';
import { type Manifest, manifestKey, manifestPrefix } from '../../lib/manifest/format.js';
import { positionOfKey, walPrefix } from '../../lib/paths.js';
import { segmentPrefix } from '../../lib/segment/format.js';
import { readSegment } from '../../lib/segment/reader.js';
import { snapshotPrefix } from '../../lib/snapshot/format.js';
import { mergeSnapshot } from '../../lib/snapshot/reader.js';
import type { MemoryObjectStore } from '../../lib/store/memory-store.js';
import type { ModelRow, Snapshot } from '../recovery/support.js';

/** The manifest of `shard` at `position`, decoded and checked. */
export async function manifestAt(
  memory: MemoryObjectStore,
  position: number,
  shard = 's1',
): Promise<Manifest> {
  const key = manifestKey(shard, position);
  const bytes = await memory.get(key);
  if (!bytes) throw new Error(`no manifest at ${key}`);
  return decodeManifest(key, bytes);
}

/** The state a manifest holds (snapshot merged, segments read), in the model's snapshot shape. */
export async function manifestState(
  memory: MemoryObjectStore,
  position: number,
  shard = 's1',
): Promise<Snapshot> {
  const manifest = await manifestAt(memory, position, shard);
  const keyed: Array<[string, ModelRow]> = [];
  for await (const { entry } of mergeSnapshot(memory, shard, manifest.parts)) {
    keyed.push([entry.key, { seq: entry.seq, offset: entry.offset, text: entry.text! }]);
  }
  keyed.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const keyless: ModelRow[] = [];
  for (const segment of manifest.segments) {
    await readSegment(memory, shard, segment, (row) => void keyless.push({ ...row }));
  }
  return { keyed, keyless };
}

/** Keys of the store by kind, for one shard. */
export function keysOf(memory: MemoryObjectStore, shard = 's1') {
  const under = (prefix: string) => memory.keys().filter((k) => k.startsWith(prefix));
  return {
    wal: under(walPrefix(shard)).map((k) => positionOfKey(k)!),
    manifests: under(manifestPrefix(shard)).map((k) => Number(k.slice(-20))),
    segments: under(segmentPrefix(shard)),
    parts: under(snapshotPrefix(shard)),
  };
}
