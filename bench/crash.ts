/**
 * `npm run crash`: kill -9 the local stack again and again under load, over
 * HTTP, and prove nothing acked is lost, nothing is duplicated and nothing is
 * reordered. Many writers put to several shards: idempotent buffered and
 * durable puts (retried with the same Idempotency-Key through every refused
 * connection, 5xx and restart) and plain puts (not retried: an answer lost in
 * a kill leaves their outcome unknown, and they may then land once or not at
 * all). After each restart it measures the stall: how long until every seq
 * allocated before the kill is durable. At the end the stack stops cleanly
 * and `shardwal dump` is compared with what was acked.
 *
 * Options (env): CRASH_KILLS (default 12), CRASH_WRITERS (16), CRASH_SHARDS
 * (6), CRASH_PORT (39400), CRASH_SEED (7), CRASH_MIN_UP_MS/CRASH_MAX_UP_MS
 * (4000/8000: how long the stack runs between kills).
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { configFromEnv } from '../lib/config.js';
import { seededRandom } from '../lib/seeded-random.js';

const KILLS = Number(process.env.CRASH_KILLS ?? 12);
const WRITERS = Number(process.env.CRASH_WRITERS ?? 16);
const SHARDS = Number(process.env.CRASH_SHARDS ?? 6);
const PORT = Number(process.env.CRASH_PORT ?? 39_400);
const MIN_UP_MS = Number(process.env.CRASH_MIN_UP_MS ?? 4_000);
const MAX_UP_MS = Number(process.env.CRASH_MAX_UP_MS ?? 8_000);
const random = seededRandom(Number(process.env.CRASH_SEED ?? 7));
const BIN = resolve('bin/shardwal.mjs');
const BASE = `http://127.0.0.1:${PORT}`;
/** The stack's gap seal (deadline + skew by default): what bounds the stall after a restart. */
const GAP_SEAL_MS = configFromEnv().gapSealMs;

type Kind = 'idempotent' | 'durable' | 'plain';
interface Put {
  writer: number;
  n: number;
  shard: string;
  kind: Kind;
  rows: Array<{ w: number; n: number; i: number }>;
  /** The acked seq; undefined while unacked (or never, for a plain put whose answer was lost). */
  seq?: number;
  attempts: number;
  unknown: boolean;
}

const puts: Put[] = [];
let stopping = false;

async function main() {
  const dataDir = await mkdtemp(join(tmpdir(), 'shardwal-crash-'));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(PORT),
    SHARDWAL_DATA_DIR: dataDir,
    SHARDWAL_LOG_LEVEL: 'ERROR',
    SHARDWAL_LOCAL_EXPORT_EVERY_MS: '5000',
    SHARDWAL_LOCAL_VERIFY_EVERY_MS: '7000',
  };
  const started = Date.now();
  let stack = await start(env);
  const writers = Array.from({ length: WRITERS }, (_, w) => writer(w));
  const stalls: number[] = [];
  const restarts: number[] = [];
  const sinceRestart: number[] = [];
  for (let kill = 1; kill <= KILLS; kill++) {
    await sleep(MIN_UP_MS + random() * (MAX_UP_MS - MIN_UP_MS));
    stack.kill('SIGKILL');
    await new Promise((r) => stack.once('exit', r));
    const killedAt = Date.now();
    stack = await start(env);
    const restartedAt = Date.now();
    const stall = await stallAfterRestart(killedAt);
    stalls.push(stall.sinceKillMs);
    restarts.push(restartedAt - killedAt);
    sinceRestart.push(stall.sinceRestartMs);
    console.log(
      `kill ${kill}: restarted in ${restartedAt - killedAt} ms; every seq allocated before the kill durable ${stall.sinceRestartMs} ms after the restart (${stall.sinceKillMs} ms after the kill)`,
    );
  }
  stopping = true;
  await Promise.all(writers);
  stack.kill('SIGINT');
  const code = await new Promise((r) => stack.once('exit', (c) => r(c)));
  if (code !== 0) console.log(`the stack exited ${code} on SIGINT`);
  const result = await verify(dataDir, env);
  await rm(dataDir, { recursive: true, force: true });
  const acked = puts.filter((p) => p.seq !== undefined).length;
  console.log(
    `\n${KILLS} kills in ${((Date.now() - started) / 1000).toFixed(0)} s: ${puts.length} puts by ${WRITERS} writers over ${SHARDS} shards, ${acked} acked, ${puts.filter((p) => p.unknown).length} plain puts with a lost answer (${result.unknownLanded} landed once, the rest not at all)`,
  );
  console.log(
    `lost ${result.lost}, duplicated ${result.duplicated}, reordered ${result.reordered}, foreign rows ${result.foreign}`,
  );
  console.log(
    `worst stall per kill ${Math.max(...stalls)} ms (median ${median(stalls)} ms), from the kill until every seq allocated before it was durable`,
  );
  console.log(
    `restart (kill to HTTP API up) worst ${Math.max(...restarts)} ms (median ${median(restarts)} ms); after the restart worst ${Math.max(...sinceRestart)} ms (median ${median(sinceRestart)} ms), the first ticks (the start-up seal leaves no gap for the ${GAP_SEAL_MS} ms gap seal)`,
  );
  if (result.lost + result.duplicated + result.reordered + result.foreign > 0) process.exitCode = 1;
}

