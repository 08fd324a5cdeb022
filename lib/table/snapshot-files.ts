/** Reading what a snapshot lists: its manifests and their live data files. */
import { ListedObjectMissingError } from '../errors.js';
import {
  type DataFileRecord,
  EntryStatus,
  type ManifestEntry,
  type ManifestFileRecord,
  readContainer,
} from './avro.js';
import type { TableDeps } from './deps.js';
import type { Snapshot, TableMetadata } from './metadata.js';
import { keyOfUri } from './paths.js';

/** What reading a snapshot needs: the store alone (the history reader has no other table deps). */
type StoreDeps = Pick<TableDeps, 'store'>;

/** A manifest with its entries, sequence numbers inherited (spec: "Sequence Number Inheritance"). */
export interface ReadManifest {
  record: ManifestFileRecord;
  entries: ManifestEntry[];
}

async function readObject(deps: StoreDeps, key: string): Promise<Uint8Array> {
  const bytes = await deps.store.get(key);
  if (!bytes) throw new ListedObjectMissingError(key);
  return bytes;
}

/** The manifest list of `snapshot`. */
export async function readManifestList(
  deps: StoreDeps,
  table: string,
  metadata: TableMetadata,
  snapshot: Snapshot,
): Promise<ManifestFileRecord[]> {
  const key = keyOfUri(metadata.location, table, snapshot['manifest-list']);
  return (await readContainer<ManifestFileRecord>(await readObject(deps, key))).records;
}

/** Every manifest of `snapshot` with its entries. */
export async function readManifests(
  deps: StoreDeps,
  table: string,
  metadata: TableMetadata,
  snapshot: Snapshot,
): Promise<ReadManifest[]> {
  const out: ReadManifest[] = [];
  for (const record of await readManifestList(deps, table, metadata, snapshot)) {
    const key = keyOfUri(metadata.location, table, record.manifest_path);
    const { records } = await readContainer<ManifestEntry>(await readObject(deps, key));
    for (const entry of records) {
      if (entry.status === EntryStatus.added) {
        entry.snapshot_id ??= record.added_snapshot_id;
        entry.sequence_number ??= record.sequence_number;
        entry.file_sequence_number ??= record.sequence_number;
      }
    }
    out.push({ record, entries: records });
  }
  return out;
}

/** A live data file with the sequence numbers it carries. */
export interface LiveFile {
  file: DataFileRecord;
  snapshotId: number;
  sequenceNumber: number;
  fileSequenceNumber: number;
}

/** The data files `snapshot` reads (entries not deleted). */
export async function liveFiles(
  deps: StoreDeps,
  table: string,
  metadata: TableMetadata,
  snapshot: Snapshot | undefined,
): Promise<LiveFile[]> {
  if (!snapshot) return [];
  const out: LiveFile[] = [];
  for (const manifest of await readManifests(deps, table, metadata, snapshot)) {
    for (const entry of manifest.entries) {
      if (entry.status === EntryStatus.deleted) continue;
      out.push({
        file: entry.data_file,
        snapshotId: entry.snapshot_id!,
        sequenceNumber: entry.sequence_number!,
        fileSequenceNumber: entry.file_sequence_number!,
      });
    }
  }
  return out;
}
