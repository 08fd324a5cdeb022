/**
 * `npm run bench`: measures the put path and the ticker on the local stack's
 * parts (dynalite, the filesystem object store, the real put path and
 * flusher), and the same workload in a naive "append to S3 on every put"
 * mode. Prints request counts (the cost model), rows/s, puts/s and latency
 * percentiles. Compare figures as ratios within one run: the machine is noisy.
 *
 * Options (env): BENCH_PUTS (per concurrency level, default 2000),
 * BENCH_ROWS (rows per put, default 10), BENCH_SHARDS (default 4),
 * BENCH_INTERVAL_MS (ticker, default 100), BENCH_SEED (default 42).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { validateSettings } from '../lib/config.js';
import type { FlushDeps } from '../lib/flush/flush-shard.js';
import { ensureTable } from '../lib/memtable/create-table.js';
import { startDynalite } from '../lib/memtable/dynalite-server.js';
import { logger } from '../lib/observability/telemetry.js';
import { type PutDeps, putRows } from '../lib/put/put-rows.js';
import { FsObjectStore } from '../lib/store/fs-store.js';
import { InstrumentedObjectStore } from '../lib/store/instrumented-store.js';
import { runTick } from '../lib/ticker/tick.js';
import { FlushTicker } from '../lib/ticker/ticker.js';
import { naivePut } from './naive-put.js';
import { countRequests, percentile, seededRandom, workload } from './support.js';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
logger.setLogLevel('SILENT');

const PUTS = Number(process.env.BENCH_PUTS ?? 2000);
const ROWS = Number(process.env.BENCH_ROWS ?? 10);
const SHARDS = Number(process.env.BENCH_SHARDS ?? 4);
const INTERVAL_MS = Number(process.env.BENCH_INTERVAL_MS ?? 100);
const SEED = Number(process.env.BENCH_SEED ?? 42);
const CONCURRENCIES = [1, 8, 32];

interface RunResult {
  label: string;
  concurrency: number;
  puts: number;
  rows: number;
  seconds: number;
  latenciesMs: number[];
  dynamoOnPutPath: number;
  s3OnPutPath: number;
  ticks: number;
  activeShardTicks: number;
  walPuts: number;
}

async function main() {
  const dir = await mkdtemp(join(tmpdir(), 'shardwal-bench-'));
  const dynalite = await startDynalite({ path: join(dir, 'dynamodb') });
  const results: RunResult[] = [];
  try {
    for (const mode of ['buffered', 'durable', 'naive'] as const) {
      for (const concurrency of CONCURRENCIES) {
        results.push(await runOnce(mode, concurrency, dir, dynalite.endpoint));
      }
    }
  } finally {
    await dynalite.close();
    await rm(dir, { recursive: true, force: true });
  }
  print(results);
}

async function runOnce(
  mode: 'buffered' | 'durable' | 'naive',
  concurrency: number,
  dir: string,
  endpoint: string,
): Promise<RunResult> {
  const tableName = `bench-${mode}-${concurrency}`;
  const putClient = countRequests(endpoint);
  const flushClient = countRequests(endpoint);
  await ensureTable({ client: putClient.client, tableName });
  putClient.reset();
  const store = new InstrumentedObjectStore(new FsObjectStore(join(dir, 'objects', tableName)));
  const config = validateSettings({ flushIntervalMs: INTERVAL_MS, durablePollMs: 10 });
  const putDeps: PutDeps = {
    table: { client: putClient.client, tableName },
    config,
    requestFlush: async () => undefined,
    now: Date.now,
    sleep: (ms) => sleep(ms),
  };
  const flushDeps: FlushDeps = {
    table: { client: flushClient.client, tableName },
    store,
    owner: 'bench',
    maxWalObjectBytes: config.maxWalObjectBytes,
    gapSealMs: config.gapSealMs,
    leaseMs: config.leaseMs,
    now: Date.now,
  };
  // Durable puts need the ticker; buffered puts are measured with it running too,
  // and the store counts during the put phase are attributed by operation below.
  let ticks = 0;
  let activeShardTicks = 0;
  const ticker = new FlushTicker({
    intervalMs: INTERVAL_MS,
    tick: async () => {
      const summary = await runTick({ flush: flushDeps, concurrency: 8, maxShardsPerTick: 64 });
      ticks++;
      activeShardTicks += summary.activeShards;
    },
    flushShards: async () => undefined,
  });
  if (mode !== 'naive') ticker.start();
  const random = seededRandom(SEED + concurrency);
  // A durable put waits for a tick, so one client does about one put per interval.
  const puts = mode === 'durable' ? Math.min(PUTS, 50 * concurrency) : PUTS;
  const jobs = workload(random, puts, ROWS, SHARDS);
  const latenciesMs: number[] = [];
  let next = 0;
  const started = performance.now();
  const storeBefore = store.counts();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < jobs.length) {
        const job = jobs[next++]!;
        const t0 = performance.now();
        if (mode === 'naive') {
          await naivePut(putDeps, store, job.shard, job.rows);
        } else {
          await putRows(putDeps, { shard: job.shard, body: { rows: job.rows }, durability: mode });
        }
        latenciesMs.push(performance.now() - t0);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const storeAfter = store.counts();
  if (mode !== 'naive') await ticker.stop();
  const walPuts = store.counts().putIfAbsent;
  return {
    label: mode,
    concurrency,
    puts: jobs.length,
    rows: jobs.length * ROWS,
    seconds,
    latenciesMs,
    dynamoOnPutPath: putClient.count(),
    // The put path holds no store; in naive mode every put is a store PUT.
    s3OnPutPath: mode === 'naive' ? storeAfter.putIfAbsent - storeBefore.putIfAbsent : 0,
    ticks,
    activeShardTicks,
    walPuts,
  };
}

function print(results: RunResult[]) {
  const rows = results.map((r) => ({
    mode: r.label,
    clients: r.concurrency,
    'puts/s': Math.round(r.puts / r.seconds),
    'rows/s': Math.round(r.rows / r.seconds),
    'p50 ms': percentile(r.latenciesMs, 50).toFixed(2),
    'p99 ms': percentile(r.latenciesMs, 99).toFixed(2),
    'DynamoDB req/put': (r.dynamoOnPutPath / r.puts).toFixed(2),
    'S3 req on put path': r.s3OnPutPath,
    'S3 PUTs': r.walPuts,
    'S3 PUTs/put': (r.walPuts / r.puts).toFixed(4),
    'S3 PUTs per active shard per tick': r.activeShardTicks
      ? (r.walPuts / r.activeShardTicks).toFixed(2)
      : '-',
  }));
  console.log(
    `shardwal bench: ${PUTS} puts × ${ROWS} rows over ${SHARDS} shards per run, ticker ${INTERVAL_MS} ms, seed ${SEED}`,
  );
  console.table(rows);
  for (const concurrency of CONCURRENCIES) {
    const buffered = results.find((r) => r.label === 'buffered' && r.concurrency === concurrency)!;
    const naive = results.find((r) => r.label === 'naive' && r.concurrency === concurrency)!;
    console.log(
      `clients=${concurrency}: S3 PUTs naive/shardwal = ${(naive.walPuts / Math.max(1, buffered.walPuts)).toFixed(1)}x, ` +
        `buffered p50 latency shardwal/naive = ${(percentile(buffered.latenciesMs, 50) / percentile(naive.latenciesMs, 50)).toFixed(2)}`,
    );
  }
}

await main();
