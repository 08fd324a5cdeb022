import { parquetMetadata, parquetReadObjects } from 'hyparquet';
import { describe, expect, it } from 'vitest';
import { MemoryObjectStore } from '../../lib/store/memory-store.js';
import { ROW_GROUP_ROWS, type TableRow } from '../../lib/table/data-file.js';
import { keyOfUri, tableLocation } from '../../lib/table/paths.js';
import { readDataFile } from '../../lib/table/read-data-file.js';
import { evolveSchema, RowOp } from '../../lib/table/schema.js';
import { DataFileWriter } from '../../lib/table/write-files.js';
import { testConfig, testDeps } from './helpers.js';

const TABLE = 'clicks';
const HOUR = 3_600_000;
const T0 = Date.UTC(2026, 11, 1);
const schema = evolveSchema('test', TABLE, undefined, 0, [
  { name: 'n', type: 'long' },
  { name: 'ts', type: 'timestamptz' },
]).schema;

function row(offset: number, text: string | null, hour = 0, key: string | null = null): TableRow {
  return {
    shard: 'clicks-0',
    seq: 1 + Math.floor(offset / 10),
    offset,
    position: Math.floor(offset / 100),
    ingestedAtMs: T0 + hour * HOUR + offset,
    key,
    op: key === null ? RowOp.append : text === null ? RowOp.delete : RowOp.upsert,
    text,
    typed: [],
  };
}

async function written(deps: ReturnType<typeof testDeps>, writer: DataFileWriter) {
  const { compressors } = await import('hyparquet-compressors');
  const location = tableLocation(deps.locationBase, TABLE);
  const files = await writer.store();
  return Promise.all(
    files.map(async (file) => {
      const bytes = (await deps.store.get(keyOfUri(location, TABLE, file.file_path)))!;
      const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
      return {
        file,
        rows: await readDataFile(bytes, schema),
        typed: (
          (await parquetReadObjects({
            file: buffer as ArrayBuffer,
            columns: ['n', 'ts'],
            compressors,
          })) as Array<Record<string, unknown>>
        ).map((r) => [r.n, r.ts]),
        groups: parquetMetadata(buffer as ArrayBuffer).row_groups.map((g) => Number(g.num_rows)),
      };
    }),
  );
}

describe('DataFileWriter', () => {
  describe('add', () => {
    it('writes each partition its rows in arrival order, typed columns projected, when rows of partitions interleave', async () => {
      const deps = testDeps(new MemoryObjectStore(), testConfig('*'));
      const writer = new DataFileWriter(
        deps,
        TABLE,
        tableLocation(deps.locationBase, TABLE),
        schema,
        'hour',
      );
      const rows = [
        row(0, '{"n":1,"ts":"2026-12-01T00:00:00.000001Z"}', 0),
        row(1, '{"n":"x","é":"\u{1F600}"}', 1),
        row(2, null, 0, '"k"'),
        row(3, '{"n":3}', 1, '"k"'),
        row(4, '{"n":18446744073709551616}', 0),
      ];
      for (const r of rows) writer.add(r, r.text);
      expect(writer.rows).toBe(5);
      expect(writer.refused).toEqual({ n: 2 });
      const files = await written(deps, writer);
      expect(files.map((f) => [f.file.partition, f.file.record_count])).toEqual([
        [{ ingested_at_hour: T0 / HOUR }, 3],
        [{ ingested_at_hour: T0 / HOUR + 1 }, 2],
      ]);
      expect(files.map((f) => f.rows.map((r) => [r.offset, r.key, r.op, r.text]))).toEqual([
        [
          [0, null, 'append', rows[0]!.text],
          [2, '"k"', 'delete', null],
          [4, null, 'append', rows[4]!.text],
        ],
        [
          [1, null, 'append', rows[1]!.text],
          [3, '"k"', 'upsert', '{"n":3}'],
        ],
      ]);
      // The typed columns as stored (hyparquet reads timestamps as Dates, to the millisecond).
      expect(files.map((f) => f.typed)).toEqual([
        [
          [1n, new Date(T0)],
          [null, null],
          [null, null],
        ],
        [
          [null, null],
          [3n, null],
        ],
      ]);
    });

    it('cuts a file after the row that brings it to the target size, and a row group every ROW_GROUP_ROWS rows', async () => {
      const text = `{"n":1,"pad":"${'x'.repeat(40)}"}`;
      // Files are cut by row text plus 64 a row: the file reaches the target at its perFile-th row, not before.
      const perRow = text.length + 64;
      const perFile = ROW_GROUP_ROWS + 10;
      const deps = testDeps(
        new MemoryObjectStore(),
        testConfig('*', { targetFileBytes: perFile * perRow - 100 }),
      );
      const writer = new DataFileWriter(
        deps,
        TABLE,
        tableLocation(deps.locationBase, TABLE),
        schema,
        'day',
      );
      const count = perFile + 5;
      for (let i = 0; i < count; i++) {
        const r = row(i, text);
        writer.add(r, r.text);
      }
      const files = await written(deps, writer);
      expect(files.map((f) => [f.file.record_count, f.groups])).toEqual([
        [perFile, [ROW_GROUP_ROWS, 10]],
        [5, [5]],
      ]);
      expect(files.flatMap((f) => f.rows.map((r) => r.offset))).toEqual(
        Array.from({ length: count }, (_, i) => i),
      );
      expect(files.every((f) => f.rows.every((r) => r.text === text))).toBe(true);
    });
  });
});
