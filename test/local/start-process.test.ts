import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, shardwal, waitForOutput } from './child-stack.js';
import { postJson } from './http-client.js';

let dataDir: string | undefined;
let child: ChildProcess | undefined;

afterAll(async () => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe('shardwal start (bin, child process)', () => {
  it('exits 0 on SIGTERM after a final flush, with every acked row in the dump', async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'shardwal-bin-'));
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PORT: '0',
      SHARDWAL_DATA_DIR: dataDir,
      SHARDWAL_FLUSH_INTERVAL_MS: '1000',
      SHARDWAL_LOG_LEVEL: 'ERROR',
    };
    let stderr = '';
    child = spawn(process.execPath, [BIN, 'start'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
      child!.once('exit', (code, signal) => resolve({ code, signal })),
    );
    const url = await waitForOutput(child, /HTTP API\s+(http:\/\/\S+)/);

    // While it runs, the CLI reads through it (stack.json), and a second stack is refused.
    const [running, second] = await Promise.all([
      shardwal(['status', 'bin', '--json'], env),
      shardwal(['start'], env),
    ]);
    expect(running).toMatchObject({ code: 1, stderr: 'shardwal status: shard bin not found\n' });
    expect(second.code).toBe(1);
    expect(second.stderr).toMatch(/already runs on/);

    // Puts from several clients at once; the 1 s ticker has not flushed most of them at SIGTERM.
    const acks = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        postJson(`${url}/v1/shards/bin/rows`, { rows: [{ i }, { i, half: true }] }),
      ),
    );
    expect(acks.every((ack) => ack.status === 202)).toBe(true);
    child.kill('SIGTERM');
    expect(await exited).toEqual({ code: 0, signal: null });
    expect(stderr).toMatch(/SIGTERM: stopping/);
    expect(existsSync(path.join(dataDir, 'stack.json'))).toBe(false);

    const ackedSeqs = acks.map((ack) => (ack.body as { seq: number }).seq).sort((a, b) => a - b);
    expect(ackedSeqs).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    const dump = await shardwal(['dump', 'bin'], env);
    expect(dump.code).toBe(0);
    const lines = dump.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { seq: number; offset: number; row: { i: number } });
    expect(lines).toHaveLength(80);
    expect([...new Set(lines.map((line) => line.seq))]).toEqual(ackedSeqs);
    expect(lines.map((line) => line.offset)).toEqual(lines.map((_, i) => i));
    // Each ack's two rows, in batch order, under the seq it was acked with.
    acks.forEach((ack, i) => {
      const { seq } = ack.body as { seq: number };
      const rows = lines.filter((line) => line.seq === seq).map((line) => line.row);
      expect(rows).toEqual([{ i }, { i, half: true }]);
    });
  }, 60_000);
});
