/**
 * `shardwal put` as a real process, killed with SIGKILL part-way through and
 * run again: exactly the input's rows land, none twice. The 100,000
 * rows (13-25 s on the 2-core machine); `SHARDWAL_PUT_KILL_ROWS` sets another
 * count.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalStack, startLocalStack } from '../../infra/local/local-stack.js';
import type { PutSummary } from '../../lib/cli/put-report.js';
import { ShardwalHttpClient } from '../../lib/client/http-client.js';
import { cli, jsonLines } from '../cli/cli-io.js';
import { testStackSettings } from '../support/local-stack.js';

const ROWS = Number(process.env.SHARDWAL_PUT_KILL_ROWS ?? 100_000);
const BATCH_ROWS = 250;
const BATCHES = Math.ceil(ROWS / BATCH_ROWS);
const BIN = new URL('../../bin/shardwal.mjs', import.meta.url).pathname;

let dataDir: string;
let stack: LocalStack;
let api: ShardwalHttpClient;
let input: string;

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'shardwal-kill-'));
  stack = await startLocalStack(testStackSettings(dataDir));
  api = new ShardwalHttpClient({ endpoint: stack.info.httpUrl });
  input = path.join(dataDir, 'rows.jsonl');
  const lines = Array.from({ length: ROWS }, (_, i) => JSON.stringify({ id: i, at: `t-${i}` }));
  await writeFile(input, `${lines.join('\n')}\n`);
});

afterAll(async () => {
  await stack?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

function putProcess(shard: string): ChildProcess & { output: () => string } {
  const child = spawn(
    process.execPath,
    [
      BIN,
      'put',
      shard,
      '--file',
      input,
      '--data-dir',
      dataDir,
      '--batch-rows',
      String(BATCH_ROWS),
      '--json',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const chunks: Buffer[] = [];
  child.stdout!.on('data', (chunk: Buffer) => chunks.push(chunk));
  child.stderr!.on('data', (chunk: Buffer) => chunks.push(chunk));
  return Object.assign(child, { output: () => Buffer.concat(chunks).toString() });
}

async function landedBatches(shard: string): Promise<number> {
  const status = await api.status(shard).catch(() => undefined);
  return status ? status.nextSeq - 1 : 0;
}

describe('shardwal put, killed and run again', () => {
  it(`lands exactly ${ROWS} rows`, { timeout: 180_000 }, async () => {
    const shard = 'killed-import';
    const first = putProcess(shard);
    const exited = once(first, 'exit');
    // Kill it once a few batches have landed, well before the end.
    const killAt = Math.max(2, Math.floor(BATCHES / 5));
    let killed = false;
    while (first.exitCode === null) {
      if ((await landedBatches(shard)) >= killAt) {
        killed = first.kill('SIGKILL');
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const [code, signal] = (await exited) as [number | null, string | null];
    expect(killed, `put finished before it could be killed: ${code}\n${first.output()}`).toBe(true);
    expect(signal).toBe('SIGKILL');
    expect(await landedBatches(shard)).toBeLessThan(BATCHES);

    const second = putProcess(shard);
    const [secondCode] = (await once(second, 'exit')) as [number | null];
    expect(secondCode, second.output()).toBe(0);
    const summary = JSON.parse(second.output()) as PutSummary;
    expect(summary).toMatchObject({ rows: ROWS, ackedRows: ROWS, batches: BATCHES, ok: true });

    for (let i = 0; i < 600; i++) {
      const status = await api.status(shard);
      if (status.durableSeq === status.nextSeq - 1) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const dump = await cli(['dump', shard, '--data-dir', dataDir]);
    expect(dump.code).toBe(0);
    const ids = jsonLines(dump.stdout).map((line) => (line.row as { id: number }).id);
    expect(ids).toHaveLength(ROWS);
    expect(new Set(ids).size).toBe(ROWS);
  });
});
