/**
 * Manifests and manifest lists: Avro object container files whose schemas
 * carry the Iceberg field ids (`field-id`, `element-id`), written as the
 * file's `avro.schema` exactly as given here, with the key-value metadata
 * the spec requires (manifests: `schema`, `schema-id`, `partition-spec`,
 * `partition-spec-id`, `format-version`, `content`; manifest lists:
 * `snapshot-id`, `parent-snapshot-id`, `sequence-number`, `format-version`).
 * Golden files in `test/table/golden/` pin both schemas.
 */
import { Readable } from 'node:stream';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import avro from 'avsc';
import type { BoundEntry, CountEntry } from './bounds.js';
import type { IcebergSchema, PartitionBy, PartitionSpec } from './schema.js';
import { PARTITION_FIELD_ID, partitionSpec } from './schema.js';

/** Manifest entry status. */
export const EntryStatus = { existing: 0, added: 1, deleted: 2 } as const;
export type EntryStatus = (typeof EntryStatus)[keyof typeof EntryStatus];

/** A data file as a manifest lists it. */
export interface DataFileRecord {
  content: 0;
  file_path: string;
  file_format: 'PARQUET';
  partition: Record<string, number | string | null>;
  record_count: number;
  file_size_in_bytes: number;
  /** Rows whose `key` is null (`bounds.ts`); null or absent in files written before it was recorded. */
  null_value_counts?: CountEntry[] | null;
  /** Bounds of `shard`, `offset` and `position` (`bounds.ts`); null or absent in files written before them. */
  lower_bounds?: BoundEntry[] | null;
  upper_bounds?: BoundEntry[] | null;
  sort_order_id: number | null;
}

/** One manifest entry. */
export interface ManifestEntry {
  status: EntryStatus;
  snapshot_id: number | null;
  sequence_number: number | null;
  file_sequence_number: number | null;
  data_file: DataFileRecord;
}

/** One manifest as a manifest list records it. */
export interface ManifestFileRecord {
  manifest_path: string;
  manifest_length: number;
  partition_spec_id: number;
  content: 0;
  sequence_number: number;
  min_sequence_number: number;
  added_snapshot_id: number;
  added_files_count: number;
  existing_files_count: number;
  deleted_files_count: number;
  added_rows_count: number;
  existing_rows_count: number;
  deleted_rows_count: number;
  partitions: Array<{
    contains_null: boolean;
    contains_nan: boolean | null;
    lower_bound: Buffer | null;
    upper_bound: Buffer | null;
  }> | null;
  key_metadata: Buffer | null;
}

/** The Avro type of the partition tuple of `by`. */
function partitionFieldType(by: PartitionBy): unknown {
  if (by === 'day') return ['null', { type: 'int', logicalType: 'date' }];
  if (by === 'hour') return ['null', 'int'];
  return ['null', 'string'];
}

/** The Avro type of a map of column id to `value` (bounds: bytes; counts: long): an array of key/value records (spec: "Maps with non-string keys"). */
function columnMapType(keyId: number, valueId: number, value: 'bytes' | 'long'): unknown {
  return [
    'null',
    {
      type: 'array',
      logicalType: 'map',
      items: {
        type: 'record',
        name: `k${keyId}_v${valueId}`,
        fields: [
          { name: 'key', type: 'int', 'field-id': keyId },
          { name: 'value', type: value, 'field-id': valueId },
        ],
      },
    },
  ];
}

