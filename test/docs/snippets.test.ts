/**
 * The docs' snippets run (`doc-blocks.ts` says which and how): every `run`
 * block of README.md and docs/*.md is executed against a local stack whose
 * data folder is `./.shardwal` of a scratch directory (the default the docs
 * assume), holding shard `orders` with keyless and keyed rows and an
 * export; every `check` block's commands are checked against the real
 * tools' options. A doc cannot drift from the code unnoticed.
 *
 * Substitutions, the only ones: `http://localhost:3000` becomes the test
 * stack's URL; `npx shardwal` runs this checkout's `bin/shardwal.mjs`;
 * `duckdb -c` runs its SQL on the DuckDB engine (`duckdb-shim.mjs`); the
 * `ts` snippets' `shardwal/client` resolves to `lib/client/index.ts` (a
 * `paths` mapping, as a fresh checkout has no build).
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalStack, startLocalStack } from '../../infra/local/local-stack.js';
import { cli, jsonLines } from '../cli/cli-io.js';
import { send } from '../local/http-client.js';
import { testStackSettings } from '../support/local-stack.js';
import { checkCommand } from './command-check.js';
import { blockName, type DocBlock, docBlocks, docFiles, shellCommands } from './doc-blocks.js';

const run = promisify(execFile);
const REPO = fileURLToPath(new URL('../..', import.meta.url));
const BLOCKS = docFiles(REPO).flatMap((file) => docBlocks(REPO, file));
const runnable = (lang: string) => BLOCKS.filter((b) => b.lang === lang && b.mode === 'run');
const checked = BLOCKS.filter((b) => b.mode === 'check');

let root: string;
let work: string;
let dataDir: string;
let stack: LocalStack | undefined;

async function put(shard: string, body: string): Promise<void> {
  const res = await send(
    'POST',
    `${stack!.info.httpUrl}/v1/shards/${shard}/rows?durability=durable`,
    {
      body,
      headers: { 'content-type': 'application/json' },
    },
  );
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

beforeAll(async () => {
  process.env.SHARDWAL_DURABLE_WAIT_MS = '15000';
  // Every shard its own Iceberg table, committed below by `shardwal table --commit`.
  process.env.SHARDWAL_TABLES = '*';
  root = await mkdtemp(path.join(os.tmpdir(), 'shardwal-docs-'));
  work = path.join(root, 'work');
  await mkdir(work);
  dataDir = path.join(work, '.shardwal');
  stack = await startLocalStack(testStackSettings(dataDir));
  await put(
    'orders',
    '{"rows":[{"orderId":"o-0","total":1.10},{"orderId":"o-00","n":12345678901234567890}]}',
  );
  await put(
    'orders',
    '{"key":"orderId","rows":[{"orderId":"o-1","total":5},{"orderId":"o-2","total":7}]}',
  );
  expect((await cli(['export', 'orders', '--data-dir', dataDir])).code).toBe(0);
  // After the first export: an update and a delete, in a delta the next export writes.
  await put(
    'orders',
    '{"key":"orderId","rows":[{"orderId":"o-1","total":6},{"orderId":"o-2","$delete":true},{"orderId":"o-3","total":9}]}',
  );
  expect((await cli(['export', 'orders', '--data-dir', dataDir])).code).toBe(0);
  const commit = await cli(['table', 'orders', '--commit', '--data-dir', dataDir]);
  expect(commit.code, commit.stderr).toBe(0);
}, 60_000);

afterAll(async () => {
  delete process.env.SHARDWAL_TABLES;
  await stack?.stop();
  await rm(root, { recursive: true, force: true });
});

/** A SQL block's statements run in order, paths relative to the scratch directory; the last one's rows. */
async function runSql(block: DocBlock): Promise<Record<string, unknown>[]> {
  const db = await DuckDBInstance.create(':memory:');
  const connection = await db.connect();
  try {
    await connection.run(`SET file_search_path = '${work}'`);
    const statements = block.text
      .split(/;\s*\n/)
      .map((s) => s.replace(/^\s*--.*$/gm, '').trim())
      .filter((s) => s !== '');
    let rows: Record<string, unknown>[] = [];
    for (const statement of statements) {
      rows = (await connection.runAndReadAll(statement)).getRowObjectsJS() as Record<
        string,
        unknown
      >[];
    }
    return rows;
  } finally {
    connection.closeSync();
  }
}

