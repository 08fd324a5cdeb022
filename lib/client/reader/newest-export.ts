/**
 * The export a tail reads below the watermark: the newest manifest that
 * decodes and checks (`decodeManifest`), as recovery and dump choose it. An
 * older one is taken only when a newer one does not verify, and then loudly
 * (a notice naming the one passed over). Reading it lists the manifest keys
 * once and GETs manifests until one verifies; no part or segment is read.
 *
 * Legacy AOF exports (`shards/<s>/aof/`) are not read by the tail: a shard
 * whose only export is one may have retired the WAL below it, and nothing
 * reads the WAL below an export, so the tail refuses it by name; the next
 * export converts it to a manifest.
 */
import { CorruptDataError, UnavailableError } from '../../errors.js';
import { decodeManifest } from '../../manifest/codec.js';
import { type Manifest, manifestPrefix, parseManifestKey } from '../../manifest/format.js';
import { aofPrefix } from '../../paths.js';
import type { ObjectStore } from '../../store/object-store.js';
import { type TailNotice, TailNoticeKind } from './tail-options.js';

/**
 * The newest manifest of `shard` that verifies, among those covering more
 * than `abovePosition` (all when undefined); undefined when there is none.
 * With none verifying, the newest one's error is thrown.
 */
export async function newestManifest(
  store: ObjectStore,
  shard: string,
  notice: (notice: TailNotice) => void,
  abovePosition = -1,
): Promise<Manifest | undefined> {
  const keys: Array<{ key: string; coveredPosition: number }> = [];
  for await (const key of store.list(manifestPrefix(shard))) {
    const named = parseManifestKey(key);
    if (named && named.coveredPosition > abovePosition) {
      keys.push({ key, coveredPosition: named.coveredPosition });
    }
  }
  keys.sort((a, b) => b.coveredPosition - a.coveredPosition);
  let firstError: CorruptDataError | undefined;
  for (const { key } of keys) {
    try {
      const bytes = await store.get(key);
      if (!bytes) throw new CorruptDataError(key, 'listed as an export but no longer readable');
      const manifest = decodeManifest(key, bytes);
      if (firstError) {
        notice({
          kind: TailNoticeKind.exportFallback,
          message: `export ${firstError.objectKey} does not verify (${firstError.name}: ${firstError.message}); reading the older export ${key}`,
          position: manifest.header.coveredPosition,
        });
      }
      return manifest;
    } catch (error) {
      if (!(error instanceof CorruptDataError)) throw error;
      firstError ??= error;
    }
  }
  if (firstError) throw firstError;
  return undefined;
}

/** Throws when `shard` has a legacy AOF export (the tail does not read one; see above). */
export async function refuseLegacyExport(store: ObjectStore, shard: string): Promise<void> {
  for await (const key of store.list(aofPrefix(shard))) {
    throw new UnavailableError(
      `shard ${shard}: its export is a legacy AOF export (${key}), which tail does not read; the next export (\`shardwal export ${shard}\`) converts it to a manifest`,
    );
  }
}