/** The manifest entry schema for a partition spec (field ids per the spec). */
export function manifestEntrySchema(by: PartitionBy): Record<string, unknown> {
  const spec = partitionSpec(by);
  const opt = (type: string) => ['null', type];
  return {
    type: 'record',
    name: 'manifest_entry',
    fields: [
      { name: 'status', type: 'int', 'field-id': 0 },
      { name: 'snapshot_id', type: opt('long'), default: null, 'field-id': 1 },
      { name: 'sequence_number', type: opt('long'), default: null, 'field-id': 3 },
      { name: 'file_sequence_number', type: opt('long'), default: null, 'field-id': 4 },
      {
        name: 'data_file',
        'field-id': 2,
        type: {
          type: 'record',
          name: 'r2',
          fields: [
            { name: 'content', type: 'int', 'field-id': 134 },
            { name: 'file_path', type: 'string', 'field-id': 100 },
            { name: 'file_format', type: 'string', 'field-id': 101 },
            {
              name: 'partition',
              'field-id': 102,
              type: {
                type: 'record',
                name: 'r102',
                fields: spec.fields.map((field) => ({
                  name: field.name,
                  type: partitionFieldType(by),
                  default: null,
                  'field-id': field['field-id'],
                })),
              },
            },
            { name: 'record_count', type: 'long', 'field-id': 103 },
            { name: 'file_size_in_bytes', type: 'long', 'field-id': 104 },
            {
              name: 'null_value_counts',
              type: columnMapType(121, 122, 'long'),
              default: null,
              'field-id': 110,
            },
            {
              name: 'lower_bounds',
              type: columnMapType(126, 127, 'bytes'),
              default: null,
              'field-id': 125,
            },
            {
              name: 'upper_bounds',
              type: columnMapType(129, 130, 'bytes'),
              default: null,
              'field-id': 128,
            },
            { name: 'sort_order_id', type: opt('int'), default: null, 'field-id': 140 },
          ],
        },
      },
    ],
  };
}

/** The manifest list schema (v2 `manifest_file`). */
export const MANIFEST_LIST_SCHEMA = {
  type: 'record',
  name: 'manifest_file',
  fields: [
    { name: 'manifest_path', type: 'string', 'field-id': 500 },
    { name: 'manifest_length', type: 'long', 'field-id': 501 },
    { name: 'partition_spec_id', type: 'int', 'field-id': 502 },
    { name: 'content', type: 'int', 'field-id': 517 },
    { name: 'sequence_number', type: 'long', 'field-id': 515 },
    { name: 'min_sequence_number', type: 'long', 'field-id': 516 },
    { name: 'added_snapshot_id', type: 'long', 'field-id': 503 },
    { name: 'added_files_count', type: 'int', 'field-id': 504 },
    { name: 'existing_files_count', type: 'int', 'field-id': 505 },
    { name: 'deleted_files_count', type: 'int', 'field-id': 506 },
    { name: 'added_rows_count', type: 'long', 'field-id': 512 },
    { name: 'existing_rows_count', type: 'long', 'field-id': 513 },
    { name: 'deleted_rows_count', type: 'long', 'field-id': 514 },
    {
      name: 'partitions',
      type: [
        'null',
        {
          type: 'array',
          'element-id': 508,
          items: {
            type: 'record',
            name: 'r508',
            fields: [
              { name: 'contains_null', type: 'boolean', 'field-id': 509 },
              { name: 'contains_nan', type: ['null', 'boolean'], default: null, 'field-id': 518 },
              { name: 'lower_bound', type: ['null', 'bytes'], default: null, 'field-id': 510 },
              { name: 'upper_bound', type: ['null', 'bytes'], default: null, 'field-id': 511 },
            ],
          },
        },
      ],
      default: null,
      'field-id': 507,
    },
    { name: 'key_metadata', type: ['null', 'bytes'], default: null, 'field-id': 519 },
  ],
} as const;

/** A block codec as avsc calls it. */
type BlockCodec = (input: Buffer, done: (error: Error | null, output?: Buffer) => void) => void;

/** A codec computed inline, answered at once (see `CODECS`). */
function inline(transform: (input: Buffer) => Buffer): BlockCodec {
  return (input, done) => {
    let output: Buffer;
    try {
      output = transform(input);
    } catch (error) {
      done(error as Error);
      return;
    }
    done(null, output);
  };
}

/**
 * Deflate for the containers, inline rather than avsc's default (zlib's
 * thread pool): manifests and manifest lists are small, so a pool round trip
 * a block costs more than the work, and it would make the order of events
 * depend on real time (the simulation's schedules must not).
 */
const ENCODE_CODECS = { deflate: inline((input) => deflateRawSync(input)) };
const DECODE_CODECS = { deflate: inline((input) => inflateRawSync(input)) };

