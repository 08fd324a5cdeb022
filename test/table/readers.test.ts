/**
 * Independent readers agree with `shardwal dump`: DuckDB (`read_parquet`
 * over the data files the table's manifests list) and icebird (an Iceberg
 * reader nobody here wrote, over HTTP from the local store's folder) read
 * every row, texts byte-identical, counts per shard equal to what the dump's
 * WAL reader prints.
 */
import { createReadStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { icebergRead } from 'icebird';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readDurableRows } from '../../lib/cli/durable-rows.js';
import { FsObjectStore } from '../../lib/store/fs-store.js';
import { appendTable } from '../../lib/table/append.js';
import { currentDataFiles, tableStatus } from '../../lib/table/table-status.js';
import { testConfig, testDeps, WalWriter } from './helpers.js';

const T0 = Date.UTC(2026, 11, 1, 23, 59, 59);
const TEXTS = [
  '{"n":1,"exact":1.00000000000000000001,"big":123456789012345678901234567890}',
  '{"n":2,"msg":"a \\"quoted\\" word, a tab\\t and é","nested":{"xs":[1,2,{"y":null}]}}',
  '{"n":3,"neg":-0,"tiny":1e-300,"amount":12.50,"ts":"2026-12-01T10:00:00.123456Z","day":"2026-12-01","ok":true,"f":0.1}',
  '{"n":4,"s":"🙂","amount":1.005,"ts":"2026-12-01T10:00:00.1234567Z","n2":9223372036854775808,"day":"2026-12-02"}',
];

let root: string;
let server: http.Server;
let baseUrl: string;
let deps: ReturnType<typeof testDeps>;

beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'shardwal-table-'));
  server = http.createServer(async (req, res) => {
    const file = path.join(root, decodeURIComponent(new URL(req.url!, 'http://x').pathname));
    const size = await stat(file).then(
      (s) => s.size,
      () => -1,
    );
    if (size < 0 || !file.startsWith(root)) {
      res.writeHead(404).end();
      return;
    }
    const range = /bytes=(\d+)-(\d*)/.exec(req.headers.range ?? '');
    if (range) {
      const start = Number(range[1]);
      const end = range[2] ? Number(range[2]) : size - 1;
      res.writeHead(206, {
        'content-range': `bytes ${start}-${end}/${size}`,
        'content-length': end - start + 1,
      });
      createReadStream(file, { start, end }).pipe(res);
      return;
    }
    res.writeHead(200, { 'content-length': size });
    createReadStream(file).pipe(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const store = new FsObjectStore(root);
  const config = testConfig(
    'clicks-*=clicks',
    {},
    {
      clicks: {
        partition: 'day',
        columns: [
          { name: 'n', type: 'long' },
          { name: 'amount', type: 'decimal(10,2)' },
          { name: 'ts', type: 'timestamptz' },
        ],
      },
    },
  );
  deps = testDeps(store, config);
  deps.locationBase = baseUrl;
  const a = new WalWriter(store, 'clicks-0');
  const b = new WalWriter(store, 'clicks-1');
  await a.append([{ text: TEXTS[0]! }, { text: TEXTS[1]! }], T0);
  await b.append(
    [
      { key: '"k1"', text: TEXTS[2]! },
      { key: '7', delete: true },
    ],
    T0 + 1000,
  );
  expect((await appendTable(deps, 'clicks', ['clicks-0', 'clicks-1'])).status).toBe('committed');
  // A second commit across midnight: a second partition, a second manifest.
  await a.append([{ text: TEXTS[3]! }], T0 + 2000);
  deps.clock.ms += 60_000;
  // Schema evolution: a typed column added after the first commit.
  config.options.get('clicks')!.columns.push({ name: 'day', type: 'date' });
  const second = await appendTable(deps, 'clicks', ['clicks-0', 'clicks-1']);
  expect(second).toMatchObject({ status: 'committed', refused: { amount: 1, ts: 1 } });
  const status = await tableStatus(deps, 'clicks', []);
  expect(status.snapshots.map((s) => s.refused)).toEqual([{}, { amount: 1, ts: 1 }]);
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await rm(root, { recursive: true, force: true });
});

/** What the dump prints, per shard: the row texts (a delete prints none) and the count. */
async function dumped(shard: string): Promise<Array<string | null>> {
  const out: Array<string | null> = [];
  for await (const row of readDurableRows(deps.store, shard, { fromPos: 0 }))
    out.push(row.text ?? null);
  return out;
}

describe('a committed table', () => {
  describe('read by DuckDB', () => {
    it('holds every row of the dump, texts byte-identical, counts per shard equal, typed columns exact', async () => {
      const files = (await currentDataFiles(deps, 'clicks')).map((f) =>
        path.join(root, new URL(f).pathname),
      );
      expect(files).toHaveLength(3);
      const instance = await DuckDBInstance.create(':memory:');
      const connection = await instance.connect();
      const list = files.map((f) => `'${f}'`).join(',');
      const reader = await connection.runAndReadAll(
        `SELECT shard, "offset", op, "row", n::VARCHAR AS n, amount::VARCHAR AS amount, ts::VARCHAR AS ts, day::VARCHAR AS day FROM read_parquet([${list}], union_by_name = true) ORDER BY shard, "offset"`,
      );
      const rows = reader.getRowObjects();
      for (const shard of ['clicks-0', 'clicks-1']) {
        expect(rows.filter((r) => r.shard === shard).map((r) => r.row)).toEqual(
          await dumped(shard),
        );
      }
      expect(rows.map((r) => [r.n, r.amount, r.ts, r.day])).toEqual([
        ['1', null, null, null],
        ['2', null, null, null],
        // Exactly held only: 1.005 has three fraction digits, the 7-digit fraction is past micros.
        ['4', null, null, '2026-12-02'],
        // Written before `day` was declared: the evolved column reads null in the older file.
        ['3', '12.50', '2026-12-01 10:00:00.123456+00', null],
        [null, null, null, null],
      ]);
      connection.closeSync();
    });
  });

  describe('read by icebird over HTTP', () => {
    it('returns every row of the dump, texts byte-identical, counts per shard equal', async () => {
      const rows = (await icebergRead({ tableUrl: `${baseUrl}/tables/clicks` })) as Array<
        Record<string, unknown>
      >;
      expect(rows).toHaveLength(5);
      for (const shard of ['clicks-0', 'clicks-1']) {
        const texts = rows
          .filter((r) => r.shard === shard)
          .sort((x, y) => Number(x.offset) - Number(y.offset))
          .map((r) => (r.row === undefined ? null : r.row));
        expect(texts).toEqual(await dumped(shard));
      }
    });
  });
});
