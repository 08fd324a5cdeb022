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
 *
 * Then durable-put latency on the tick grid at intervals of 100, 250 and
 * 1000 ms, median of 3 runs each (after one unmeasured warm-up run), against the goal (p50 <= interval/2 + 50 ms,
 * p99 <= interval + 200 ms, at most 1.5 shard-record reads per durable put).
 * Options: BENCH_DURABLE_PUTS (per run, default 200), BENCH_DURABLE_CLIENTS
 * (default 8), BENCH_COMMIT_DELAY_MS (`SHARDWAL_DURABLE_POLL_MS`: how long
 * after a grid tick a waiter reads, default 40: a local tick's flush time),
 * BENCH_ONLY=durable to run only this part.
 *
 * First, requests per put by kind (BENCH_ONLY=requests runs only this):
 * plain, keyed rows, with an Idempotency-Key, a repeat of that key, and
 * durable, counted by an SDK middleware on the put path's own DynamoDB
 * client and by the instrumented object store its spills go to (the real
 * put path, `putRows`; nothing modelled). BENCH_KIND_PUTS puts per kind
 * (default 100).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { type ShardwalConfig, validateSettings } from '../lib/config.js';
import { type FlushDeps, flushSettings } from '../lib/flush/flush-shard.js';
import { ensureTable } from '../lib/memtable/create-table.js';
import { startDynalite } from '../lib/memtable/dynalite-server.js';
import { payloadSpill } from '../lib/memtable/spill.js';
import { META_SK } from '../lib/memtable/table.js';
import { logger } from '../lib/observability/telemetry.js';
import { type PutDeps, putRows } from '../lib/put/put-rows.js';
import { parsePutValue } from '../lib/put/schema.js';
import { FsObjectStore } from '../lib/store/fs-store.js';
import { InstrumentedObjectStore } from '../lib/store/instrumented-store.js';
import type { ObjectStore } from '../lib/store/object-store.js';
import { claimLeadMs } from '../lib/ticker/claim-lead.js';
import { runTick, type TickSummary } from '../lib/ticker/tick.js';
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
const DURABLE_INTERVALS_MS = [100, 250, 1_000];
const DURABLE_RUNS = 3;
const DURABLE_PUTS = Number(process.env.BENCH_DURABLE_PUTS ?? 200);
const DURABLE_CLIENTS = Number(process.env.BENCH_DURABLE_CLIENTS ?? 8);
const COMMIT_DELAY_MS = Number(process.env.BENCH_COMMIT_DELAY_MS ?? 40);
const ONLY_DURABLE = process.env.BENCH_ONLY === 'durable';
const ONLY_REQUESTS = process.env.BENCH_ONLY === 'requests';
const KIND_PUTS = Number(process.env.BENCH_KIND_PUTS ?? 100);

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
  const durable: DurableRun[] = [];
  try {
    if (!ONLY_DURABLE) printKinds(await requestsByKind(dir, dynalite.endpoint));
    if (ONLY_REQUESTS) return;
    for (const mode of ONLY_DURABLE ? [] : (['buffered', 'durable', 'naive'] as const)) {
      for (const concurrency of CONCURRENCIES) {
        results.push(await runOnce(mode, concurrency, dir, dynalite.endpoint));
      }
    }
    // One unmeasured run first: the measured ones start with warm code and learned delays,
    // whether or not the put-path runs came before.
    await durableOnce(DURABLE_INTERVALS_MS[0]!, -1, dir, dynalite.endpoint);
    for (const intervalMs of DURABLE_INTERVALS_MS) {
      for (let run = 0; run < DURABLE_RUNS; run++) {
        durable.push(await durableOnce(intervalMs, run, dir, dynalite.endpoint));
      }
    }
  } finally {
    await dynalite.close();
    await rm(dir, { recursive: true, force: true });
  }
  if (ONLY_REQUESTS) return;
  if (!ONLY_DURABLE) print(results);
  printDurable(durable);
}

