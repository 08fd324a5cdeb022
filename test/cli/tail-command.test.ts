/**
 * `shardwal tail` against the local stack (in process): `--follow` sees rows
 * put after it started, in order, byte for byte as `dump` prints them; a
 * plain tail prints what dump prints (keyless rows only below an export);
 * and the bin, run as a child process, follows until Ctrl-C and exits 0.
 * These run on the real ticker, so they wait for conditions (bounded), not
 * for fixed times.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalStack, startLocalStack } from '../../infra/local/local-stack.js';
import { runTail } from '../../lib/cli/tail-run.js';
import { ShardwalHttpClient } from '../../lib/client/http-client.js';
import { testStackSettings } from '../support/local-stack.js';
import { cli, jsonLines } from './cli-io.js';

const BIN = path.resolve('bin/shardwal.mjs');

let dataDir: string;
let stack: LocalStack;
let api: ShardwalHttpClient;
const children: ChildProcess[] = [];

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'shardwal-tail-'));
  stack = await startLocalStack(testStackSettings(dataDir));
  api = new ShardwalHttpClient({ endpoint: stack.info.httpUrl });
});

afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  await stack?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

function capture(): { stream: Writable; text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      chunks.push(chunk.toString('utf8'));
      done();
    },
  });
  return { stream, text: () => chunks.join('') };
}

/** Waits (bounded) until `condition` holds. */
async function until(condition: () => boolean, what: string, timeoutMs = 20_000) {
  for (let waited = 0; !condition(); waited += 20) {
    if (waited > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const lineCount = (text: string) => text.split('\n').length - 1;

/** Puts `count` batches of `size` rows each, durably, alternating keyless and keyed ones. */
async function putBatches(shard: string, count: number, size: number, tag: string) {
  for (let b = 0; b < count; b++) {
    const rows = Array.from({ length: size }, (_, i) => ({ id: `${tag}-${b}-${i}`, n: 1e21 }));
    await api.put(shard, rows, { durable: true, ...(b % 2 === 1 ? { keyField: 'id' } : {}) });
  }
}

describe('shardwal tail', () => {
  it('--follow prints rows put after it started, in order, as dump prints them', async () => {
    await putBatches('follow', 2, 3, 'before');
    const out = capture();
    const err = capture();
    const controller = new AbortController();
    const running = runTail(
      {
        args: ['follow'],
        options: { 'data-dir': dataDir, follow: true, from: 'end', 'poll-ms': '20' },
      },
      { stdout: out.stream, stderr: err.stream, env: process.env, cwd: process.cwd() },
      { signal: controller.signal },
    );
    await until(() => err.text().includes('note: reading shard follow'), 'the tail to start');
    await putBatches('follow', 6, 4, 'after');
    await until(() => lineCount(out.text()) >= 24, '24 rows');
    controller.abort();
    expect(await running).toBe(0);
    const lines = out.text().split('\n').slice(0, -1);
    expect(lines).toHaveLength(24);
    const rows = lines.map((line) => JSON.parse(line) as { row: { id: string } });
    expect(rows.map((r) => r.row.id)).toEqual(
      Array.from({ length: 24 }, (_, i) => `after-${Math.floor(i / 4)}-${i % 4}`),
    );
    // The same lines, byte for byte, as dump prints for those rows.
    const dump = await cli(['dump', 'follow', '--data-dir', dataDir]);
    expect(dump.stdout.split('\n').slice(6, -1)).toEqual(lines);
    expect(lines[0]).toMatch(/^\{"seq":3,"offset":6,"row":\{"id":"after-0-0","n":1e\+21\}\}$/);
  });

  it('without --follow prints the durable rows and ends: all of them without an export', async () => {
    await putBatches('plain', 4, 2, 'p');
    const tail = await cli(['tail', 'plain', '--data-dir', dataDir]);
    const dump = await cli(['dump', 'plain', '--data-dir', dataDir]);
    expect(tail.code).toBe(0);
    expect(tail.stdout).toBe(dump.stdout);
    expect(lineCount(tail.stdout)).toBe(8);
    const from = await cli(['tail', 'plain', '--data-dir', dataDir, '--from', '3']);
    expect(jsonLines(from.stdout).map((r) => r.seq)).toEqual([3, 3, 4, 4]);
  });

  it('below an export prints the keyless rows and says keyed history is not kept', async () => {
    await putBatches('exported', 4, 2, 'x');
    expect((await cli(['export', 'exported', '--data-dir', dataDir])).code).toBe(0);
    await putBatches('exported', 2, 2, 'y');
    const tail = await cli(['tail', 'exported', '--data-dir', dataDir]);
    expect(tail.code).toBe(0);
    expect(tail.stderr).toMatch(/note: keyed changes below WAL position \d+ \(seqs up to 4\)/);
    const rows = jsonLines(tail.stdout);
    const ids = rows.map((r) => (r.row as { id: string }).id);
    expect(ids).toEqual(['x-0-0', 'x-0-1', 'x-2-0', 'x-2-1', 'y-0-0', 'y-0-1', 'y-1-0', 'y-1-1']);
    expect(rows.at(-1)).toMatchObject({ seq: 6, key: 'y-1-1' });
  });

  it('exits 1 naming the shard when it has nothing and --follow is not given', async () => {
    const tail = await cli(['tail', 'nothing-here', '--data-dir', dataDir]);
    expect(tail.code).toBe(1);
    expect(tail.stderr).toBe(`shardwal tail: shard nothing-here in ${dataDir} not found\n`);
  });

  it('the bin follows until Ctrl-C, then exits 0 with every row printed', async () => {
    await putBatches('bin', 1, 2, 'old');
    const child = spawn(
      process.execPath,
      [BIN, 'tail', 'bin', '--follow', '--from', 'end', '--poll-ms', '20', '--data-dir', dataDir],
      { env: { ...process.env, SHARDWAL_LOG_LEVEL: 'SILENT' } },
    );
    children.push(child);
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    await until(() => stderr.includes('note: reading shard bin'), 'the bin to start', 30_000);
    await putBatches('bin', 3, 2, 'new');
    await until(() => lineCount(stdout) >= 6, '6 rows');
    child.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(jsonLines(stdout).map((r) => (r.row as { id: string }).id)).toEqual([
      'new-0-0',
      'new-0-1',
      'new-1-0',
      'new-1-1',
      'new-2-0',
      'new-2-1',
    ]);
  }, 40_000);
});
