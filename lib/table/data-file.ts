/**
 * Parquet data files: one per partition value and size slice of a commit,
 * with Iceberg field ids on every column and the table schema in the
 * `iceberg.schema` key-value metadata, as Iceberg writers do. Columns map to
 * Parquet as the Iceberg spec says: long → INT64, timestamptz → INT64
 * TIMESTAMP(MICROS, UTC), date → INT32 DATE, decimal(P,S) → INT64 for
 * P ≤ 18, else fixed bytes of the least width that holds P digits, string →
 * UTF8. Long and timestamp columns are delta-encoded (they mostly ascend).
 *
 * Codec: GZIP (node's zlib) by default; `docs/tables.md` gives the
 * measurement behind the choice (`npm run bench:table`).
 */
import { gzipSync } from 'node:zlib';
import { ByteWriter, parquetWrite } from 'hyparquet-writer';
import type { TypedValue } from './project.js';
import { decimalOf, FieldId, type IcebergField, type IcebergSchema } from './schema.js';

/** Parquet codecs the committer can write. */
export const ParquetCodec = { gzip: 'GZIP', snappy: 'SNAPPY', none: 'UNCOMPRESSED' } as const;
export type ParquetCodec = (typeof ParquetCodec)[keyof typeof ParquetCodec];

/** The codec data files are written with (see the module comment). */
const DEFAULT_CODEC: ParquetCodec = ParquetCodec.gzip;

/** gzip level of data pages: zlib's default, the same as segments pay. */
const GZIP_LEVEL = 6;

/** A Parquet schema element, as the writer types it. */
type SchemaElement = NonNullable<Parameters<typeof parquetWrite>[0]['schema']>[number];

/** One table row as the data file stores it. */
export interface TableRow {
  shard: string;
  seq: number;
  offset: number;
  position: number;
  ingestedAtMs: number;
  key: string | null;
  op: string;
  text: string | null;
  /** Typed columns, in the schema's order after the fixed ones. */
  typed: TypedValue[];
}

/** Least bytes of a two's-complement integer holding `precision` decimal digits. */
function decimalBytes(precision: number): number {
  const max = 10n ** BigInt(precision) - 1n;
  let bytes = 1;
  while (max >= 2n ** BigInt(8 * bytes - 1)) bytes += 1;
  return bytes;
}

function element(field: IcebergField): SchemaElement {
  const base = {
    name: field.name,
    field_id: field.id,
    repetition_type: field.required ? 'REQUIRED' : 'OPTIONAL',
  } as const;
  const decimal = decimalOf(field.type);
  if (decimal && decimal.precision <= 18) {
    // The spec's int64 form for P ≤ 18: smaller than fixed bytes, and it compresses.
    return {
      ...base,
      type: 'INT64',
      converted_type: 'DECIMAL',
      precision: decimal.precision,
      scale: decimal.scale,
      logical_type: { type: 'DECIMAL', precision: decimal.precision, scale: decimal.scale },
    } as SchemaElement;
  }
  if (decimal) {
    return {
      ...base,
      type: 'FIXED_LEN_BYTE_ARRAY',
      type_length: decimalBytes(decimal.precision),
      converted_type: 'DECIMAL',
      precision: decimal.precision,
      scale: decimal.scale,
      logical_type: { type: 'DECIMAL', precision: decimal.precision, scale: decimal.scale },
    } as SchemaElement;
  }
  switch (field.type) {
    case 'long':
      return { ...base, type: 'INT64' };
    case 'double':
      return { ...base, type: 'DOUBLE' };
    case 'boolean':
      return { ...base, type: 'BOOLEAN' };
    case 'date':
      return { ...base, type: 'INT32', converted_type: 'DATE', logical_type: { type: 'DATE' } };
    case 'timestamptz':
      return {
        ...base,
        type: 'INT64',
        logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: true, unit: 'MICROS' },
      } as SchemaElement;
    default:
      return {
        ...base,
        type: 'BYTE_ARRAY',
        converted_type: 'UTF8',
        logical_type: { type: 'STRING' },
      } as SchemaElement;
  }
}

/** The Parquet schema of an Iceberg schema. */
function parquetSchema(schema: IcebergSchema): SchemaElement[] {
  return [{ name: 'table', num_children: schema.fields.length }, ...schema.fields.map(element)];
}

/** Column values of `rows` for `field` (the index of a typed field is `index - fixed`). */
function columnData(field: IcebergField, rows: readonly TableRow[], typedIndex: number): unknown[] {
  switch (field.id) {
    case FieldId.shard:
      return rows.map((r) => r.shard);
    case FieldId.seq:
      return rows.map((r) => BigInt(r.seq));
    case FieldId.offset:
      return rows.map((r) => BigInt(r.offset));
    case FieldId.position:
      return rows.map((r) => BigInt(r.position));
    case FieldId.ingestedAt:
      return rows.map((r) => BigInt(r.ingestedAtMs) * 1000n);
    case FieldId.key:
      return rows.map((r) => r.key);
    case FieldId.op:
      return rows.map((r) => r.op);
    case FieldId.row:
      return rows.map((r) => r.text);
    default:
      return rows.map((r) => r.typed[typedIndex] ?? null);
  }
}

/** Writes `rows` as one Parquet file of `schema`; returns its bytes. */
export function writeDataFile(
  schema: IcebergSchema,
  rows: readonly TableRow[],
  codec: ParquetCodec = DEFAULT_CODEC,
): Uint8Array {
  const writer = new ByteWriter();
  let typedIndex = -1;
  const columns = schema.fields.map((field) => {
    if (field.id > FieldId.row) typedIndex += 1;
    const delta = field.type === 'long' || field.type === 'timestamptz';
    return {
      name: field.name,
      data: columnData(field, rows, typedIndex) as never,
      // Sequences and times ascend: delta encoding stores them in a few bits a row.
      ...(delta ? { encoding: 'DELTA_BINARY_PACKED' as const } : {}),
    };
  });
  parquetWrite({
    writer,
    columnData: columns,
    schema: parquetSchema(schema),
    codec,
    compressors: { GZIP: (bytes: Uint8Array) => gzipSync(bytes, { level: GZIP_LEVEL }) },
    rowGroupSize: 100_000,
    kvMetadata: [{ key: 'iceberg.schema', value: JSON.stringify(schema) }],
    createdBy: 'shardwal',
  });
  return new Uint8Array(writer.getBuffer());
}