/** Requests one kind of put sent, per put. */
interface KindCount {
  kind: string;
  puts: number;
  dynamo: number;
  shardReads: number;
  s3: number;
}

/**
 * Counts each kind of put's requests on the real put path: plain, keyed
 * rows, idempotent, a repeat of each idempotent one, durable (with the grid
 * ticker flushing at 250 ms; its waiting reads are the shard-record reads).
 */
async function requestsByKind(dir: string, endpoint: string): Promise<KindCount[]> {
  const tableName = 'bench-kinds';
  const putClient = countRequests(endpoint);
  const shardReads = countShardReads(putClient.client);
  const flushClient = countRequests(endpoint);
  await ensureTable({ client: putClient.client, tableName });
  const objects = new FsObjectStore(join(dir, 'objects', tableName));
  // The put path's spills and the flusher's reads and writes, counted apart.
  const store = new InstrumentedObjectStore(objects);
  const flushStore = new InstrumentedObjectStore(objects);
  const intervalMs = 250;
  const config = validateSettings({ flushIntervalMs: intervalMs, durablePollMs: COMMIT_DELAY_MS });
  const { putDeps, flushDeps } = benchDeps(tableName, putClient, flushClient, store, config, {
    flushStore,
    spill: true,
  });
  const ticker = gridTicker(intervalMs, flushDeps, () => undefined);
  ticker.start();
  const jobs = workload(seededRandom(SEED), KIND_PUTS, ROWS, SHARDS);
  const counts: KindCount[] = [];
  const measure = async (
    kind: string,
    request: (job: (typeof jobs)[number], i: number) => Parameters<typeof putRows>[1],
  ) => {
    putClient.reset();
    const readsBefore = shardReads();
    const s3Before = storeRequests(store);
    // Four clients at a time: durable puts wait a tick each.
    let next = 0;
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        while (next < jobs.length) {
          const i = next++;
          await putRows(putDeps, request(jobs[i]!, i));
        }
      }),
    );
    counts.push({
      kind,
      puts: jobs.length,
      dynamo: putClient.count(),
      shardReads: shardReads() - readsBefore,
      s3: storeRequests(store) - s3Before,
    });
  };
  const body = (job: (typeof jobs)[number], keyed = false) =>
    parsePutValue(keyed ? { key: 'id', rows: job.rows } : { rows: job.rows }, job.rows.length);
  try {
    await measure('plain', (job) => ({
      shard: job.shard,
      body: body(job),
      durability: 'buffered',
    }));
    await measure('keyed rows', (job) => ({
      shard: job.shard,
      body: body(job, true),
      durability: 'buffered',
    }));
    const idempotent = (job: (typeof jobs)[number], i: number) => ({
      shard: job.shard,
      body: body(job),
      durability: 'buffered' as const,
      idempotencyKey: `bench-${SEED}-${i}`,
    });
    await measure('idempotent', idempotent);
    await measure('repeat (same key)', idempotent);
    await measure('durable', (job) => ({
      shard: job.shard,
      body: body(job),
      durability: 'durable',
    }));
  } finally {
    await ticker.stop();
  }
  return counts;
}

/** Every request the instrumented store served. */
function storeRequests(store: InstrumentedObjectStore): number {
  return Object.values(store.counts()).reduce((sum, n) => sum + n, 0);
}

function printKinds(counts: KindCount[]) {
  console.log(
    `requests per put by kind: ${KIND_PUTS} puts × ${ROWS} rows each, counted on the put path's own clients (SDK middleware, instrumented store)`,
  );
  console.table(
    counts.map((c) => ({
      kind: c.kind,
      'DynamoDB req/put': (c.dynamo / c.puts).toFixed(2),
      'of which shard-record reads/put': (c.shardReads / c.puts).toFixed(2),
      'S3 req/put': (c.s3 / c.puts).toFixed(2),
    })),
  );
}

/**
 * The put and flush dependencies of a run: each its own client on `tableName`,
 * real clocks; with `spill`, large payloads spill to the store each side uses
 * (the flusher's own `flushStore` when given, so its requests count apart).
 */
