/**
 * Reading a data file back (compaction). Only the fixed columns are read;
 * typed columns are projected again from the exact `row` text for the
 * columns the file's own schema had (a column added later stays null, as
 * readers of the older file see it), so rewriting a file changes no value.
 */
import { gunzipSync } from 'node:zlib';
import { parquetMetadata, parquetReadObjects } from 'hyparquet';
import type { TableRow } from './data-file.js';
import { Projector } from './project.js';
import { FieldId, type IcebergSchema, type TypedColumn } from './schema.js';

const FIXED = ['shard', 'seq', 'offset', 'position', 'ingested_at', 'key', 'op', 'row'];

function micros(value: unknown): number {
  if (value instanceof Date) return value.getTime();
  return Number(BigInt(value as bigint) / 1000n);
}

/** The values of `columns` of a data file's rows, as hyparquet reads them (longs as bigints). */
export async function readColumns(
  bytes: Uint8Array,
  columns: readonly string[],
): Promise<Array<Record<string, unknown>>> {
  return (await parquetReadObjects({
    file: arrayBufferOf(bytes),
    columns: [...columns],
    compressors: { GZIP: (input: Uint8Array) => new Uint8Array(gunzipSync(input)) },
  })) as Array<Record<string, unknown>>;
}

function arrayBufferOf(bytes: Uint8Array): ArrayBuffer {
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
}

/** The rows of a data file, typed columns of `schema` re-projected. */
export async function readDataFile(bytes: Uint8Array, schema: IcebergSchema): Promise<TableRow[]> {
  const buffer = arrayBufferOf(bytes);
  const metadata = parquetMetadata(buffer);
  const own = metadata.key_value_metadata?.find((kv) => kv.key === 'iceberg.schema')?.value;
  const ownIds = new Set(own ? (JSON.parse(own) as IcebergSchema).fields.map((f) => f.id) : []);
  const typed = schema.fields.filter((f) => f.id > FieldId.row);
  const columns: TypedColumn[] = typed.map((f) => ({
    name: f.name,
    type: f.type as TypedColumn['type'],
  }));
  const rows = (await parquetReadObjects({
    file: buffer,
    metadata,
    columns: FIXED,
    compressors: { GZIP: (input: Uint8Array) => new Uint8Array(gunzipSync(input)) },
  })) as Array<Record<string, unknown>>;
  const projector = new Projector(columns);
  return rows.map((r) => {
    const text = (r.row as string | null) ?? null;
    const projection = projector.project(text ?? undefined);
    return {
      shard: r.shard as string,
      seq: Number(r.seq),
      offset: Number(r.offset),
      position: Number(r.position),
      ingestedAtMs: micros(r.ingested_at),
      key: (r.key as string | null) ?? null,
      op: r.op as string,
      text,
      typed: projection.values.map((value, i) => (ownIds.has(typed[i]!.id) ? value : null)),
    };
  });
}
