/**
 * Table metadata (Iceberg format v2 JSON) and how the current version is
 * found. The commit of record is the metadata file a commit created
 * (`commit.ts`); `version-hint.text` only says where to start looking:
 * the loader reads the hinted version (or lists when the hint is missing
 * or names nothing), then probes `v<N+1>` upward until one is absent.
 * Versions are contiguous, since each is created only on top of the one
 * before it.
 */
import { CorruptDataError, UnknownFormatVersionError } from '../errors.js';
import type { ObjectStore } from '../store/object-store.js';
import { metadataKey, metadataPrefix, versionHintKey, versionOfKey } from './paths.js';
import type { IcebergSchema, PartitionSpec } from './schema.js';

/** A snapshot as the metadata lists it. */
export interface Snapshot {
  'snapshot-id': number;
  'parent-snapshot-id'?: number;
  'sequence-number': number;
  'timestamp-ms': number;
  'manifest-list': string;
  summary: Record<string, string> & { operation: 'append' | 'replace' | 'overwrite' | 'delete' };
  'schema-id': number;
}

/** Iceberg v2 table metadata. */
export interface TableMetadata {
  'format-version': 2;
  'table-uuid': string;
  location: string;
  'last-sequence-number': number;
  'last-updated-ms': number;
  'last-column-id': number;
  schemas: IcebergSchema[];
  'current-schema-id': number;
  'partition-specs': PartitionSpec[];
  'default-spec-id': number;
  'last-partition-id': number;
  properties: Record<string, string>;
  'current-snapshot-id': number;
  snapshots: Snapshot[];
  'snapshot-log': Array<{ 'timestamp-ms': number; 'snapshot-id': number }>;
  'metadata-log': Array<{ 'timestamp-ms': number; 'metadata-file': string }>;
  'sort-orders': Array<{ 'order-id': number; fields: unknown[] }>;
  'default-sort-order-id': number;
  refs: Record<string, { 'snapshot-id': number; type: 'branch' | 'tag' }>;
}

/** A loaded version. */
export interface LoadedMetadata {
  version: number;
  metadata: TableMetadata;
}

/** The current snapshot, or undefined when the table has none. */
export function currentSnapshot(metadata: TableMetadata): Snapshot | undefined {
  const id = metadata['current-snapshot-id'];
  return metadata.snapshots.find((snapshot) => snapshot['snapshot-id'] === id);
}

/** The current schema. */
export function currentSchema(metadata: TableMetadata): IcebergSchema {
  return metadata.schemas.find((s) => s['schema-id'] === metadata['current-schema-id'])!;
}

async function readVersion(
  store: ObjectStore,
  table: string,
  version: number,
): Promise<TableMetadata | undefined> {
  const key = metadataKey(table, version);
  const bytes = await store.get(key);
  if (!bytes) return undefined;
  let metadata: TableMetadata;
  try {
    metadata = JSON.parse(Buffer.from(bytes).toString('utf8')) as TableMetadata;
  } catch (error) {
    throw new CorruptDataError(key, 'not JSON', { cause: error });
  }
  if (metadata['format-version'] !== 2) {
    throw new UnknownFormatVersionError(key, 'iceberg table', metadata['format-version'], [2]);
  }
  return metadata;
}

async function hintedVersion(store: ObjectStore, table: string): Promise<number | undefined> {
  const bytes = await store.get(versionHintKey(table));
  const version = bytes ? Number(Buffer.from(bytes).toString('utf8').trim()) : Number.NaN;
  return Number.isSafeInteger(version) && version > 0 ? version : undefined;
}

async function listedVersion(store: ObjectStore, table: string): Promise<number | undefined> {
  let newest: number | undefined;
  for await (const key of store.list(metadataPrefix(table))) {
    const version = versionOfKey(key);
    if (version !== undefined && (newest === undefined || version > newest)) newest = version;
  }
  return newest;
}

/** The table's current version, or undefined when it has never been committed. */
export async function loadCurrent(
  store: ObjectStore,
  table: string,
): Promise<LoadedMetadata | undefined> {
  let version = await hintedVersion(store, table);
  let metadata = version === undefined ? undefined : await readVersion(store, table, version);
  if (!metadata) {
    version = await listedVersion(store, table);
    if (version === undefined) return undefined;
    metadata = await readVersion(store, table, version);
    if (!metadata) return undefined;
  }
  for (;;) {
    const next = await readVersion(store, table, version! + 1);
    if (!next) return { version: version!, metadata };
    version! += 1;
    metadata = next;
  }
}
