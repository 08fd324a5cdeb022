/**
 * The commit: create the next metadata version create-if-absent, as the WAL
 * is written. Invariants:
 *
 * C1. Version N+1 is created only from version N read whole; of two
 *     committers on the same base exactly one creates N+1 (`putIfAbsent`),
 *     and the created file is the commit of record.
 * C2. The loser learns it lost from `'exists'` and nothing else; it reloads
 *     the current version and re-applies its change there only when the
 *     change's conditions still hold (append: the high-water it read from;
 *     replace: the files it replaces are still live), else starts over
 *     (`commit-loop.ts`, one loop for both).
 * C3. `version-hint.text` is written after the commit, best effort, and only
 *     forward: it is a hint for readers (icebird, the CLI) and the loader
 *     verifies it by probing the next versions.
 * C4. A catalog's pointer (Glue) follows the commit, after the hint; its
 *     failure is reported, never thrown (`catalog.ts` G3): the commit stands.
 */
import type { ObjectStore } from '../store/object-store.js';
import { followCommit } from './catalog.js';
import type { TableDeps } from './deps.js';
import { TableFaultPoint } from './fault-points.js';
import type { LoadedMetadata, TableMetadata } from './metadata.js';
import { metadataKey, metadataUri, versionHintKey } from './paths.js';

/** Metadata files kept in `metadata-log` (older ones are not listed; the files stay). */
const METADATA_LOG_MAX = 20;

/** Creates version `base.version + 1` (or 1) holding `next`; false when another committer took it (C1). */
export async function createVersion(
  deps: TableDeps,
  table: string,
  base: LoadedMetadata | undefined,
  next: TableMetadata,
): Promise<boolean> {
  const version = (base?.version ?? 0) + 1;
  if (base) {
    next['metadata-log'] = [
      ...base.metadata['metadata-log'],
      {
        'timestamp-ms': base.metadata['last-updated-ms'],
        'metadata-file': `${base.metadata.location}/metadata/v${base.version}.metadata.json`,
      },
    ].slice(-METADATA_LOG_MAX);
  }
  const bytes = Buffer.from(JSON.stringify(next, null, 2));
  const result = await deps.store.putIfAbsent(metadataKey(table, version), bytes);
  if (result !== 'created') return false;
  await deps.faults?.(TableFaultPoint.afterCommit, table);
  await writeHint(deps.store, table, version);
  if (deps.catalog) await followCommit(deps.catalog, table, metadataUri(next.location, version));
  return true;
}

/** Moves the hint forward to `version` (C3); never backward, never fails the commit. */
async function writeHint(store: ObjectStore, table: string, version: number): Promise<void> {
  const key = versionHintKey(table);
  const current = await store.get(key);
  if (current && Number(Buffer.from(current).toString('utf8').trim()) >= version) return;
  // The port has no overwrite: delete, then create. A reader in between finds no hint and lists.
  await store.delete(key);
  await store.putIfAbsent(key, Buffer.from(String(version)));
}
