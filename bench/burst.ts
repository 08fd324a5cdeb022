/**
 * A burst on one shard of the local stack: `puts` concurrent puts of about
 * `putBytes` each, against a buffer limit far below their sum, so most must
 * be refused with 429. Reports every answer's status and latency: a burst
 * past the buffer limit must get its 429s fast (well within the put
 * deadline) and no 503.
 *
 *   npm run bench:burst   (BURST_PUTS=400, BURST_PUT_BYTES=8192,
 *                          BURST_MAX_BUFFERED_BYTES=204800)
 *
 * The stack runs as a child process (`shardwal start`), with its defaults
 * but the buffer limit (and a flush trigger at half of it, which must not
 * exceed it); the puts go over HTTP, one connection each, all at once.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { seededRandom } from '../lib/seeded-random.js';
import { startChildStack } from '../test/local/child-stack.js';

/** Options of `runBurst`. */
export interface BurstOptions {
  puts: number;
  putBytes: number;
  maxBufferedBytes: number;
  flushIntervalMs?: number;
}

/** One answer: its status and how long it took. */
export interface BurstAnswer {
  status: number;
  ms: number;
}

/** What a burst got. */
export interface BurstReport {
  answers: BurstAnswer[];
  byStatus: Record<string, number>;
  /** Slowest answer of each status, in ms. */
  slowestMs: Record<string, number>;
  putDeadlineMs: number;
}

function post(url: string, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        agent: false, // one connection each: every put is in flight at once
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Rows of about `bytes` that compress like real data (seeded, so every run sends the same). */
function putBody(bytes: number, random: () => number): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789 ';
  let text = '';
  while (text.length < bytes - 20) text += alphabet[Math.floor(random() * alphabet.length)];
  return JSON.stringify({ rows: [{ text }] });
}

/** Runs one burst against a fresh local stack (environment restored after). */
export async function runBurst(options: BurstOptions): Promise<BurstReport> {
  const dataDir = await mkdtemp(join(tmpdir(), 'shardwal-burst-'));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: '0',
    SHARDWAL_DATA_DIR: dataDir,
    SHARDWAL_LOG_LEVEL: 'ERROR',
    SHARDWAL_FLUSH_INTERVAL_MS: String(options.flushIntervalMs ?? 1000),
    SHARDWAL_MAX_BUFFERED_BYTES: String(options.maxBufferedBytes),
    SHARDWAL_FLUSH_TRIGGER_BYTES: String(Math.floor(options.maxBufferedBytes / 2)),
    SHARDWAL_LOCAL_EXPORT_EVERY_MS: 'off',
    SHARDWAL_LOCAL_VERIFY_EVERY_MS: 'off',
    SHARDWAL_LOCAL_SWEEP_EVERY_MS: 'off',
  };
  const stack = await startChildStack(env, dataDir);
  try {
    const random = seededRandom(20);
    const bodies = Array.from({ length: options.puts }, () => putBody(options.putBytes, random));
    const url = `${stack.info.httpUrl}/v1/shards/burst/rows`;
    const answers = await Promise.all(
      bodies.map(async (body) => {
        const started = performance.now();
        const status = await post(url, body);
        return { status, ms: performance.now() - started };
      }),
    );
    const byStatus: Record<string, number> = {};
    const slowestMs: Record<string, number> = {};
    for (const { status, ms } of answers) {
      byStatus[status] = (byStatus[status] ?? 0) + 1;
      slowestMs[status] = Math.max(slowestMs[status] ?? 0, Math.round(ms));
    }
    const putDeadlineMs = Number(process.env.SHARDWAL_PUT_DEADLINE_MS ?? 5000);
    return { answers, byStatus, slowestMs, putDeadlineMs };
  } finally {
    stack.child.kill('SIGTERM');
    await stack.exited;
    await rm(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const options: BurstOptions = {
    puts: Number(process.env.BURST_PUTS ?? 400),
    putBytes: Number(process.env.BURST_PUT_BYTES ?? 8192),
    maxBufferedBytes: Number(process.env.BURST_MAX_BUFFERED_BYTES ?? 204_800),
  };
  const report = await runBurst(options);
  const sorted = report.answers.map((a) => a.ms).sort((a, b) => a - b);
  const at = (q: number) =>
    Math.round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!);
  console.log(
    `burst: ${options.puts} concurrent puts of ${options.putBytes} B to one shard, buffer limit ${options.maxBufferedBytes} B`,
  );
  console.log(
    `answers by status ${JSON.stringify(report.byStatus)}; slowest per status (ms) ${JSON.stringify(report.slowestMs)}; all answers p50 ${at(0.5)} ms, p99 ${at(0.99)} ms (put deadline ${report.putDeadlineMs} ms)`,
  );
  for (const status of Object.keys(report.byStatus)) {
    const ms = report.answers
      .filter((a) => String(a.status) === status)
      .map((a) => a.ms)
      .sort((a, b) => a - b);
    const q = (f: number) => Math.round(ms[Math.min(ms.length - 1, Math.floor(f * ms.length))]!);
    console.log(
      `  ${status}: first ${q(0)} ms, p50 ${q(0.5)} ms, p90 ${q(0.9)} ms, last ${q(1)} ms`,
    );
  }
}