/** Writes `records` as an Avro container file with `schema` and `metadata`. */
async function writeContainer(
  schema: Record<string, unknown>,
  metadata: Record<string, string>,
  records: readonly unknown[],
): Promise<Uint8Array> {
  const meta: Record<string, Buffer> = {};
  for (const [key, value] of Object.entries(metadata)) meta[key] = Buffer.from(value);
  // A plain schema object (not a Type): avsc then writes it to `avro.schema` as given, field ids kept.
  const encoder = new avro.streams.BlockEncoder(
    schema as avro.Schema,
    {
      codec: 'deflate',
      codecs: ENCODE_CODECS,
      metadata: meta,
      writeHeader: true,
    } as never,
  );
  const chunks: Buffer[] = [];
  const done = new Promise<void>((resolve, reject) => {
    encoder.on('data', (chunk: Buffer) => chunks.push(chunk));
    encoder.on('end', resolve);
    encoder.on('error', reject);
  });
  for (const record of records) encoder.write(record);
  encoder.end();
  await done;
  return new Uint8Array(Buffer.concat(chunks));
}

/** What an Avro container file holds. */
export interface AvroContainer<T> {
  metadata: Record<string, string>;
  records: T[];
}

/** Reads an Avro container file. */
export async function readContainer<T>(bytes: Uint8Array): Promise<AvroContainer<T>> {
  const decoder = new avro.streams.BlockDecoder({ codecs: DECODE_CODECS } as never);
  const records: T[] = [];
  let metadata: Record<string, string> = {};
  decoder.on(
    'metadata',
    (_type: unknown, _codec: unknown, header: { meta: Record<string, Buffer> }) => {
      metadata = Object.fromEntries(
        Object.entries(header.meta).map(([key, value]) => [key, value.toString()]),
      );
    },
  );
  await new Promise<void>((resolve, reject) => {
    decoder.on('data', (record: T) => records.push(record));
    decoder.on('end', resolve);
    decoder.on('error', reject);
    Readable.from([Buffer.from(bytes)]).pipe(decoder);
  });
  return { metadata, records };
}

/** Writes a data manifest. */
export function writeManifest(
  schema: IcebergSchema,
  by: PartitionBy,
  entries: readonly ManifestEntry[],
): Promise<Uint8Array> {
  const spec: PartitionSpec = partitionSpec(by);
  return writeContainer(
    manifestEntrySchema(by),
    {
      schema: JSON.stringify(schema),
      'schema-id': String(schema['schema-id']),
      'partition-spec': JSON.stringify(spec.fields),
      'partition-spec-id': String(spec['spec-id']),
      'format-version': '2',
      content: 'data',
    },
    // Entries carried over from manifests written before bounds and counts were recorded lack them.
    entries.map((entry) => ({
      ...entry,
      data_file: {
        ...entry.data_file,
        null_value_counts: entry.data_file.null_value_counts ?? null,
        lower_bounds: entry.data_file.lower_bounds ?? null,
        upper_bounds: entry.data_file.upper_bounds ?? null,
      },
    })),
  );
}

/** Writes a manifest list. */
export function writeManifestList(
  snapshotId: number,
  parentSnapshotId: number | null,
  sequenceNumber: number,
  manifests: readonly ManifestFileRecord[],
): Promise<Uint8Array> {
  return writeContainer(
    MANIFEST_LIST_SCHEMA as unknown as Record<string, unknown>,
    {
      'snapshot-id': String(snapshotId),
      'parent-snapshot-id': parentSnapshotId === null ? 'null' : String(parentSnapshotId),
      'sequence-number': String(sequenceNumber),
      'format-version': '2',
    },
    manifests,
  );
}

/** Single-value serialization (spec Appendix D) of a partition value. */
export function partitionBound(value: number | string): Buffer {
  if (typeof value === 'string') return Buffer.from(value, 'utf8');
  const out = Buffer.alloc(4);
  out.writeInt32LE(value);
  return out;
}

/** The partition field's name of `by`. */
export function partitionFieldName(by: PartitionBy): string {
  return partitionSpec(by).fields.find((f) => f['field-id'] === PARTITION_FIELD_ID)!.name;
}
