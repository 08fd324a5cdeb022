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
import { ByteWriter, ParquetWriter } from 'hyparquet-writer';
import type { DataColumns, FixedColumns } from './data-columns.js';
import type { TypedValue } from './project.js';
import { decimalOf, FieldId, type IcebergField, type IcebergSchema } from './schema.js';

/** Parquet codecs the committer can write. */
export const ParquetCodec = { gzip: 'GZIP', snappy: 'SNAPPY', none: 'UNCOMPRESSED' } as const;
export type ParquetCodec = (typeof ParquetCodec)[keyof typeof ParquetCodec];

/** The codec data files are written with (see the module comment). */
const DEFAULT_CODEC: ParquetCodec = ParquetCodec.gzip;

/** gzip level of data pages: zlib's default, the same as segments pay. */
const GZIP_LEVEL = 6;

/** Rows per row group: a file's rows are written (and held) one group at a time. */
export const ROW_GROUP_ROWS = 100_000;

/** A Parquet schema element, as the writer types it. */
type SchemaElement = ConstructorParameters<typeof ParquetWriter>[0]['schema'][number];

/** One table row as the data file stores it (compaction reads files back into these). */
export interface TableRow extends FixedColumns {
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

/** Largest |ms| whose microseconds are a safe integer (about the year 2255). */
const SAFE_MS = 9e12;

/** Microseconds of `ms`: a number while exact, else a BigInt (the writer stores either as INT64). */
function micros(ms: number): number | bigint {
  return Math.abs(ms) <= SAFE_MS ? ms * 1000 : BigInt(ms) * 1000n;
}

/** Column values of `rows` for `field` (`typedIndex`: its index among the typed fields). */
function columnData(field: IcebergField, rows: DataColumns, typedIndex: number): unknown[] {
  switch (field.id) {
    case FieldId.shard:
      return rows.shard;
    case FieldId.seq:
      return rows.seq;
    case FieldId.offset:
      return rows.offset;
    case FieldId.position:
      return rows.position;
    case FieldId.ingestedAt:
      return rows.ingestedAtMs.map(micros);
    case FieldId.key:
      return rows.key;
    case FieldId.op:
      return rows.op;
    case FieldId.row:
      return rows.texts();
    default:
      return rows.typed[typedIndex]!;
  }
}

/**
 * One Parquet file of `schema`, written a row group at a time (the
 * committer hands each group over as soon as it is full, so it holds one
 * group's rows, not a file's).
 */
export class DataFile {
  readonly #schema: IcebergSchema;
  readonly #bytes = new ByteWriter();
  readonly #writer: ParquetWriter;
  /** Rows written so far. */
  rows = 0;

  constructor(schema: IcebergSchema, codec: ParquetCodec = DEFAULT_CODEC) {
    this.#schema = schema;
    this.#writer = new ParquetWriter({
      writer: this.#bytes,
      schema: parquetSchema(schema),
      codec,
      compressors: { GZIP: (bytes: Uint8Array) => gzipSync(bytes, { level: GZIP_LEVEL }) },
      kvMetadata: [{ key: 'iceberg.schema', value: JSON.stringify(schema) }],
      createdBy: 'shardwal',
    });
  }

  /** Writes `rows` as the file's next row group. */
  addRowGroup(rows: DataColumns): void {
    if (rows.length === 0) return;
    let typedIndex = -1;
    const columns = this.#schema.fields.map((field) => {
      if (field.id > FieldId.row) typedIndex += 1;
      const delta = field.type === 'long' || field.type === 'timestamptz';
      return {
        name: field.name,
        data: columnData(field, rows, typedIndex) as never,
        // Sequences and times ascend: delta encoding stores them in a few bits a row.
        ...(delta ? { encoding: 'DELTA_BINARY_PACKED' as const } : {}),
      };
    });
    this.#writer.write({ columnData: columns, rowGroupSize: rows.length });
    this.rows += rows.length;
  }

  /** The file's bytes (footer written); the file takes no more rows. */
  finish(): Uint8Array {
    this.#writer.finish();
    return new Uint8Array(this.#bytes.getBuffer());
  }
}
