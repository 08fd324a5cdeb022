/**
 * `npm run bench:tick`: how long one tick takes over 10, 100 and 1,000
 * active shards with DynamoDB and S3 latency injected (10 ms per DynamoDB
 * request, 50 ms per object store request: a latency-injecting wrapper
 * around the client and the store). The real flush protocol runs against
 * dynalite, in a child process so the emulator's CPU is not the ticker's (in
 * AWS it is DynamoDB's), and an in-memory object store.
 *
 * Three plans per shard count:
 * - `fixed 8`: every shard here, 8 flushes at once (the earlier default);
 * - `derived, no fan-out`: the derived concurrency, every shard here (the
 *   local stack, which has no flush queue);
 * - `derived + fan-out`: the derived plan, handing what does not fit the
 *   interval to workers through a queue that takes 10 ms per batch of ten.
 * Each plan runs `BENCH_TICKS` consecutive ticks (the flush-time estimate
 * learns from the first); the table shows the first and the median of the
 * rest. Between ticks, puts re-activate every shard and a latency-free
 * "worker" drains what was fanned out, so each tick sees all shards active.
 *
 * Options (env): BENCH_TICK_SHARDS (default 10,100,1000), BENCH_TICKS
 * (default 4), BENCH_INTERVAL_MS (default 1000), BENCH_DDB_MS (10),
 * BENCH_S3_MS (50).
 */
import { fork } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { validateSettings } from '../lib/config.js';
import type { FlushDeps } from '../lib/flush/flush-shard.js';
import { ensureTable } from '../lib/memtable/create-table.js';
import { listPendingShards } from '../lib/memtable/pending-index.js';
import type { Table } from '../lib/memtable/table.js';
import { logger } from '../lib/observability/telemetry.js';
import { type PutDeps, putRows } from '../lib/put/put-rows.js';
import { parsePutValue } from '../lib/put/schema.js';
import { MemoryObjectStore } from '../lib/store/memory-store.js';
import type { ListOptions, ObjectStore, PutIfAbsentResult } from '../lib/store/object-store.js';
import { mapWithConcurrency } from '../lib/ticker/concurrency.js';
import { flushAndReport, runTick, type TickSummary } from '../lib/ticker/tick.js';
import { FlushTimeEstimate } from '../lib/ticker/tick-plan.js';
import { percentile } from './support.js';

const SHARD_COUNTS = (process.env.BENCH_TICK_SHARDS ?? '10,100,1000').split(',').map(Number);
const TICKS = Number(process.env.BENCH_TICKS ?? 4);
const INTERVAL_MS = Number(process.env.BENCH_INTERVAL_MS ?? 1_000);
const DDB_MS = Number(process.env.BENCH_DDB_MS ?? 10);
const S3_MS = Number(process.env.BENCH_S3_MS ?? 50);
const QUEUE_MS = 10;

/** An object store whose every request takes `latencyMs` longer. */
class SlowObjectStore implements ObjectStore {
  readonly #inner: ObjectStore;
  readonly #latencyMs: number;

  constructor(inner: ObjectStore, latencyMs: number) {
    this.#inner = inner;
    this.#latencyMs = latencyMs;
  }

