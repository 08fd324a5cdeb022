/**
 * The table's Iceberg schema and partition spec. The fixed columns and their
 * field ids never change (golden file `test/table/golden/`); typed columns a
 * declared schema adds take the next free ids (`last-column-id` + 1), so
 * adding one is an Iceberg schema evolution and older files read it as null.
 */
import { ConfigError } from '../errors.js';

/** Types a declared column may take. */
export type TypedColumnType =
  | 'string'
  | 'long'
  | 'double'
  | 'boolean'
  | 'timestamptz'
  | 'date'
  | `decimal(${number},${number})`;

/** An Iceberg primitive type as the schema JSON spells it. */
type IcebergType = 'string' | 'long' | 'double' | 'boolean' | 'timestamptz' | 'date' | string;

/** One field of an Iceberg schema. */
export interface IcebergField {
  id: number;
  name: string;
  required: boolean;
  type: IcebergType;
  doc?: string;
}

/** An Iceberg schema (a struct). */
export interface IcebergSchema {
  type: 'struct';
  'schema-id': number;
  fields: IcebergField[];
}

/** Field ids of the fixed columns. */
export const FieldId = {
  shard: 1,
  seq: 2,
  offset: 3,
  position: 4,
  ingestedAt: 5,
  key: 6,
  op: 7,
  row: 8,
} as const;

/** The columns every table has, in order. */
export const FIXED_FIELDS: readonly IcebergField[] = [
  { id: FieldId.shard, name: 'shard', required: true, type: 'string' },
  { id: FieldId.seq, name: 'seq', required: true, type: 'long' },
  { id: FieldId.offset, name: 'offset', required: true, type: 'long' },
  { id: FieldId.position, name: 'position', required: true, type: 'long' },
  { id: FieldId.ingestedAt, name: 'ingested_at', required: true, type: 'timestamptz' },
  { id: FieldId.key, name: 'key', required: false, type: 'string' },
  { id: FieldId.op, name: 'op', required: true, type: 'string' },
  { id: FieldId.row, name: 'row', required: false, type: 'string' },
];

/** `op` values: a keyless row, a keyed write, a keyed delete. */
export const RowOp = { append: 'append', upsert: 'upsert', delete: 'delete' } as const;
export type RowOp = (typeof RowOp)[keyof typeof RowOp];

/** A declared typed column: a top-level member of the row projected into a column. */
export interface TypedColumn {
  /** Column name, also the row member it reads. */
  name: string;
  type: TypedColumnType;
}

const DECIMAL = /^decimal\((\d{1,2}),\s*(\d{1,2})\)$/;

/** Precision and scale of a decimal type, or undefined for other types. */
export function decimalOf(type: string): { precision: number; scale: number } | undefined {
  const match = DECIMAL.exec(type);
  if (!match) return undefined;
  return { precision: Number(match[1]), scale: Number(match[2]) };
}

/** Checks a declared column; `setting` names the environment setting in errors. */
export function checkTypedColumn(setting: string, table: string, column: TypedColumn): void {
  const where = `table ${table} column ${JSON.stringify(column.name)}`;
  if (!/^[a-z_][a-z0-9_]{0,127}$/.test(column.name)) {
    throw new ConfigError(setting, column.name, `${where}: names are a-z, 0-9 and '_' (Glue)`);
  }
  if (FIXED_FIELDS.some((field) => field.name === column.name)) {
    throw new ConfigError(setting, column.name, `${where}: the name of a fixed column`);
  }
  const decimal = decimalOf(column.type);
  if (decimal) {
    if (decimal.precision < 1 || decimal.precision > 38 || decimal.scale > decimal.precision) {
      throw new ConfigError(
        setting,
        column.type,
        `${where}: expected decimal(P,S), 1 ≤ P ≤ 38, S ≤ P`,
      );
    }
    return;
  }
  if (!['string', 'long', 'double', 'boolean', 'timestamptz', 'date'].includes(column.type)) {
    throw new ConfigError(
      setting,
      column.type,
      `${where}: expected string, long, double, decimal(P,S), boolean, timestamptz or date`,
    );
  }
}

