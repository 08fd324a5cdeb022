/**
 * Segments are for stock tools: DuckDB reads the local object store's
 * segment files (`read_ndjson` over `shards/<shard>/seg/*.ndjson.gz`) and
 * sees the same keyless rows, counts and values, that `shardwal dump` prints.
 * It also pins what docs/segment-format.md warns about: a stock reader parses
 * numbers as doubles, so a row's exact number is exact in the file (read as
 * JSON text) but not in a numeric column.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalStack, startLocalStack } from '../../infra/local/local-stack.js';
import { segmentKey } from '../../lib/segment/format.js';
import { SegmentWriter } from '../../lib/segment/writer.js';
import { FsObjectStore } from '../../lib/store/fs-store.js';
import { cli } from '../cli/cli-io.js';
import { send } from '../local/http-client.js';
import { memberLengths } from '../support/gzip-members.js';
import { testStackSettings } from '../support/local-stack.js';

const SHARD = 'events';
/** Row texts exactly as sent: a number no double holds, escapes, nesting, unicode. */
const FIRST = [
  '{"n":1,"exact":1.00000000000000000001,"big":123456789012345678901234567890}',
  '{"n":2,"msg":"a \\"quoted\\" word, a tab\\t and é","nested":{"xs":[1,2,{"y":null}]}}',
  '{"n":3,"neg":-0,"tiny":1e-300}',
];
const SECOND = ['{"n":4,"exact":0.1}', '{"n":5,"s":"🙂"}'];

let root: string;
let dataDir: string;
let stack: LocalStack | undefined;

async function putRaw(rows: string[], key?: string): Promise<void> {
  const body = `{${key ? `"key":"${key}",` : ''}"rows":[${rows.join(',')}]}`;
  const res = await send(
    'POST',
    `${stack!.info.httpUrl}/v1/shards/${SHARD}/rows?durability=durable`,
    { body, headers: { 'content-type': 'application/json' } },
  );
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

beforeAll(async () => {
  process.env.SHARDWAL_DURABLE_WAIT_MS = '15000';
  root = await mkdtemp(path.join(os.tmpdir(), 'shardwal-duckdb-'));
  dataDir = path.join(root, 'data');
  stack = await startLocalStack(testStackSettings(dataDir));
  await putRaw(FIRST);
  await putRaw(['{"id":"k1","v":1}', '{"id":"k2","v":2}'], 'id');
  expect((await cli(['export', SHARD, '--data-dir', dataDir])).code).toBe(0);
  await putRaw(SECOND);
  await putRaw(['{"id":"k1","v":3}'], 'id');
  expect((await cli(['export', SHARD, '--data-dir', dataDir])).code).toBe(0);
  await stack.stop();
  stack = undefined;
});

afterAll(async () => {
  await stack?.stop();
  await rm(root, { recursive: true, force: true });
});

/** The dump's keyless lines, split into seq, offset and the row's exact text (sliced, never parsed). */
async function dumpedKeyless(): Promise<Array<{ seq: number; offset: number; row: string }>> {
  const dump = await cli(['dump', SHARD, '--data-dir', dataDir]);
  expect(dump.code, dump.stderr).toBe(0);
  return dump.stdout
    .split('\n')
    .filter((line) => line !== '' && !line.includes('"key":'))
    .map((line) => {
      const match = /^\{"seq":(\d+),"offset":(\d+),"row":(.*)\}$/.exec(line)!;
      return { seq: Number(match[1]), offset: Number(match[2]), row: match[3]! };
    });
}

async function query(sql: string): Promise<Record<string, unknown>[]> {
  const db = await DuckDBInstance.create(':memory:');
  const connection = await db.connect();
  try {
    return (await connection.runAndReadAll(sql)).getRowObjectsJS() as Record<string, unknown>[];
  } finally {
    connection.closeSync();
  }
}

describe('segments read by DuckDB', () => {
  const glob = () => path.join(dataDir, 'objects', 'shards', SHARD, 'seg', '*.ndjson.gz');

  it('counts the rows shardwal dump prints, across every segment of the shard', async () => {
    const dumped = await dumpedKeyless();
    expect(dumped).toHaveLength(FIRST.length + SECOND.length);
    const [files] = await query(`SELECT count(*) AS n FROM glob('${glob()}')`);
    expect(Number(files!.n)).toBe(2); // one segment per export
    const [count] = await query(`SELECT count(*) AS n FROM read_ndjson('${glob()}')`);
    expect(Number(count!.n)).toBe(dumped.length);
  });

  it('reads each row at the seq and offset shardwal dump prints, and the files hold its exact line', async () => {
    const rows = await query(
      `SELECT seq, "offset" FROM read_ndjson('${glob()}') ORDER BY "offset"`,
    );
    const dumped = await dumpedKeyless();
    expect(rows.map((r) => [Number(r.seq), Number(r.offset)])).toEqual(
      dumped.map((r) => [r.seq, r.offset]),
    );
    expect(dumped.map((r) => r.row)).toEqual([...FIRST, ...SECOND]);
    // Read as plain text lines, each segment line is the dump's line, byte for byte.
    // Stable order: files by name (ascending positions), lines as stored (DuckDB keeps file order here).
    const lines = await query(
      `SELECT line FROM read_csv('${glob()}', columns = {line: 'VARCHAR'}, header = false,
         delim = '\\x01', quote = '', escape = '', compression = 'gzip', filename = true)
        ORDER BY filename`,
    );
    expect(lines.map((r) => r.line)).toEqual(
      dumped.map((r) => `{"seq":${r.seq},"offset":${r.offset},"row":${r.row}}`),
    );
  });

  it('parses numbers as doubles: exact in the files and in dump, not in a query', async () => {
    const [typed] = await query(
      `SELECT "row".exact AS exact, CAST("row" AS VARCHAR) AS json
         FROM read_ndjson('${glob()}', columns = {seq: 'UBIGINT', "offset": 'UBIGINT', "row": 'JSON'})
        WHERE "offset" = 0`,
    );
    // DuckDB's JSON reader turns 1.00000000000000000001 into the double 1 (and -0 into 0).
    expect(String(typed!.json)).toContain('"exact":1.0');
    expect(String(typed!.json)).not.toContain('1.00000000000000000001');
    const [auto] = await query(
      `SELECT "row".exact AS exact FROM read_ndjson('${glob()}') WHERE "row".n = 1`,
    );
    expect(auto!.exact).toBe(1);
  });
});

describe('a segment of several gzip members', () => {
  it('is read whole by DuckDB, as one gzip file', async () => {
    const dir = path.join(root, 'members');
    const writer = new SegmentWriter(new FsObjectStore(dir), 'big', 0, 6);
    const rows = 12_000; // about 1.4 MB of lines: more than one member
    for (let n = 0; n < rows; n++) {
      await writer.row(1 + Math.floor(n / 100), n, `{"n":${n},"pad":"${'x'.repeat(90)}"}`);
    }
    expect((await writer.finish(1, 0)).result).toBe('created');
    const file = path.join(dir, ...segmentKey('big', 0).split('/'));
    expect(memberLengths(readFileSync(file)).length).toBeGreaterThan(1);
    const [read] = await query(
      `SELECT count(*) AS n, sum("row".n) AS total, max("offset") AS last FROM read_ndjson('${file}')`,
    );
    expect([Number(read!.n), Number(read!.total), Number(read!.last)]).toEqual([
      rows,
      (rows * (rows - 1)) / 2,
      rows - 1,
    ]);
  });
});
