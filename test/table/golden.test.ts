/**
 * Golden files pin the table's metadata JSON and Avro schemas, and the
 * manifests and manifest lists a commit writes, decoded with avsc, carry
 * every field and key-value the Iceberg v2 spec requires.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MANIFEST_LIST_SCHEMA, manifestEntrySchema, readContainer } from '../../lib/table/avro.js';
import { currentSnapshot, loadCurrent } from '../../lib/table/metadata.js';
import { keyOfUri, metadataKey } from '../../lib/table/paths.js';
import { goldenCommit } from './helpers.js';

const golden = (name: string) => readFileSync(new URL(`./golden/${name}`, import.meta.url), 'utf8');
/** The golden commit's one data file: shard `orders-eu`, offsets 0-1, both rows in the WAL object at 0. */
const GOLDEN_BOUNDS = {
  lower: [
    [1, 'orders-eu'],
    [3, 0],
    [4, 0],
  ],
  upper: [
    [1, 'orders-eu'],
    [3, 1],
    [4, 0],
  ],
};
const pretty = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

async function committed() {
  const { store, deps, report } = await goldenCommit();
  expect(report.status).toBe('committed');
  const loaded = (await loadCurrent(store, 'orders_eu'))!;
  return { store, deps, loaded };
}

describe('table formats', () => {
  it('writes exactly the checked-in metadata JSON for the golden commit', async () => {
    const { store } = await committed();
    const text = Buffer.from((await store.get(metadataKey('orders_eu', 1)))!).toString('utf8');
    expect(`${text}\n`).toBe(golden('v1.metadata.json'));
  });

  it('keeps the Avro schemas of manifests and manifest lists as checked in', () => {
    expect(pretty(manifestEntrySchema('day'))).toBe(golden('manifest-entry-day.avsc'));
    expect(pretty(MANIFEST_LIST_SCHEMA)).toBe(golden('manifest-list.avsc'));
  });

  it('writes manifests and manifest lists that avsc decodes with every field the spec requires', async () => {
    const { store, loaded } = await committed();
    const { metadata } = loaded;
    const snapshot = currentSnapshot(metadata)!;
    const list = await readContainer<Record<string, unknown>>(
      (await store.get(keyOfUri(metadata.location, 'orders_eu', snapshot['manifest-list'])))!,
    );
    expect(list.metadata).toMatchObject({
      'format-version': '2',
      'snapshot-id': String(snapshot['snapshot-id']),
      'sequence-number': '1',
      'parent-snapshot-id': 'null',
    });
    const listSchema = JSON.parse(list.metadata['avro.schema']!);
    expect(
      listSchema.fields.map((f: { name: string; 'field-id': number }) => [f.name, f['field-id']]),
    ).toEqual([
      ['manifest_path', 500],
      ['manifest_length', 501],
      ['partition_spec_id', 502],
      ['content', 517],
      ['sequence_number', 515],
      ['min_sequence_number', 516],
      ['added_snapshot_id', 503],
      ['added_files_count', 504],
      ['existing_files_count', 505],
      ['deleted_files_count', 506],
      ['added_rows_count', 512],
      ['existing_rows_count', 513],
      ['deleted_rows_count', 514],
      ['partitions', 507],
      ['key_metadata', 519],
    ]);
    expect(list.records).toHaveLength(1);
    const record = list.records[0]!;
    expect(record).toMatchObject({
      content: 0,
      sequence_number: 1,
      min_sequence_number: 1,
      added_snapshot_id: snapshot['snapshot-id'],
      added_files_count: 1,
      existing_files_count: 0,
      deleted_files_count: 0,
      added_rows_count: 2,
      partition_spec_id: 0,
    });

    const manifest = await readContainer<Record<string, unknown>>(
      (await store.get(keyOfUri(metadata.location, 'orders_eu', record.manifest_path as string)))!,
    );
    expect(JSON.parse(manifest.metadata.schema!)).toEqual(metadata.schemas[0]);
    expect(manifest.metadata).toMatchObject({
      'schema-id': '0',
      'partition-spec-id': '0',
      'format-version': '2',
      content: 'data',
    });
    expect(JSON.parse(manifest.metadata['partition-spec']!)).toEqual(
      metadata['partition-specs'][0]!.fields,
    );
    const entrySchema = JSON.parse(manifest.metadata['avro.schema']!);
    expect(entrySchema).toEqual(manifestEntrySchema('day'));
    const entry = manifest.records[0] as {
      status: number;
      snapshot_id: unknown;
      data_file: Record<string, unknown>;
    };
    expect(entry.status).toBe(1);
    expect(entry.snapshot_id).toBeNull();
    expect(entry.data_file).toMatchObject({
      content: 0,
      file_format: 'PARQUET',
      record_count: 2,
      partition: { ingested_at_day: Math.floor(Date.UTC(2026, 11, 1) / 86_400_000) },
    });
    expect(entry.data_file.file_size_in_bytes).toBeGreaterThan(0);
    // Bounds (spec fields 125/128, single-value serialization) of shard, offset and position.
    const bounds = (side: string) =>
      (entry.data_file[side] as Array<{ key: number; value: Buffer }>).map(({ key, value }) => [
        key,
        key === 1 ? value.toString('utf8') : Number(value.readBigInt64LE()),
      ]);
    expect(bounds('lower_bounds')).toEqual(GOLDEN_BOUNDS.lower);
    expect(bounds('upper_bounds')).toEqual(GOLDEN_BOUNDS.upper);
    // Null counts (spec field 110) of `key` (field 6): one of the two rows has none.
    expect(entry.data_file.null_value_counts).toEqual([{ key: 6, value: 1 }]);
    expect(String(entry.data_file.file_path)).toMatch(
      /^file:\/\/\/bucket\/tables\/orders_eu\/data\/ingested_at_day=2026-12-01\/\d{13}-[0-9a-f-]{36}-0\.parquet$/,
    );
  });
});
