/**
 * Which stored files a set of snapshots references: their manifest lists,
 * their manifests and every data file their manifests list as live. A file
 * a replace snapshot lists as deleted is needed only by older snapshots,
 * whose own manifests list it as live while they are kept.
 */
import { EntryStatus } from './avro.js';
import type { TableDeps } from './deps.js';
import type { Snapshot, TableMetadata } from './metadata.js';
import { keyOfUri } from './paths.js';
import { readManifests } from './snapshot-files.js';

/** Keys of every file the given snapshots reach. */
export async function referencedKeys(
  deps: TableDeps,
  table: string,
  metadata: TableMetadata,
  snapshots: readonly Snapshot[],
): Promise<Set<string>> {
  const keys = new Set<string>();
  const seenManifests = new Set<string>();
  const key = (uri: string) => keyOfUri(metadata.location, table, uri);
  for (const snapshot of snapshots) {
    keys.add(key(snapshot['manifest-list']));
    for (const manifest of await readManifests(deps, table, metadata, snapshot)) {
      if (seenManifests.has(manifest.record.manifest_path)) continue;
      seenManifests.add(manifest.record.manifest_path);
      keys.add(key(manifest.record.manifest_path));
      for (const entry of manifest.entries) {
        if (entry.status !== EntryStatus.deleted) keys.add(key(entry.data_file.file_path));
      }
    }
  }
  return keys;
}
