/**
 * Turning rows into stored data files and manifests, shared by appends and
 * compaction. Every object is written create-if-absent under a fresh name
 * that carries its creation time (`paths.ts`), so a crashed or losing
 * attempt leaves only unreferenced files, which orphan removal takes.
 */

import { InternalError } from '../errors.js';
import {
  type DataFileRecord,
  EntryStatus,
  type ManifestEntry,
  type ManifestFileRecord,
  partitionBound,
  partitionFieldName,
  writeManifest,
  writeManifestList,
} from './avro.js';
import { type TableRow, writeDataFile } from './data-file.js';
import { newUuid, type TableDeps } from './deps.js';
import type { TableMetadata } from './metadata.js';
import { metadataPrefix, tablePrefix, uriOfKey } from './paths.js';
import {
  type IcebergSchema,
  type PartitionBy,
  partitionPath,
  partitionSpec,
  partitionValue,
} from './schema.js';

/** Stores `bytes` at a fresh key; a taken key is a bug (names are unique). */
async function putNew(deps: TableDeps, key: string, bytes: Uint8Array): Promise<void> {
  if ((await deps.store.putIfAbsent(key, bytes)) !== 'created') {
    throw new InternalError(`fresh table object key ${key} was taken`);
  }
}

/** Groups rows by partition value, keeping their order. */
function byPartition(by: PartitionBy, rows: readonly TableRow[]): Map<number | string, TableRow[]> {
  const groups = new Map<number | string, TableRow[]>();
  for (const row of rows) {
    const value = partitionValue(by, row.shard, row.ingestedAtMs);
    const group = groups.get(value) ?? [];
    group.push(row);
    groups.set(value, group);
  }
  return groups;
}

/** Splits a partition's rows into slices of about `targetBytes` of row text. */
function slices(rows: readonly TableRow[], targetBytes: number): TableRow[][] {
  const out: TableRow[][] = [];
  let current: TableRow[] = [];
  let bytes = 0;
  for (const row of rows) {
    current.push(row);
    bytes += (row.text?.length ?? 0) + 64;
    if (bytes >= targetBytes) {
      out.push(current);
      current = [];
      bytes = 0;
    }
  }
  if (current.length > 0) out.push(current);
  return out;
}

/** Writes `rows` as data files of `schema`; returns their manifest records. */
export async function writeDataFiles(
  deps: TableDeps,
  table: string,
  location: string,
  schema: IcebergSchema,
  by: PartitionBy,
  rows: readonly TableRow[],
): Promise<DataFileRecord[]> {
  const madeAt = deps.now();
  const attempt = newUuid(deps);
  const out: DataFileRecord[] = [];
  const field = partitionFieldName(by);
  let index = 0;
  for (const [value, group] of byPartition(by, rows)) {
    for (const slice of slices(group, deps.config.targetFileBytes)) {
      const key = `${tablePrefix(table)}data/${partitionPath(by, value)}/${madeAt}-${attempt}-${index}.parquet`;
      index += 1;
      const bytes = writeDataFile(schema, slice, deps.codec);
      await putNew(deps, key, bytes);
      out.push({
        content: 0,
        file_path: uriOfKey(location, table, key),
        file_format: 'PARQUET',
        partition: { [field]: value },
        record_count: slice.length,
        file_size_in_bytes: bytes.byteLength,
        sort_order_id: 0,
      });
    }
  }
  return out;
}

/** A stored manifest and its manifest-list record (its sequence numbers filled in at commit). */
export interface StoredManifest {
  path: string;
  length: number;
  entries: ManifestEntry[];
}

/** Writes a manifest of `entries`. */
export async function storeManifest(
  deps: TableDeps,
  table: string,
  location: string,
  schema: IcebergSchema,
  by: PartitionBy,
  entries: ManifestEntry[],
): Promise<StoredManifest> {
  const key = `${metadataPrefix(table)}${deps.now()}-${newUuid(deps)}-m0.avro`;
  const bytes = await writeManifest(schema, by, entries);
  await putNew(deps, key, bytes);
  return { path: uriOfKey(location, table, key), length: bytes.byteLength, entries };
}

