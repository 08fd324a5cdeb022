/**
 * A local stack with a table configured commits it within the commit
 * interval, and the README's recipe holds: `shardwal table <name> --files`
 * feeds DuckDB's `read_parquet`, which reads exactly the rows `shardwal
 * dump` prints.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalStack, startLocalStack } from '../../infra/local/local-stack.js';
import { cli } from '../cli/cli-io.js';
import { send } from '../local/http-client.js';
import { testStackSettings } from '../support/local-stack.js';

const ROWS = [
  '{"n":1,"exact":1.00000000000000000001}',
  '{"n":2,"s":"é 🙂 \\"q\\""}',
  '{"n":3,"big":123456789012345678901234567890}',
];
const TABLE_ENV = { SHARDWAL_TABLES: 'orders-*=orders', SHARDWAL_TABLE_COMMIT_MS: '200' };

let root: string;
let dataDir: string;
let stack: LocalStack | undefined;
const saved: Record<string, string | undefined> = {};

beforeAll(async () => {
  for (const [name, value] of Object.entries({ ...TABLE_ENV, SHARDWAL_DURABLE_WAIT_MS: '15000' })) {
    saved[name] = process.env[name];
    process.env[name] = value;
  }
  root = await mkdtemp(path.join(os.tmpdir(), 'shardwal-table-stack-'));
  dataDir = path.join(root, 'data');
  stack = await startLocalStack(testStackSettings(dataDir));
});

afterAll(async () => {
  await stack?.stop();
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  await rm(root, { recursive: true, force: true });
});

async function put(shard: string, rows: string[]): Promise<void> {
  const res = await send(
    'POST',
    `${stack!.info.httpUrl}/v1/shards/${shard}/rows?durability=durable`,
    {
      body: `{"rows":[${rows.join(',')}]}`,
      headers: { 'content-type': 'application/json' },
    },
  );
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

describe('the local stack with a table', () => {
  it('commits the rows within the commit interval, and DuckDB over --files reads what dump prints', async () => {
    await put('orders-0', ROWS.slice(0, 2));
    await put('orders-1', ROWS.slice(2));
    const env = { ...TABLE_ENV };
    let files: string[] = [];
    const deadline = Date.now() + 10_000;
    for (;;) {
      const run = await cli(['table', 'orders', '--files', '--data-dir', dataDir], env);
      files = run.stdout.split('\n').filter(Boolean);
      const status = await cli(['table', 'orders', '--json', '--data-dir', dataDir], env);
      if (
        status.code === 0 &&
        JSON.parse(status.stdout).shards.every((s: { lagObjects: number }) => s.lagObjects === 0) &&
        JSON.parse(status.stdout).shards.length === 2
      )
        break;
      if (Date.now() > deadline)
        throw new Error(`not committed in time: ${status.stdout} ${status.stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    files = (await cli(['table', 'orders', '--files', '--data-dir', dataDir], env)).stdout
      .split('\n')
      .filter(Boolean);
    expect(files.length).toBeGreaterThan(0);
    const db = await DuckDBInstance.create(':memory:');
    const connection = await db.connect();
    const list = files.map((f) => `'${f}'`).join(',');
    const rows = (
      await connection.runAndReadAll(
        `SELECT shard, "offset", "row" FROM read_parquet([${list}]) ORDER BY shard, "offset"`,
      )
    ).getRowObjectsJS();
    connection.closeSync();
    for (const shard of ['orders-0', 'orders-1']) {
      const dump = await cli(['dump', shard, '--data-dir', dataDir]);
      expect(dump.code, dump.stderr).toBe(0);
      const dumped = dump.stdout
        .split('\n')
        .filter(Boolean)
        .map((line) => /"row":(.*)\}$/.exec(line)![1]);
      expect(rows.filter((r) => r.shard === shard).map((r) => r.row)).toEqual(dumped);
    }
    const status = await cli(['table', 'orders', '--data-dir', dataDir], env);
    expect(status.stdout).toContain('table orders  version');
    expect(status.stdout).toMatch(/orders-0\s+1\s+1\s+0/);
  }, 30_000);

  it('exports the committed history as table segments, and dump prints the same rows from the table', async () => {
    const before = await cli(['dump', 'orders-0', '--data-dir', dataDir]);
    expect(before.code, before.stderr).toBe(0);
    const exported = await cli(['export', 'orders-0', '--json', '--data-dir', dataDir], TABLE_ENV);
    expect(exported.code, exported.stderr).toBe(0);
    expect(JSON.parse(exported.stdout).writes).toMatchObject({ segments: 0, tableSegments: 1 });
    const segments = (await readdir(path.join(dataDir, 'objects/shards/orders-0'))).filter(
      (name) => name === 'seg',
    );
    expect(segments).toEqual([]);
    const after = await cli(['dump', 'orders-0', '--data-dir', dataDir]);
    expect(after.code, after.stderr).toBe(0);
    expect(after.stdout).toBe(before.stdout);
  }, 30_000);
});