/** Runs a shell block in bash in the scratch directory; `npx shardwal` is this checkout's CLI. */
async function runShell(block: DocBlock): Promise<{ stdout: string; stderr: string }> {
  const prelude = `set -euo pipefail
npx() { if [ "$1" = shardwal ]; then shift; node "${REPO}bin/shardwal.mjs" "$@"; else command npx "$@"; fi; }
duckdb() { node "${REPO}test/docs/duckdb-shim.mjs" "$@"; }
`;
  const script = block.text.replaceAll('http://localhost:3000', stack!.info.httpUrl);
  return run('bash', ['-c', prelude + script], { cwd: work, timeout: 60_000, env: process.env });
}

/** Runs a `ts` block with tsx, `shardwal/client` mapped to the sources. */
async function runTs(block: DocBlock): Promise<{ stdout: string; stderr: string }> {
  const dir = await mkdtemp(path.join(REPO, 'test', 'docs', '.snippet-'));
  try {
    await writeFile(
      path.join(dir, 'tsconfig.json'),
      JSON.stringify({
        extends: '../../../tsconfig.json',
        compilerOptions: { paths: { 'shardwal/client': ['../../../lib/client/index.ts'] } },
        include: ['snippet.ts'],
      }),
    );
    const script = block.text.replaceAll('http://localhost:3000', stack!.info.httpUrl);
    await writeFile(path.join(dir, 'snippet.ts'), `${script}\nexport {};\n`);
    return await run('node', ['--import', 'tsx', 'snippet.ts'], {
      cwd: dir,
      timeout: 60_000,
      env: { ...process.env, TSX_TSCONFIG_PATH: path.join(dir, 'tsconfig.json') },
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe('docs snippets', () => {
  it('marks every sh and sql block run or check', () => {
    const unmarked = BLOCKS.filter((b) => ['sh', 'sql'].includes(b.lang) && b.mode === undefined);
    expect(unmarked.map(blockName)).toEqual([]);
    expect(runnable('sh').length + runnable('sql').length + runnable('ts').length).toBeGreaterThan(
      4,
    );
  });

  it.each(runnable('sql').map((b) => [blockName(b), b] as const))(
    'runs %s',
    async (_name, block) => {
      const rows = await runSql(block);
      expect(rows.length).toBeGreaterThan(0);
    },
  );

  it.each(runnable('sh').map((b) => [blockName(b), b] as const))(
    'runs %s',
    async (_name, block) => {
      const { stdout } = await runShell(block);
      expect(stdout).not.toBe('');
    },
  );

  it.each(runnable('ts').map((b) => [blockName(b), b] as const))(
    'runs %s',
    async (_name, block) => {
      await runTs(block);
    },
  );

  it.each(checked.map((b) => [blockName(b), b] as const))(
    'checks the commands of %s',
    (_name, block) => {
      if (block.lang !== 'sh') return; // SQL for an AWS service: nothing here can check it
      const problems = shellCommands(block.text).flatMap((argv) => checkCommand(argv, REPO));
      expect(problems).toEqual([]);
    },
  );

  it('the keyed-state recipe gives what dump holds: the newest row of each live key', async () => {
    const recipe = BLOCKS.find((b) => b.lang === 'sql' && b.text.includes('-- keyed state'));
    expect(recipe, 'docs/snapshot-format.md keeps its keyed-state recipe').toBeDefined();
    const rows = await runSql(recipe!);
    const dump = jsonLines((await cli(['dump', 'orders', '--data-dir', dataDir])).stdout);
    const live = new Map<string, unknown>();
    for (const line of dump.filter((l) => l.key !== undefined)) {
      if (line.delete) live.delete(String(line.key));
      else live.set(String(line.key), line.row);
    }
    expect(
      new Map(rows.map((r) => [String(JSON.parse(String(r.key))), JSON.parse(String(r.row))])),
    ).toEqual(live);
  });
});
