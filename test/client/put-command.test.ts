/**
 * `shardwal put` in process, against the local stack (directly, or through
 * the fault proxy to make a batch fail): rows land once, re-runs land
 * nothing twice, bad input sends nothing, failures exit 1 and are listed.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable, Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalStack, startLocalStack } from '../../infra/local/local-stack.js';
import { runCli } from '../../lib/cli/main.js';
import { batchKey } from '../../lib/cli/put-plan.js';
import type { PutSummary } from '../../lib/cli/put-report.js';
import { NotFoundApiError } from '../../lib/client/errors.js';
import { ShardwalHttpClient } from '../../lib/client/http-client.js';
import { frameOverheadBytes } from '../../lib/client/put-body.js';
import { cli, jsonLines, useEnv } from '../cli/cli-io.js';
import { testStackSettings } from '../support/local-stack.js';
import { type FaultPlan, type FaultProxy, serviceAnswer, startFaultProxy } from './fault-proxy.js';

let dataDir: string;
let workDir: string;
let stack: LocalStack;
let api: ShardwalHttpClient;
let proxy: FaultProxy;
let plan: FaultPlan = () => ({ type: 'pass' });

const durableWait = useEnv('SHARDWAL_DURABLE_WAIT_MS', '15000');

beforeAll(async () => {
  durableWait.set();
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'shardwal-put-'));
  workDir = await mkdtemp(path.join(os.tmpdir(), 'shardwal-put-input-'));
  stack = await startLocalStack(testStackSettings(dataDir));
  api = new ShardwalHttpClient({ endpoint: stack.info.httpUrl });
  proxy = await startFaultProxy(
    () => stack.info.httpUrl,
    (request) => plan(request),
  );
});

afterAll(async () => {
  await proxy?.close();
  await stack?.stop();
  durableWait.restore();
  await rm(dataDir, { recursive: true, force: true });
  await rm(workDir, { recursive: true, force: true });
});

async function inputFile(name: string, lines: string[]): Promise<string> {
  const file = path.join(workDir, name);
  await writeFile(file, `${lines.join('\n')}\n`);
  return file;
}

const jsonRows = (count: number, extra: Record<string, unknown> = {}) =>
  Array.from({ length: count }, (_, i) => JSON.stringify({ id: i, ...extra }));

async function settled(shard: string): Promise<void> {
  for (let i = 0; i < 400; i++) {
    const status = await api.status(shard);
    if (status.durableSeq === status.nextSeq - 1) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`shard ${shard} did not settle`);
}

async function dumped(shard: string): Promise<Record<string, unknown>[]> {
  await settled(shard);
  const dump = await cli(['dump', shard, '--data-dir', dataDir]);
  expect(dump.code).toBe(0);
  return jsonLines(dump.stdout);
}

const put = (shard: string, ...args: string[]) =>
  cli(['put', shard, '--data-dir', dataDir, ...args]);

describe('shardwal put', () => {
  it('puts every line once and lands nothing more when run again', async () => {
    const file = await inputFile('plain.jsonl', jsonRows(2_500));
    const first = await put('cli-plain', '--file', file, '--batch-rows', '1000');
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/^put cli-plain: 2,500 of 2,500 rows acked in 3 of 3 batches/);
    expect(first.stdout).toContain('seqs 1-3');
    const again = await put('cli-plain', '--file', file, '--batch-rows', '1000');
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('seqs 1-3');
    // Each repeat sealed the seq it allocated before it met its key: three voids, no rows.
    expect((await api.status('cli-plain')).nextSeq).toBe(7);
    // Four batches in flight: each batch keeps its lines' order, batches may land in any order.
    const rows = await dumped('cli-plain');
    const ids = rows.map((r) => (r.row as { id: number }).id);
    expect([...ids].sort((a, b) => a - b)).toEqual(Array.from({ length: 2_500 }, (_, i) => i));
    const bySeq = new Map<number, number[]>();
    rows.forEach((r, i) => {
      bySeq.set(r.seq as number, [...(bySeq.get(r.seq as number) ?? []), ids[i]!]);
    });
    for (const batch of bySeq.values()) {
      expect(batch).toEqual(Array.from({ length: batch.length }, (_, i) => batch[0]! + i));
    }
  });

  it('sends nothing from an input with a line the service would refuse, naming line and column', async () => {
    // JSON.parse takes lines 3 and 5; the service's exact scanner does not.
    const file = await inputFile('bad.jsonl', [
      '{"id": 1}',
      '',
      '{"id": 2, "i": 1, "i": 1}',
      '[1, 2]',
      '  {"id": 3, "s": "\\udc00"}',
      '{"id": 4',
      '{"id": 5}',
    ]);
    expect(JSON.parse('{"id": 2, "i": 1, "i": 1}')).toEqual({ id: 2, i: 1 });
    let requests = 0;
    plan = () => {
      requests++;
      return { type: 'pass' };
    };
    const run = await put('cli-bad', '--file', file, '--endpoint', proxy.url);
    plan = () => ({ type: 'pass' });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr.split('\n')).toEqual([
      `shardwal put: 4 bad line(s) in ${file}; nothing was sent`,
      '  line 3, column 19: i: duplicate member "i"',
      '  line 4, column 1: row: expected a JSON object, got array',
      '  line 5, column 19: s: lone surrogate \\udc00',
      '  line 6, column 9: row: the line ends before the JSON does',
      '',
    ]);
    expect(requests).toBe(0);
    await expect(api.status('cli-bad')).rejects.toBeInstanceOf(NotFoundApiError);
  });

  it('lands exactly the rest when a partly landed file is fixed in place and run again', async () => {
    // 400 lines, blocks of 100 lines, each halved by --batch-bytes into batches of 50.
    const row = (i: number, note = 'x') => JSON.stringify({ id: i, note: note.padEnd(40, '.') });
    const lines = Array.from({ length: 400 }, (_, i) => row(i));
    const file = await inputFile('fix-in-place.jsonl', lines);
    const args = ['--file', file, '--endpoint', proxy.url, '--batch-rows', '100'];
    args.push('--batch-bytes', '4000', '--concurrency', '1');
    let posts = 0;
    plan = ({ method }) => {
      if (method !== 'POST') return { type: 'pass' };
      posts++;
      // Lines 201-250 (the fifth batch) are refused, as the service refused a line it could not keep.
      return posts === 5
        ? { type: 'answer', label: 'refused', answer: serviceAnswer(400, 'invalid_input') }
        : { type: 'pass' };
    };
    const failed = await put('cli-fix', ...args);
    expect(failed.code).toBe(1);
    expect(failed.stdout).toMatch(/350 of 400 rows acked in 7 of 8 batches/);
    expect(failed.stdout).toMatch(
      /batch 4 \(lines 201-250, 50 rows, key put-[0-9a-f]{16}\) failed: 400 invalid_input/,
    );
    // The fix: line 220 changes in place (another length), line 230 is emptied (its row dropped).
    lines[219] = row(219, 'fixed, and longer than it was');
    lines[229] = '';
    await writeFile(file, `${lines.join('\n')}\n`);
    plan = () => ({ type: 'pass' });
    const rerun = await put('cli-fix', ...args);
    expect(rerun.code).toBe(0);
    expect(rerun.stdout).toMatch(/399 of 399 rows acked in 8 of 8 batches/);
    const rows = (await dumped('cli-fix')).map((r) => r.row as { id: number; note: string });
    expect(rows.map((r) => r.id).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 400 }, (_, i) => i).filter((i) => i !== 229),
    );
    expect(rows.find((r) => r.id === 219)!.note).toMatch(/^fixed/);
    // Eight batches landed in all: the seven of the first run and the fixed one. The re-run's
    // seven repeats each sealed the seq they allocated void (a repeat allocates before its
    // reservation's create finds the key): seqs 1-15 are 8 batches and 7 voids.
    expect((await api.status('cli-fix')).nextSeq).toBe(16);
  });

  it('puts keyed rows durably with --key-field and --durable', async () => {
    const file = await inputFile('keyed.jsonl', [
      '{"user": "u1", "plan": "free"}',
      '{"user": "u2", "plan": "pro"}',
      '{"user": "u1", "plan": "pro"}',
      '{"user": "u2", "$delete": true}',
    ]);
    const run = await put(
      'cli-keyed',
      '--file',
      file,
      '--key-field',
      'user',
      '--durable',
      '--json',
    );
    expect(run.code).toBe(0);
    const summary = JSON.parse(run.stdout) as PutSummary;
    expect(summary).toMatchObject({ ok: true, ackedRows: 4, notDurableRows: 0, transport: 'http' });
    const status = await api.status('cli-keyed');
    expect(status.durableSeq).toBe(status.nextSeq - 1);
    const rows = await dumped('cli-keyed');
    expect(rows.map((r) => r.key)).toEqual(['u1', 'u2', 'u1', 'u2']);
    expect(rows[3]).toMatchObject({ delete: true });
  });

  it('refuses keyed input whose rows lack the key, naming the line', async () => {
    const file = await inputFile('keyless.jsonl', ['{"user": "u1"}', '{"name": "x"}']);
    const run = await put('cli-keyless', '--file', file, '--key-field', 'user');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      'line 2, column 1: user: expected a non-empty string or a number of at most 1024 characters, got nothing',
    );
  });

  it('reads stdin, keys batches by --import-id and prints the summary as JSON', async () => {
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    const sink = (chunks: Buffer[]) =>
      new Writable({
        write(chunk, _encoding, done) {
          chunks.push(Buffer.from(chunk));
          done();
        },
      });
    const code = await runCli(
      [
        'put',
        'cli-stdin',
        '--data-dir',
        dataDir,
        '--import-id',
        'nightly-7',
        '--json',
        '--batch-rows',
        '10',
        // One batch in flight: lines 1-10 take the first seq (batches in flight land in any order).
        '--concurrency',
        '1',
      ],
      {
        stdin: Readable.from([`${jsonRows(25).join('\n')}\n`]),
        stdout: sink(stdout),
        stderr: sink(stderr),
        env: process.env,
        cwd: process.cwd(),
      },
    );
    expect(Buffer.concat(stderr).toString()).toBe('');
    expect(code).toBe(0);
    const summary = JSON.parse(Buffer.concat(stdout).toString()) as PutSummary;
    expect(summary).toMatchObject({ importId: 'nightly-7', ackedRows: 25, batches: 3, ok: true });
    // Batch keys are nightly-7-<hash of the shard, lines 1-10 and their rows>: a direct put of them is a repeat.
    const key = batchKey(
      'nightly-7',
      { shard: 'cli-stdin', keyField: undefined },
      { firstLine: 1, lastLine: 10, rows: 10 },
      jsonRows(10),
    );
    const repeat = await api.put(
      'cli-stdin',
      jsonRows(10).map((text) => JSON.parse(text) as object),
      { key },
    );
    expect(repeat.seq).toBe(summary.seqs!.first);
  });

  it('sends SQS messages to the local stack’s ingest queue with --sqs', async () => {
    const file = await inputFile('sqs.jsonl', jsonRows(120));
    const run = await put(
      'cli-sqs',
      '--file',
      file,
      '--sqs',
      stack.info.queueUrl,
      '--batch-rows',
      '50',
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/120 of 120 rows acked in 3 of 3 batches/);
    expect(run.stdout).toContain('via sqs');
    for (let i = 0; i < 200; i++) {
      const status = await api.status('cli-sqs').catch(() => undefined);
      if (status?.nextSeq === 4) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(await dumped('cli-sqs')).toHaveLength(120);
  });

  it('plans again for the queue’s message size when it is below --batch-bytes', async () => {
    // Two rows whose body is exactly --batch-bytes: an SQS message also carries the key
    // attribute, so the producer's limit is lower and the block must be planned as two batches.
    const shard = 'cli-sqs-big';
    const limit = 1024 * 1024;
    const room = limit - frameOverheadBytes({ shard }) - 1;
    const row = (bytes: number) => JSON.stringify({ p: 'x'.repeat(bytes - 8) });
    const file = await inputFile('sqs-big.jsonl', [
      row(Math.floor(room / 2)),
      row(Math.ceil(room / 2)),
    ]);
    const args = ['--batch-rows', '2', '--batch-bytes', String(limit)];
    expect(Buffer.byteLength(row(Math.floor(room / 2)))).toBe(Math.floor(room / 2));
    const big = await put(shard, '--file', file, '--sqs', stack.info.queueUrl, ...args);
    expect(big.code, big.stdout + big.stderr).toBe(0);
    expect(big.stdout).toMatch(/2 of 2 rows acked in 2 of 2 batches/);
  });

  it('exits 1 listing a batch the service refused, and a re-run lands exactly the rest', async () => {
    const file = await inputFile('refused.jsonl', jsonRows(400));
    // The third request is refused as a whole, as a validation error would be: not retried.
    plan = ({ method, n }) =>
      method === 'POST' && n === 3
        ? { type: 'answer', label: 'refused', answer: serviceAnswer(400, 'invalid_input') }
        : { type: 'pass' };
    const args = [
      '--file',
      file,
      '--endpoint',
      proxy.url,
      '--batch-rows',
      '100',
      '--concurrency',
      '1',
    ];
    const failed = await put('cli-refused', ...args);
    expect(failed.code).toBe(1);
    expect(failed.stdout).toMatch(/300 of 400 rows acked in 3 of 4 batches/);
    expect(failed.stdout).toMatch(
      /batch 2 \(lines 201-300, 100 rows, key put-[0-9a-f]{16}\) failed: 400 invalid_input/,
    );
    plan = () => ({ type: 'pass' });
    const rerun = await put('cli-refused', ...args);
    expect(rerun.code).toBe(0);
    const ids = (await dumped('cli-refused')).map((r) => (r.row as { id: number }).id);
    expect(ids).toHaveLength(400);
    expect(new Set(ids).size).toBe(400);
  });

  it('stops keyed rows at the first failed batch, and a re-run lands them in order', async () => {
    const lines = Array.from({ length: 40 }, (_, i) => JSON.stringify({ k: `k${i % 5}`, v: i }));
    const file = await inputFile('keyed-stop.jsonl', lines);
    let posts = 0;
    plan = ({ method }) => {
      if (method !== 'POST') return { type: 'pass' };
      posts++;
      return posts === 2
        ? { type: 'answer', label: 'refused', answer: serviceAnswer(400, 'invalid_input') }
        : { type: 'pass' };
    };
    const args = [
      '--file',
      file,
      '--endpoint',
      proxy.url,
      '--key-field',
      'k',
      '--batch-rows',
      '10',
    ];
    const failed = await put('cli-keyed-stop', ...args);
    expect(failed.code).toBe(1);
    expect(failed.stdout).toMatch(/10 of 40 rows acked in 1 of 2 batches/);
    expect(failed.stdout).toContain('20 rows not sent: keyed rows stop at the first failed batch');
    expect(posts).toBe(2);
    plan = () => ({ type: 'pass' });
    expect((await put('cli-keyed-stop', ...args)).code).toBe(0);
    const rows = await dumped('cli-keyed-stop');
    expect(rows.map((r) => (r.row as { v: number }).v)).toEqual(lines.map((_, i) => i));
  });

  it('draws progress on a terminal', async () => {
    const file = await inputFile('progress.jsonl', jsonRows(50));
    const run = await cli(
      ['put', 'cli-progress', '--data-dir', dataDir, '--file', file, '--batch-rows', '10'],
      {},
      { ttyStderr: true },
    );
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(
      /put cli-progress: [\d,]+\/50 rows acked, [\d,]+ rows\/s, \d+ retried/,
    );
    expect(run.stderr.endsWith('\r\x1b[2K')).toBe(true);
  });

  it('answers usage errors with exit 2', async () => {
    const file = await inputFile('usage.jsonl', jsonRows(1));
    const cases: string[][] = [
      ['--file', file, '--durable', '--sqs', stack.info.queueUrl],
      ['--file', file, '--batch-rows', '0'],
      ['--file', file, '--endpoint', 'not a url'],
    ];
    for (const args of cases) {
      const run = await put('cli-usage', ...args);
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr).toMatch(/^shardwal put: .*\nusage: shardwal put <shard>/);
    }
    const noStack = await cli(['put', 'cli-usage', '--file', file, '--data-dir', workDir]);
    expect(noStack.code).toBe(2);
    expect(noStack.stderr).toContain('no endpoint');
  });
});