function benchDeps(
  tableName: string,
  putClient: { client: DynamoDBClient },
  flushClient: { client: DynamoDBClient },
  store: ObjectStore,
  config: ShardwalConfig,
  options: { flushStore?: ObjectStore; spill?: boolean } = {},
): { putDeps: PutDeps; flushDeps: FlushDeps } {
  const flushStore = options.flushStore ?? store;
  const spillTo = (to: ObjectStore) =>
    options.spill ? { spill: payloadSpill(config, () => to) } : {};
  return {
    putDeps: {
      table: { client: putClient.client, tableName, ...spillTo(store) },
      config,
      requestFlush: async () => undefined,
      now: Date.now,
      sleep: (ms) => sleep(ms),
    },
    flushDeps: {
      table: { client: flushClient.client, tableName, ...spillTo(flushStore) },
      store: flushStore,
      owner: 'bench',
      ...flushSettings(config),
      now: Date.now,
    },
  };
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
  const { putDeps, flushDeps } = benchDeps(tableName, putClient, flushClient, store, config);
  // Durable puts need the ticker; buffered puts are measured with it running too,
  // and the store counts during the put phase are attributed by operation below.
  let ticks = 0;
  let activeShardTicks = 0;
  const ticker = gridTicker(INTERVAL_MS, flushDeps, (summary) => {
    ticks++;
    activeShardTicks += summary.activeShards;
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
          await putRows(putDeps, {
            shard: job.shard,
            body: parsePutValue({ rows: job.rows }, job.rows.length),
            durability: mode,
          });
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

/** The local stack's ticker: on the grid, claiming ahead of each slot (K1 in `claim-lead.ts`). */
function gridTicker(
  intervalMs: number,
  flush: FlushDeps,
  onTick: (summary: TickSummary) => void,
): FlushTicker {
  return new FlushTicker({
    intervalMs,
    leadMs: () => claimLeadMs(intervalMs),
    tick: async (slotMs) => {
      onTick(await runTick({ flush, intervalMs, slot: { atMs: slotMs, intervalMs } }));
    },
    flushShards: async () => undefined,
  });
}

interface DurableRun {
  intervalMs: number;
  latenciesMs: number[];
  shardReads: number;
  notDurable: number;
  ticks: number;
}

/** Counts the shard-record reads a client sends (what a durable waiter costs). */
function countShardReads(client: DynamoDBClient) {
  let reads = 0;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const key = (args.input as { Key?: Record<string, { S?: string }> }).Key;
      if (context.commandName === 'GetItemCommand' && key?.sk?.S === META_SK) reads++;
      return next(args);
    },
    { step: 'initialize', name: 'countShardReads' },
  );
  return () => reads;
}

/**
 * Durable puts with the grid ticker running, arriving at phases of the grid
 * spread evenly over the interval: put k waits for the next instant at its
 * phase, one of n equal strata (a seeded shuffle, a seeded point within the
 * stratum). A durable put's latency falls steeply with its phase (a put just
 * after a slot waits a whole interval), so n independent random phases would
 * leave the median to the draw: with 200 puts it moves by about 3.5 % of the
 * interval (one standard deviation) from run to run. Even strata measure the same uniform arrival
 * with no such error. (Clients that put again right after each ack would lock
 * onto the commit moments and measure something else.)
 */
async function durableOnce(
  intervalMs: number,
  run: number,
  dir: string,
  endpoint: string,
): Promise<DurableRun> {
  const tableName = `bench-grid-${intervalMs}-${run < 0 ? 'warmup' : run}`;
  const putClient = countRequests(endpoint);
  const shardReads = countShardReads(putClient.client);
  const flushClient = countRequests(endpoint);
  await ensureTable({ client: putClient.client, tableName });
  const readsBefore = shardReads();
  const store = new FsObjectStore(join(dir, 'objects', tableName));
  const config = validateSettings({ flushIntervalMs: intervalMs, durablePollMs: COMMIT_DELAY_MS });
  const { putDeps, flushDeps } = benchDeps(tableName, putClient, flushClient, store, config);
  let ticks = 0;
  const ticker = gridTicker(intervalMs, flushDeps, () => {
    ticks++;
  });
  ticker.start();
  const random = seededRandom(SEED + intervalMs * 10 + run);
  const jobs = workload(random, DURABLE_PUTS, ROWS, SHARDS);
  const phasesMs = stratifiedPhases(random, jobs.length, intervalMs);
  const latenciesMs: number[] = [];
  let notDurable = 0;
  let next = 0;
  await Promise.all(
    Array.from({ length: DURABLE_CLIENTS }, async () => {
      while (next < jobs.length) {
        const k = next++;
        const job = jobs[k]!;
        await sleepUntilPhase(phasesMs[k]!, intervalMs);
        const t0 = performance.now();
        const { ack } = await putRows(putDeps, {
          shard: job.shard,
          body: parsePutValue({ rows: job.rows }, job.rows.length),
          durability: 'durable',
        });
        latenciesMs.push(performance.now() - t0);
        if (!ack.durable) notDurable++;
      }
    }),
  );
  await ticker.stop();
  return {
    intervalMs,
    latenciesMs,
    shardReads: shardReads() - readsBefore,
    notDurable,
    ticks,
  };
}

/** n phases of [0, intervalMs), one in each of n equal strata, in a seeded order. */
function stratifiedPhases(random: () => number, n: number, intervalMs: number): number[] {
  const strata = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [strata[i], strata[j]] = [strata[j]!, strata[i]!];
  }
  return strata.map((stratum) => ((stratum + random()) / n) * intervalMs);
}