/** Entries adding `files` (sequence numbers and snapshot inherited). */
export function addedEntries(files: readonly DataFileRecord[]): ManifestEntry[] {
  return files.map((data_file) => ({
    status: EntryStatus.added,
    snapshot_id: null,
    sequence_number: null,
    file_sequence_number: null,
    data_file,
  }));
}

/** The manifest-list record of a manifest this snapshot writes. */
export function manifestRecord(
  by: PartitionBy,
  manifest: StoredManifest,
  snapshotId: number,
  sequenceNumber: number,
): ManifestFileRecord {
  const count = (status: number) => manifest.entries.filter((e) => e.status === status);
  const rows = (status: number) =>
    count(status).reduce((sum, e) => sum + e.data_file.record_count, 0);
  const field = partitionFieldName(by);
  const values = manifest.entries
    .map((e) => e.data_file.partition[field])
    .filter((v): v is number | string => v !== null && v !== undefined)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const sequences = manifest.entries.map((e) => e.sequence_number ?? sequenceNumber);
  return {
    manifest_path: manifest.path,
    manifest_length: manifest.length,
    partition_spec_id: partitionSpec(by)['spec-id'],
    content: 0,
    sequence_number: sequenceNumber,
    min_sequence_number: Math.min(sequenceNumber, ...sequences),
    added_snapshot_id: snapshotId,
    added_files_count: count(EntryStatus.added).length,
    existing_files_count: count(EntryStatus.existing).length,
    deleted_files_count: count(EntryStatus.deleted).length,
    added_rows_count: rows(EntryStatus.added),
    existing_rows_count: rows(EntryStatus.existing),
    deleted_rows_count: rows(EntryStatus.deleted),
    partitions: [
      {
        contains_null: false,
        contains_nan: false,
        lower_bound: values.length ? partitionBound(values[0]!) : null,
        upper_bound: values.length ? partitionBound(values.at(-1)!) : null,
      },
    ],
    key_metadata: null,
  };
}

/** Writes the manifest list of a snapshot; returns its URI. */
export async function storeManifestList(
  deps: TableDeps,
  table: string,
  metadata: { location: string },
  snapshotId: number,
  parentId: number | null,
  sequenceNumber: number,
  manifests: readonly ManifestFileRecord[],
): Promise<string> {
  const key = `${metadataPrefix(table)}snap-${deps.now()}-${newUuid(deps)}.avro`;
  const bytes = await writeManifestList(snapshotId, parentId, sequenceNumber, manifests);
  await putNew(deps, key, bytes);
  return uriOfKey(metadata.location, table, key);
}

/** Metadata of a table that has no snapshot yet. */
export function newTableMetadata(
  tableUuid: string,
  location: string,
  schema: IcebergSchema,
  lastColumnId: number,
  by: PartitionBy,
  nowMs: number,
): TableMetadata {
  const spec = partitionSpec(by);
  return {
    'format-version': 2,
    'table-uuid': tableUuid,
    location,
    'last-sequence-number': 0,
    'last-updated-ms': nowMs,
    'last-column-id': lastColumnId,
    schemas: [schema],
    'current-schema-id': schema['schema-id'],
    'partition-specs': [spec],
    'default-spec-id': spec['spec-id'],
    'last-partition-id': 1000,
    properties: { 'write.format.default': 'parquet', 'write.parquet.compression-codec': 'gzip' },
    'current-snapshot-id': -1,
    snapshots: [],
    'snapshot-log': [],
    'metadata-log': [],
    'sort-orders': [{ 'order-id': 0, fields: [] }],
    'default-sort-order-id': 0,
    refs: {},
  };
}