  async putIfAbsent(key: string, body: Uint8Array): Promise<PutIfAbsentResult> {
    await sleep(this.#latencyMs);
    return this.#inner.putIfAbsent(key, body);
  }

  async putStreamIfAbsent(key: string, body: AsyncIterable<Uint8Array>) {
    await sleep(this.#latencyMs);
    return this.#inner.putStreamIfAbsent(key, body);
  }

  async get(key: string) {
    await sleep(this.#latencyMs);
    return this.#inner.get(key);
  }

  async getStream(key: string) {
    await sleep(this.#latencyMs);
    return this.#inner.getStream(key);
  }

  async *list(prefix: string, options?: ListOptions): AsyncIterable<string> {
    await sleep(this.#latencyMs);
    yield* this.#inner.list(prefix, options);
  }

  async delete(key: string): Promise<void> {
    await sleep(this.#latencyMs);
    return this.#inner.delete(key);
  }
}

/** A DynamoDB client for `endpoint` whose every request takes `latencyMs` longer. */
function dynamoClient(endpoint: string, latencyMs: number): DynamoDBClient {
  const client = new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    // The SDK's default 50 sockets per client, as in Lambda.
  });
  if (latencyMs > 0) {
    client.middlewareStack.add(
      (next) => async (args) => {
        await sleep(latencyMs);
        return next(args);
      },
      { step: 'finalizeRequest', name: 'injectLatency' },
    );
  }
  return client;
}

/** Starts dynalite (in memory) in a child process; resolves its endpoint. */
async function startEmulator() {
  const child = fork(fileURLToPath(import.meta.url), ['--emulator'], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (message) => resolve((message as { port: number }).port));
    child.once('exit', (code) => reject(new Error(`emulator exited with ${code}`)));
  });
  return { endpoint: `http://127.0.0.1:${port}`, stop: () => child.kill() };
}

async function runEmulator(): Promise<void> {
  const { default: dynalite } = await import('dynalite');
  const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  server.listen(0, '127.0.0.1', () => {
    const address = server.address() as { port: number };
    process.send?.({ port: address.port });
  });
}

type Plan = 'fixed 8' | 'derived, no fan-out' | 'derived + fan-out';

interface TickRow {
  shards: number;
  plan: Plan;
  ticks: { ms: number; summary: TickSummary }[];
}

async function measure(endpoint: string, shards: number, plan: Plan): Promise<TickRow> {
  const tableName = `tick-${shards}-${plan.replace(/\W+/g, '-')}`;
  const setup: Table = { client: dynamoClient(endpoint, 0), tableName };
  await ensureTable(setup);
  const config = validateSettings({ flushIntervalMs: INTERVAL_MS });
  const memory = new MemoryObjectStore();
  const flush = (table: Table, store: ObjectStore, owner: string): FlushDeps => ({
    table,
    store,
    owner,
    maxWalObjectBytes: config.maxWalObjectBytes,
    gapSealMs: config.gapSealMs,
    leaseMs: config.leaseMs,
    now: Date.now,
  });
  const slow = flush(
    { client: dynamoClient(endpoint, DDB_MS), tableName },
    new SlowObjectStore(memory, S3_MS),
    'ticker',
  );
  const worker = flush(setup, memory, 'worker');
  const put: PutDeps = {
    table: setup,
    config,
    requestFlush: async () => undefined,
    now: Date.now,
    sleep: (ms) => sleep(ms),
  };
  const names = Array.from({ length: shards }, (_, i) => `s${String(i).padStart(4, '0')}`);
  const fanOut = async (_batch: string[]) => {
    await sleep(QUEUE_MS); // one SendMessageBatch; the worker drains after the tick
  };
  const flushTime = new FlushTimeEstimate();
  const ticks: TickRow['ticks'] = [];
  for (let tick = 0; tick < (plan === 'fixed 8' && shards >= 1_000 ? 1 : TICKS); tick++) {
    await mapWithConcurrency(names, 16, (shard) =>
      putRows(put, {
        shard,
        body: parsePutValue({ rows: [{ shard, tick }] }, 1),
        durability: 'buffered',
      }),
    );
    const started = performance.now();
    const summary = await runTick({
      flush: slow,
      intervalMs: INTERVAL_MS,
      flushTime,
      ...(plan === 'fixed 8' ? { concurrency: 8 } : {}),
      ...(plan === 'derived + fan-out' ? { fanOut } : {}),
    });
    ticks.push({ ms: performance.now() - started, summary });
    const left = await listPendingShards(setup);
    await mapWithConcurrency(left, 16, (shard) => flushAndReport(worker, shard));
  }
  return { shards, plan, ticks };
}

function print(rows: TickRow[]): void {
  console.log(
    `tick duration, ${DDB_MS} ms per DynamoDB request and ${S3_MS} ms per S3 request injected, ` +
      `interval ${INTERVAL_MS} ms (goal: a tick within the interval)`,
  );
  console.table(
    rows.map(({ shards, plan, ticks }) => {
      const [first, ...rest] = ticks;
      const steady = rest.length > 0 ? rest : ticks;
      const steadyMs = percentile(
        steady.map((t) => t.ms),
        50,
      );
      const last = ticks.at(-1)!.summary;
      return {
        'active shards': shards,
        plan,
        'first tick ms': Math.round(first!.ms),
        'steady tick ms': Math.round(steadyMs),
        'within interval': steadyMs <= INTERVAL_MS ? 'yes' : 'NO',
        concurrency: last.plan.concurrency,
        'flushed here': last.outcomes.filter((o) => o.status === 'flushed').length,
        'fanned out': last.fannedOut,
        failed: last.failed,
      };
    }),
  );
}

async function main(): Promise<void> {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  logger.setLogLevel('SILENT');
  const emulator = await startEmulator();
  const rows: TickRow[] = [];
  try {
    for (const shards of SHARD_COUNTS) {
      for (const plan of ['fixed 8', 'derived, no fan-out', 'derived + fan-out'] as const) {
        rows.push(await measure(emulator.endpoint, shards, plan));
      }
    }
  } finally {
    emulator.stop();
  }
  print(rows);
}

if (process.argv.includes('--emulator')) await runEmulator();
else await main();
