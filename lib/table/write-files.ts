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
import { ColumnBounds } from './bounds.js';
import type { FixedColumns } from './data-columns.js';
import { DataColumns } from './data-columns.js';
import { DataFile, ROW_GROUP_ROWS, type TableRow } from './data-file.js';
import { newUuid, type TableDeps } from './deps.js';
import type { TableMetadata } from './metadata.js';
import { metadataPrefix, tablePrefix, uriOfKey } from './paths.js';
import { Projector } from './project.js';
import {
  FieldId,
  type IcebergSchema,
  type PartitionBy,
  partitionPath,
  partitionSpec,
  partitionValue,
  type TypedColumn,
} from './schema.js';

/** Stores `bytes` at a fresh key; a taken key is a bug (names are unique). */
async function putNew(deps: TableDeps, key: string, bytes: Uint8Array): Promise<void> {
  if ((await deps.store.putIfAbsent(key, bytes)) !== 'created') {
    throw new InternalError(`fresh table object key ${key} was taken`);
  }
}

/** A partition's data file being written. */
interface OpenFile {
  value: number | string;
  key: string;
  file: DataFile;
  /** Its current row group, not yet handed to the Parquet writer. */
  group: DataColumns;
  /** Row text so far, plus 64 a row for the other columns (the measure files are cut by). */
  bytes: number;
  bounds: ColumnBounds;
}

/**
 * Writes rows into data files as they arrive (the committer hands each row
 * over while the WAL reader has it at hand, compaction each row it read):
 * one open file per partition value, whose current row group is held column
 * by column and handed to the Parquet writer once it has `ROW_GROUP_ROWS`
 * rows; a file ends after the row that brings it to the target size. Typed
 * columns are projected as rows arrive, refusals counted. Finished files
 * are held as their (compressed) bytes until `store`, which the caller
 * calls once the rows are known good (a WAL read verified to its end).
 */
export class DataFileWriter {
  /** Values of typed columns that could not be stored exactly, by column. */
  readonly refused: Record<string, number> = {};
  /** Rows added. */
  rows = 0;
  readonly #deps: TableDeps;
  readonly #schema: IcebergSchema;
  readonly #by: PartitionBy;
  readonly #location: string;
  readonly #table: string;
  readonly #typedCount: number;
  readonly #projector: Projector;
  /** Key prefix of this attempt's files: their creation time and a fresh id. */
  readonly #name: string;
  readonly #open = new Map<number | string, OpenFile>();
  /** Finished files by partition, partitions in the order first seen. */
  readonly #done = new Map<
    number | string,
    Array<{ key: string; bytes: Uint8Array; rows: number; bounds: ColumnBounds }>
  >();
  /** The file the previous row went to: rows mostly arrive partition by partition. */
  #last: OpenFile | undefined;
  #index = 0;

  constructor(
    deps: TableDeps,
    table: string,
    location: string,
    schema: IcebergSchema,
    by: PartitionBy,
  ) {
    this.#deps = deps;
    this.#table = table;
    this.#location = location;
    this.#schema = schema;
    this.#by = by;
    const typed = schema.fields.filter((f) => f.id > FieldId.row);
    this.#typedCount = typed.length;
    this.#projector = new Projector(
      typed.map((f) => ({ name: f.name, type: f.type as TypedColumn['type'] })),
    );
    this.#name = `${deps.now()}-${newUuid(deps)}`;
  }

  /** Adds a row, projecting its typed columns from `text` (`fixed` is copied: the caller may reuse it). */
  add(fixed: FixedColumns, text: string | null): void {
    const open = this.#fileOf(fixed);
    open.group.add(fixed, text);
    open.bounds.add(fixed.shard, fixed.offset, fixed.position, fixed.key === null);
    this.#projector.projectInto(text ?? undefined, open.group.typed, this.refused);
    this.#added(open, text);
  }

  /** Adds a row whose typed values are given (compaction: re-projected for the file's own columns). */
  addRow(row: TableRow): void {
    const open = this.#fileOf(row);
    open.group.add(row, row.text);
    open.bounds.add(row.shard, row.offset, row.position, row.key === null);
    for (let i = 0; i < this.#typedCount; i++) open.group.typed[i]!.push(row.typed[i] ?? null);
    this.#added(open, row.text);
  }

  /** Finishes the open files and stores every file; returns their manifest records. */
  async store(): Promise<DataFileRecord[]> {
    for (const open of [...this.#open.values()]) this.#close(open);
    const field = partitionFieldName(this.#by);
    const out: DataFileRecord[] = [];
    for (const [value, files] of this.#done) {
      for (const { key, bytes, rows, bounds } of files) {
        await putNew(this.#deps, key, bytes);
        const { lower, upper, nulls } = bounds.entries();
        out.push({
          content: 0,
          file_path: uriOfKey(this.#location, this.#table, key),
          file_format: 'PARQUET',
          partition: { [field]: value },
          record_count: rows,
          file_size_in_bytes: bytes.byteLength,
          null_value_counts: nulls,
          lower_bounds: lower,
          upper_bounds: upper,
          sort_order_id: 0,
        });
      }
    }
    return out;
  }

  #fileOf(row: { shard: string; ingestedAtMs: number }): OpenFile {
    const value = partitionValue(this.#by, row.shard, row.ingestedAtMs);
    if (this.#last?.value === value) return this.#last;
    let open = this.#open.get(value);
    if (!open) {
      if (!this.#done.has(value)) this.#done.set(value, []);
      open = {
        value,
        key: `${tablePrefix(this.#table)}data/${partitionPath(this.#by, value)}/${this.#name}-${this.#index}.parquet`,
        file: new DataFile(this.#schema, this.#deps.codec),
        group: new DataColumns(this.#typedCount),
        bytes: 0,
        bounds: new ColumnBounds(),
      };
      this.#index += 1;
      this.#open.set(value, open);
    }
    this.#last = open;
    return open;
  }

  #added(open: OpenFile, text: string | null): void {
    this.rows += 1;
    open.bytes += (text?.length ?? 0) + 64;
    if (open.group.length >= ROW_GROUP_ROWS) {
      open.file.addRowGroup(open.group);
      open.group = new DataColumns(this.#typedCount);
    }
    if (open.bytes >= this.#deps.config.targetFileBytes) this.#close(open);
  }

  #close(open: OpenFile): void {
    open.file.addRowGroup(open.group);
    const bytes = open.file.finish();
    this.#done
      .get(open.value)!
      .push({ key: open.key, bytes, rows: open.file.rows, bounds: open.bounds });
    this.#open.delete(open.value);
    if (this.#last === open) this.#last = undefined;
  }
}

/** Writes `rows` (typed values given) as data files of `schema`; returns their manifest records. */
export async function writeDataFiles(
  deps: TableDeps,
  table: string,
  location: string,
  schema: IcebergSchema,
  by: PartitionBy,
  rows: readonly TableRow[],
): Promise<DataFileRecord[]> {
  const writer = new DataFileWriter(deps, table, location, schema, by);
  for (const row of rows) writer.addRow(row);
  return writer.store();
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
