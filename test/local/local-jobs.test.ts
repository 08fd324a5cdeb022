/**
 * The local stack's scheduled jobs: the export function and the scheduled
 * verify run on their own timers, through the same handlers as in AWS, next
 * to the flush ticker, and stopping the stack waits for a running job.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalStack, startLocalStack } from '../../infra/local/local-stack.js';
import type { VerifyAllReport } from '../../lib/recovery/verify-all.js';
import { cli, jsonLines, useEnv } from '../cli/cli-io.js';
import { testStackSettings } from '../support/local-stack.js';
import { eventually, postJson, send } from './http-client.js';

let dataDir: string;
let stack: LocalStack;

const durableWait = useEnv('SHARDWAL_DURABLE_WAIT_MS', '15000');

const rowsUrl = (shard: string) =>
  `${stack.info.httpUrl}/v1/shards/${shard}/rows?durability=durable`;

async function status(shard: string): Promise<{ walNextPos: number; aofWatermark: number }> {
  const res = await send('GET', `${stack.info.httpUrl}/v1/shards/${shard}`);
  return res.body as { walNextPos: number; aofWatermark: number };
}

beforeAll(async () => {
  durableWait.set();
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'shardwal-jobs-'));
  stack = await startLocalStack(
    testStackSettings(dataDir, { exportEveryMs: 150, verifyEveryMs: 200 }),
  );
});

afterAll(async () => {
  await stack?.stop();
  durableWait.restore();
  await rm(dataDir, { recursive: true, force: true });
});

describe('local stack jobs', () => {
  it('names the schedules in stack.json', () => {
    expect(stack.info).toMatchObject({ exportEveryMs: 150, verifyEveryMs: 200 });
    expect(stack.jobs().map((job) => [job.name, job.everyMs])).toEqual([
      ['export', 150],
      ['verify', 200],
    ]);
  });

  it('exports on its own while the ticker flushes and puts go on, and the scheduled verify finds nothing', async () => {
    let acked = 0;
    // Puts keep coming while exports land: the jobs and the ticker must not get in each other's way.
    for (let i = 0; i < 4; i++) {
      const keyed = await postJson(rowsUrl('jobs-a'), {
        key: 'id',
        rows: [{ id: `k${i % 2}`, i }],
      });
      const keyless = await postJson(rowsUrl('jobs-a'), { rows: [{ i }] });
      expect([keyed.status, keyless.status]).toEqual([200, 200]);
      acked += 2;
      await new Promise((resolve) => setTimeout(resolve, 60));
    }
    const { walNextPos } = await status('jobs-a');
    expect(walNextPos).toBe(acked);
    await eventually(
      async () => ((await status('jobs-a')).aofWatermark === walNextPos ? true : undefined),
      10_000,
      'the export job to cover the whole WAL',
    );
    // A verify run that started after the last export.
    const runsSoFar = stack.jobs().find((job) => job.name === 'verify')!.runs;
    const verify = await eventually(
      async () => {
        const job = stack.jobs().find((j) => j.name === 'verify')!;
        return job.runs >= runsSoFar + 2 ? job : undefined;
      },
      10_000,
      'two more verify runs',
    );
    expect(verify.failures).toBe(0);
    expect(verify.lastResult as VerifyAllReport).toMatchObject({
      kind: 'verify-all',
      shards: 1,
      ok: 1,
      findings: 0,
    });
    expect(stack.jobs().find((job) => job.name === 'export')!.failures).toBe(0);
  });

  it('stop waits for a running job, then flushes; the data verifies and dumps whole afterwards', async () => {
    await postJson(rowsUrl('jobs-b'), { rows: [{ last: true }] });
    // Catch a job mid-run when possible (the schedule's own test proves the wait deterministically).
    await eventually(
      async () => (stack.jobs().some((job) => job.running) ? true : undefined),
      5_000,
      'a job to be running',
    ).catch(() => undefined);
    await stack.stop();
    expect(stack.jobs().every((job) => !job.running)).toBe(true);
    const verify = await cli(['recover', '--verify', '--all', '--json', '--data-dir', dataDir]);
    expect(verify.code, verify.stdout).toBe(0);
    expect(JSON.parse(verify.stdout)).toMatchObject({ shards: 2, findings: 0 });
    const dump = await cli(['dump', 'jobs-b', '--data-dir', dataDir]);
    expect(jsonLines(dump.stdout).map((row) => row.row)).toEqual([{ last: true }]);
  });
});