/** Sleeps until the next wall-clock instant at `phaseMs` past a grid slot. */
async function sleepUntilPhase(phaseMs: number, intervalMs: number): Promise<void> {
  const nowMs = Date.now();
  let at = Math.floor(nowMs / intervalMs) * intervalMs + phaseMs;
  if (at <= nowMs) at += intervalMs;
  await sleep(at - nowMs);
}

function median(values: readonly number[]): number {
  return percentile(values, 50);
}

function printDurable(runs: DurableRun[]) {
  console.log(
    `\ndurable puts on the tick grid: ${DURABLE_PUTS} puts × ${ROWS} rows per run over ${SHARDS} shards, ` +
      `${DURABLE_CLIENTS} clients, arrivals at evenly spread grid phases, waiter reads ${COMMIT_DELAY_MS} ms after each tick; ` +
      `median of ${DURABLE_RUNS} runs after an unmeasured one, seed ${SEED}`,
  );
  const rows = DURABLE_INTERVALS_MS.map((intervalMs) => {
    const mine = runs.filter((r) => r.intervalMs === intervalMs);
    const p50 = median(mine.map((r) => percentile(r.latenciesMs, 50)));
    const p99 = median(mine.map((r) => percentile(r.latenciesMs, 99)));
    const reads = median(mine.map((r) => r.shardReads / r.latenciesMs.length));
    const p50Goal = intervalMs / 2 + 50;
    const p99Goal = intervalMs + 200;
    return {
      'interval ms': intervalMs,
      'p50 ms': p50.toFixed(1),
      'p50 goal': `<= ${p50Goal} ${p50 <= p50Goal ? 'ok' : 'MISSED'}`,
      'p99 ms': p99.toFixed(1),
      'p99 goal': `<= ${p99Goal} ${p99 <= p99Goal ? 'ok' : 'MISSED'}`,
      'reads/put': reads.toFixed(2),
      'reads goal': `<= 1.5 ${reads <= 1.5 ? 'ok' : 'MISSED'}`,
      'not durable in wait': mine.reduce((sum, r) => sum + r.notDurable, 0),
      'p50 per run': mine.map((r) => percentile(r.latenciesMs, 50).toFixed(0)).join('/'),
    };
  });
  console.table(rows);
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