async function start(env: NodeJS.ProcessEnv): Promise<ChildProcess> {
  const child = spawn(process.execPath, [BIN, 'start'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  await new Promise<void>((ready, fail) => {
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('HTTP API')) {
        child.stdout!.off('data', onData);
        child.stdout!.resume();
        ready();
      }
    };
    child.stdout!.on('data', onData);
    child.once('exit', (code) => fail(new Error(`stack exited ${code} while starting:\n${out}`)));
  });
  return child;
}

async function writer(w: number): Promise<void> {
  for (let n = 0; !stopping; n++) {
    const roll = random();
    const kind: Kind = roll < 0.45 ? 'idempotent' : roll < 0.7 ? 'durable' : 'plain';
    const shard = `c${Math.floor(random() * SHARDS)}`;
    const put: Put = {
      writer: w,
      n,
      shard,
      kind,
      rows: Array.from({ length: 3 }, (_, i) => ({ w, n, i })),
      attempts: 0,
      unknown: false,
    };
    puts.push(put);
    await send(put);
  }
}

/** Sends `put` until acked; a plain put is sent once. */
async function send(put: Put): Promise<void> {
  const query = put.kind === 'durable' ? '?durability=durable' : '';
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (put.kind !== 'plain') headers['idempotency-key'] = `w${put.writer}-n${put.n}`;
  for (;;) {
    put.attempts += 1;
    try {
      const response = await fetch(`${BASE}/v1/shards/${put.shard}/rows${query}`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ rows: put.rows }),
        signal: AbortSignal.timeout(20_000),
      });
      const body = (await response.json()) as { seq?: number; error?: { kind: string } };
      if (response.status === 200 || response.status === 202) {
        put.seq = body.seq;
        return;
      }
      if (put.kind === 'plain' && response.status >= 500) return; // refused: nothing stored
      if (response.status < 500 && ![409, 429].includes(response.status)) {
        throw new Error(`put ${put.writer}/${put.n}: ${response.status} ${JSON.stringify(body)}`);
      }
    } catch (error) {
      if ((error as Error).message.startsWith('put ')) throw error;
      // No answer: a refused connection (stack down) or one cut by the kill.
      if (put.kind === 'plain') {
        put.unknown = true;
        return;
      }
    }
    await sleep(100 + random() * 400);
  }
}

/** Polls every shard's status until every seq allocated before the kill is durable. */
async function stallAfterRestart(killedAt: number) {
  const restartedAt = Date.now();
  const targets = new Map<string, number>();
  for (let s = 0; s < SHARDS; s++) {
    const status = await shardStatus(`c${s}`);
    if (status) targets.set(`c${s}`, status.nextSeq - 1);
  }
  for (;;) {
    // Every shard at once, so a round (the measurement's granularity) is one status request long.
    const behind = await Promise.all(
      [...targets].map(async ([shard, target]) => {
        const status = await shardStatus(shard);
        return !status || status.durableSeq < target;
      }),
    );
    if (!behind.includes(true)) break;
    await sleep(100);
  }
  return { sinceRestartMs: Date.now() - restartedAt, sinceKillMs: Date.now() - killedAt };
}

async function shardStatus(
  shard: string,
): Promise<{ nextSeq: number; durableSeq: number } | undefined> {
  try {
    const response = await fetch(`${BASE}/v1/shards/${shard}`, {
      signal: AbortSignal.timeout(5_000),
    });
    if (response.status !== 200) return undefined;
    return (await response.json()) as { nextSeq: number; durableSeq: number };
  } catch {
    return undefined;
  }
}

async function verify(dataDir: string, env: NodeJS.ProcessEnv) {
  const run = promisify(execFile);
  const seen = new Map<string, Array<{ shard: string; seq: number; offset: number }>>();
  let foreign = 0;
  let reordered = 0;
  for (let s = 0; s < SHARDS; s++) {
    const shard = `c${s}`;
    const { stdout } = await run(process.execPath, [BIN, 'dump', shard, '--data-dir', dataDir], {
      env,
      maxBuffer: 1 << 30,
    });
    let lastSeq = 0;
    let lastOffset = -1;
    for (const line of stdout.split('\n')) {
      if (!line) continue;
      const { seq, offset, row } = JSON.parse(line) as {
        seq: number;
        offset: number;
        row: { w: number; n: number; i: number };
      };
      if (seq < lastSeq || offset <= lastOffset) reordered += 1;
      lastSeq = seq;
      lastOffset = offset;
      const id = `${row.w}/${row.n}/${row.i}`;
      seen.set(id, [...(seen.get(id) ?? []), { shard, seq, offset }]);
    }
  }
  let lost = 0;
  let duplicated = 0;
  let unknownLanded = 0;
  const known = new Set<string>();
  for (const put of puts) {
    const places = put.rows.map((r) => seen.get(`${r.w}/${r.n}/${r.i}`) ?? []);
    for (const r of put.rows) known.add(`${r.w}/${r.n}/${r.i}`);
    if (places.some((p) => p.length > 1)) duplicated += 1;
    if (put.seq !== undefined) {
      if (
        places.some((p) => p.length === 0 || p[0]!.seq !== put.seq || p[0]!.shard !== put.shard)
      ) {
        lost += 1;
      }
    } else if (places.every((p) => p.length === 1)) {
      unknownLanded += 1;
    }
  }
  for (const id of seen.keys()) if (!known.has(id)) foreign += 1;
  return { lost, duplicated, reordered, foreign, unknownLanded };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 2;
});