/**
 * The schema for `columns` given the table's current one: existing fields
 * keep their ids (a column's type never changes: a different type is a
 * `ConfigError`), new ones take ids from `lastColumnId` + 1. Returns the
 * current schema itself when nothing is added.
 */
export function evolveSchema(
  setting: string,
  table: string,
  current: IcebergSchema | undefined,
  lastColumnId: number,
  columns: readonly TypedColumn[],
): { schema: IcebergSchema; lastColumnId: number } {
  const fields = current ? [...current.fields] : [...FIXED_FIELDS];
  let nextId = Math.max(lastColumnId, FieldId.row);
  let added = false;
  for (const column of columns) {
    const existing = fields.find((field) => field.name === column.name);
    if (existing) {
      if (existing.type !== column.type) {
        throw new ConfigError(
          setting,
          column.type,
          `table ${table} column ${column.name} is ${existing.type} in the table; a column's type does not change`,
        );
      }
      continue;
    }
    nextId += 1;
    fields.push({ id: nextId, name: column.name, required: false, type: column.type });
    added = true;
  }
  if (current && !added) return { schema: current, lastColumnId: nextId };
  const schemaId = current ? current['schema-id'] + 1 : 0;
  return { schema: { type: 'struct', 'schema-id': schemaId, fields }, lastColumnId: nextId };
}

/** How rows are partitioned (the partition spec). */
export const PartitionBy = { day: 'day', hour: 'hour', shard: 'shard' } as const;
export type PartitionBy = (typeof PartitionBy)[keyof typeof PartitionBy];

/** An Iceberg partition spec. */
export interface PartitionSpec {
  'spec-id': number;
  fields: Array<{ name: string; transform: string; 'source-id': number; 'field-id': number }>;
}

/** Id of the (only) partition field. */
export const PARTITION_FIELD_ID = 1000;

/** What a table's `default-spec-id` partitions by (the inverse of `partitionSpec`'s fixed ids). */
export function partitionByOfSpec(specId: number): PartitionBy {
  return specId === 0 ? PartitionBy.day : specId === 1 ? PartitionBy.hour : PartitionBy.shard;
}

/** The spec of `by`; its id is fixed per choice so a spec never changes meaning. */
export function partitionSpec(by: PartitionBy): PartitionSpec {
  switch (by) {
    case PartitionBy.day:
      return {
        'spec-id': 0,
        fields: [
          {
            name: 'ingested_at_day',
            transform: 'day',
            'source-id': FieldId.ingestedAt,
            'field-id': PARTITION_FIELD_ID,
          },
        ],
      };
    case PartitionBy.hour:
      return {
        'spec-id': 1,
        fields: [
          {
            name: 'ingested_at_hour',
            transform: 'hour',
            'source-id': FieldId.ingestedAt,
            'field-id': PARTITION_FIELD_ID,
          },
        ],
      };
    case PartitionBy.shard:
      return {
        'spec-id': 2,
        fields: [
          {
            name: 'shard',
            transform: 'identity',
            'source-id': FieldId.shard,
            'field-id': PARTITION_FIELD_ID,
          },
        ],
      };
  }
}

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

/** The partition value of a row: days or hours since the epoch, or the shard. */
export function partitionValue(
  by: PartitionBy,
  shard: string,
  ingestedAtMs: number,
): number | string {
  if (by === PartitionBy.day) return Math.floor(ingestedAtMs / DAY_MS);
  if (by === PartitionBy.hour) return Math.floor(ingestedAtMs / HOUR_MS);
  return shard;
}

/** The Hive-style path segment of a partition value (`ingested_at_day=2026-12-01`). */
export function partitionPath(by: PartitionBy, value: number | string): string {
  const spec = partitionSpec(by).fields[0]!;
  if (by === PartitionBy.day) {
    return `${spec.name}=${new Date(Number(value) * DAY_MS).toISOString().slice(0, 10)}`;
  }
  if (by === PartitionBy.hour) {
    return `${spec.name}=${new Date(Number(value) * HOUR_MS).toISOString().slice(0, 13)}`;
  }
  return `${spec.name}=${value}`;
}
