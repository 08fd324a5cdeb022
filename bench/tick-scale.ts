/**
 * `npm run bench:tick`: the whole tick over 1,000, 3,000 and 10,000 active
 * shards, workers included: from the tick's start until the last active
 * shard's WAL commit, with 10 ms per DynamoDB request and 50 ms per S3
 * request injected.
 *
 * What runs for real, and what is modelled:
 * - The tick: the real `runTick` (listing, plan, its own flushes, hand-off)
 *   against dynalite, in a child process so the emulator's CPU is not the
 *   ticker's (in AWS it is DynamoDB's), through a client that adds
 *   `BENCH_DDB_MS` to every request, and an in-memory object store that adds
 *   `BENCH_S3_MS` to every request.
 * - The hand-off: the real `sqsFanOut` (one message per worker list,
 *   packing, retries) on an SQS client whose SendMessageBatch is modelled:
 *   it takes `BENCH_QUEUE_MS` and accepts every entry. A message reaches its
 *   worker `BENCH_DELIVERY_MS` after its send returned (SQS to a warm Lambda
 *   poller: modelled, not measured; cold starts are not modelled).
 * - The workers: the real worker code (`handleFlushMessages`, the real flush
 *   protocol, the real WAL encoding) in a second child process. Two cores
 *   cannot serve their ~3 DynamoDB requests per shard from an emulator as
 *   well, so their DynamoDB is a latency-only fake: each request waits
 *   `BENCH_DDB_MS` and is answered with the response dynalite gave the same
 *   request when a template shard with one pending batch was flushed for
 *   real (recorded at start, the shard's name substituted). Their object
 *   store is an in-memory store with `BENCH_S3_MS` injected, fresh each
 *   tick, so every WAL PUT is counted. Each Lambda has its own vCPU, which
 *   one process cannot give 30-odd workers at once: the workers run one at a
 *   time once the tick has handed everything over, each with the process to
 *   itself, and a worker's commits are placed at its start plus their
 *   offsets from that start.
 * - The workers' cap: at most `SHARDWAL_FLUSH_WORKERS` (the setting the
 *   deployed stack reserves for the flush workers and caps their event
 *   source at, 40 by default) run at once. A message starts at its delivery,
 *   or when one of the running workers ends if all are busy (messages in
 *   delivery order, each worker's end its start plus the time it took here).
 *   The tick plans with the same cap (P6 in `lib/ticker/tick-plan.ts`).
 *
 * A commit is the commit update of the flush protocol (step 6) returning, on
 * either side. Each shard count runs `BENCH_TICKS` ticks (the flush-time
 * estimate learns from the first); the table shows the median of the rest.
 * Before each tick, one put re-activates every shard the tick flushed
 * itself; the shards handed to workers stay pending in dynalite (the
 * workers' fake leaves it alone), so every tick sees every shard active.
 * `listing ms` times one listing of the pending index just before the tick
 * (dynalite's CPU included, which in AWS is DynamoDB's).
 *
 * Options (env): BENCH_TICK_SHARDS (default 1000,3000,10000), BENCH_TICKS
 * (4), BENCH_INTERVAL_MS (1000), BENCH_DDB_MS (10), BENCH_S3_MS (50),
 * BENCH_QUEUE_MS (10), BENCH_DELIVERY_MS (20), SHARDWAL_FLUSH_WORKERS (40).
 */
import { type ChildProcess, fork } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { SQSRecord } from 'aws-lambda';
import { SETTINGS, validateSettings } from '../lib/config.js';
import { emulatorClientOptions } from '../lib/emulator-options.js';
import { type FlushDeps, flushSettings, flushShard } from '../lib/flush/flush-shard.js';
import { lambdaContext } from '../lib/local/lambda-context.js';
import { ensureTable } from '../lib/memtable/create-table.js';
import { listPendingShards } from '../lib/memtable/pending-index.js';
import type { Table } from '../lib/memtable/table.js';
import { logger } from '../lib/observability/telemetry.js';
import { type PutDeps, putRows } from '../lib/put/put-rows.js';
import { parsePutValue } from '../lib/put/schema.js';
import { sqsFanOut } from '../lib/runtime/flush-requests.js';
import { handleFlushMessages } from '../lib/sqs/flush-messages.js';
import { InstrumentedObjectStore } from '../lib/store/instrumented-store.js';
import { MemoryObjectStore } from '../lib/store/memory-store.js';
import type { ListOptions, ObjectStore, PutIfAbsentResult } from '../lib/store/object-store.js';
import { mapWithConcurrency } from '../lib/ticker/concurrency.js';
import { runTick, type TickSummary } from '../lib/ticker/tick.js';
import { FlushTimeEstimate } from '../lib/ticker/tick-plan.js';
import { percentile } from './support.js';

const SHARD_COUNTS = (process.env.BENCH_TICK_SHARDS ?? '1000,3000,10000').split(',').map(Number);
const TICKS = Number(process.env.BENCH_TICKS ?? 4);
const INTERVAL_MS = Number(process.env.BENCH_INTERVAL_MS ?? 1_000);
const DDB_MS = Number(process.env.BENCH_DDB_MS ?? 10);
const S3_MS = Number(process.env.BENCH_S3_MS ?? 50);
const QUEUE_MS = Number(process.env.BENCH_QUEUE_MS ?? 10);
const DELIVERY_MS = Number(process.env.BENCH_DELIVERY_MS ?? 20);
const TEMPLATE_SHARD = 'template-shard';
/** The workers' cap, as the deployed stack sets it (P6 in `lib/ticker/tick-plan.ts`). */
const FLUSH_WORKERS = validateSettings({
  flushWorkers: process.env[SETTINGS.flushWorkers.env],
}).flushWorkers;

/** Wall-clock milliseconds with sub-millisecond resolution, comparable across processes. */
const clock = () => performance.timeOrigin + performance.now();

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

/** The flush protocol's commit (step 6, `lib/fence/commit.ts`): an update that sets `durableSeq`. */
function isCommit(commandName: string, input: { UpdateExpression?: string }): boolean {
  return (
    commandName === 'UpdateItemCommand' &&
    (input.UpdateExpression ?? '').startsWith('SET durableSeq')
  );
}

/** An initialize-step middleware, typed as loosely as the bench needs. */
type Middleware = (
  // biome-ignore lint/suspicious/noExplicitAny: the SDK's middleware generics are not worth restating here
  next: (args: any) => Promise<any>,
  context: { commandName?: string },
  // biome-ignore lint/suspicious/noExplicitAny: see above
) => (args: any) => Promise<any>;

/**
 * A DynamoDB client for `endpoint` whose every request takes `latencyMs`
 * longer; `onCommit` hears the time each flush commit returned.
 */
function dynamoClient(
  endpoint: string,
  latencyMs: number,
  onCommit?: (atMs: number) => void,
): DynamoDBClient {
  // The SDK's default 50 sockets per client, as in Lambda.
  const client = new DynamoDBClient(emulatorClientOptions(endpoint));
  if (latencyMs > 0) {
    client.middlewareStack.add(
      (next) => async (args) => {
        await sleep(latencyMs);
        return next(args);
      },
      { step: 'finalizeRequest', name: 'injectLatency' },
    );
  }
  if (onCommit) {
    const watch: Middleware = (next, context) => async (args) => {
      const result = await next(args);
      if (isCommit(context.commandName ?? '', args.input as object)) onCommit(clock());
      return result;
    };
    client.middlewareStack.add(watch as never, { step: 'initialize', name: 'watchCommits' });
  }
  return client;
}

/** One request and its answer, as the flush of the template shard sent and got it. */
interface Recorded {
  commandName: string;
  input: Record<string, unknown>;
  output: Record<string, unknown>;
}

/** What identifies a request of the flush protocol (which update, which query). */
function requestKey(commandName: string, input: Record<string, unknown>): string {
  return `${commandName}|${input.UpdateExpression ?? input.KeyConditionExpression ?? ''}`;
}

/** Flushes the template shard for real on `table`'s endpoint, recording every request and answer. */
async function recordTemplateFlush(endpoint: string, flush: FlushDeps): Promise<Recorded[]> {
  const recorded: Recorded[] = [];
  const client = dynamoClient(endpoint, 0);
  const record: Middleware = (next, context) => async (args) => {
    const result = await next(args);
    recorded.push({
      commandName: context.commandName ?? '',
      input: args.input as Record<string, unknown>,
      output: result.output as Record<string, unknown>,
    });
    return result;
  };
  client.middlewareStack.add(record as never, { step: 'initialize', name: 'record' });
  const outcome = await flushShard({ ...flush, table: { ...flush.table, client } }, TEMPLATE_SHARD);
  if (outcome.status !== 'flushed') throw new Error(`template flush: ${outcome.status}`);
  return recorded;
}

/** Deep copy of `value` with every occurrence of `from` in its strings replaced by `to`. */
function substitute(value: unknown, from: string, to: string): unknown {
  if (typeof value === 'string') return value.replaceAll(from, to);
  if (value instanceof Uint8Array || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => substitute(v, from, to));
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substitute(v, from, to)]));
}

/**
 * The workers' DynamoDB: a latency-only fake. Each request waits `latencyMs`
 * and gets the answer the template shard's real flush got to the same
 * request, with the shard's name in place of the template's (built once per
 * shard and request); anything the recording lacks fails loudly (the flush
 * then counts as failed).
 */
function replayingClient(
  recorded: readonly Recorded[],
  latencyMs: number,
  onCommit: (atMs: number) => void,
): DynamoDBClient {
  const answers = new Map(recorded.map((r) => [requestKey(r.commandName, r.input), r]));
  const built = new Map<string, unknown>();
  const client = new DynamoDBClient(emulatorClientOptions('http://127.0.0.1:9'));
  const replay: Middleware = (_next, context) => async (args) => {
    const input = args.input as Record<string, unknown>;
    const commandName = context.commandName ?? '';
    const key = requestKey(commandName, input);
    const answer = answers.get(key);
    const shard = /"shard#([^"]+)"/.exec(JSON.stringify(input))?.[1];
    await sleep(latencyMs);
    if (!answer || !shard) throw new Error(`bench: no recorded answer for ${commandName}`);
    if (isCommit(commandName, input)) onCommit(clock());
    let output = built.get(`${shard}|${key}`);
    if (output === undefined) {
      output = substitute(answer.output, TEMPLATE_SHARD, shard);
      built.set(`${shard}|${key}`, output);
    }
    return { output: structuredClone(output), response: {} } as never;
  };
  client.middlewareStack.add(replay as never, {
    step: 'initialize',
    name: 'replay',
    priority: 'high',
  });
  return client;
}

/** Messages between the bench and its workers process. */
type ToWorkers =
  | {
      type: 'setup';
      recorded: Recorded[];
      flush: Omit<FlushDeps, 'table' | 'store' | 'now'>;
      /** Workers that run at once (`SHARDWAL_FLUSH_WORKERS`). */
      workers: number;
    }
  | { type: 'tick' }
  | { type: 'deliver'; body: string; atMs: number }
  | { type: 'collect' };

/** What the workers of one tick did. */
interface WorkerReport {
  messages: number;
  failedMessages: number;
  commits: number;
  /** The last commit, as if each worker ran on its own CPU from its start (wall-clock ms). */
  lastCommitMs: number;
  /** The longest a message waited, from its delivery, for a worker (all `workers` busy). */
  longestWaitMs: number;
  walPuts: number;
  /** CPU the workers used, all together. */
  cpuMs: number;
  /** The longest one worker took, from its start to its end. */
  slowestMs: number;
}

/**
 * The workers process. Each delivered message is one worker invocation,
 * run by the real worker code (`handleFlushMessages`) once the tick has
 * handed everything over, one at a time: each worker has this process to
 * itself, as each Lambda has its own vCPU. At most `workers` run at once: a
 * message starts at its delivery, or when the first of the busy workers ends
 * (in delivery order). A worker's commits are placed at its start plus their
 * offsets from the start of its run here.
 */
function runWorkers(): void {
  let recorded: Recorded[] = [];
  let base: Omit<FlushDeps, 'table' | 'store' | 'now'> | undefined;
  let client: DynamoDBClient | undefined;
  let onCommit: (atMs: number) => void = () => undefined;
  let workers = 1;
  let deliveries: { body: string; atMs: number }[] = [];
  let store = new InstrumentedObjectStore(new MemoryObjectStore());
  const runAll = async (): Promise<WorkerReport> => {
    const cpu = process.cpuUsage();
    let failedMessages = 0;
    let commits = 0;
    let lastCommitMs = 0;
    let slowestMs = 0;
    let longestWaitMs = 0;
    // When each of the `workers` is free again (modelled time, wall-clock ms).
    const freeAt: number[] = Array.from({ length: workers }, () => 0);
    const ordered = [...deliveries].sort((a, b) => a.atMs - b.atMs);
    for (const [id, { body, atMs }] of ordered.entries()) {
      const slot = freeAt.indexOf(Math.min(...freeAt));
      const startMs = Math.max(atMs, freeAt[slot]!);
      longestWaitMs = Math.max(longestWaitMs, startMs - atMs);
      const startedMs = clock();
      onCommit = (at) => {
        commits++;
        lastCommitMs = Math.max(lastCommitMs, startMs + (at - startedMs));
      };
      const deps: FlushDeps = {
        ...base!,
        table: { client: client!, tableName: 'workers' },
        store: new SlowObjectStore(store, S3_MS),
        now: Date.now,
      };
      const record = { messageId: `m${id}`, body } as SQSRecord;
      const context = lambdaContext('flushWorker', { timeoutMs: 120_000 });
      const response = await handleFlushMessages({ Records: [record] }, context, deps);
      if (response.batchItemFailures.length > 0) failedMessages++;
      const tookMs = clock() - startedMs;
      slowestMs = Math.max(slowestMs, tookMs);
      freeAt[slot] = startMs + tookMs;
    }
    const used = process.cpuUsage(cpu);
    return {
      messages: deliveries.length,
      failedMessages,
      commits,
      lastCommitMs,
      longestWaitMs,
      walPuts: store.counts().putIfAbsent,
      cpuMs: (used.user + used.system) / 1000,
      slowestMs,
    };
  };
  process.on('message', async (message: ToWorkers) => {
    switch (message.type) {
      case 'setup':
        recorded = message.recorded;
        base = message.flush;
        workers = message.workers;
        client = replayingClient(recorded, DDB_MS, (at) => onCommit(at));
        process.send?.({ type: 'ready' });
        return;
      case 'tick':
        deliveries = [];
        store = new InstrumentedObjectStore(new MemoryObjectStore());
        process.send?.({ type: 'ready' });
        return;
      case 'deliver':
        deliveries.push({ body: message.body, atMs: message.atMs });
        return;
      case 'collect':
        process.send?.({ type: 'report', report: await runAll() });
        return;
    }
  });
  process.on('SIGTERM', () => process.exit(0));
  process.send?.({ type: 'started' });
}

/** Forks this file as `role`; resolves once it says it started. */
async function forkSelf(role: '--emulator' | '--workers'): Promise<ChildProcess> {
  const child = fork(fileURLToPath(import.meta.url), [role], {
    execArgv: [
      '--import',
      'tsx',
      ...(process.env.BENCH_PROF ? ['--cpu-prof', '--cpu-prof-dir=/tmp/tickprof'] : []),
    ],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    serialization: 'advanced',
  });
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code) => reject(new Error(`${role} exited with ${code}`)));
  });
  return child;
}

/** Sends `message` to `child` and resolves its next reply. */
function ask<T>(child: ChildProcess, message: ToWorkers): Promise<T> {
  return new Promise<T>((resolve) => {
    child.once('message', (reply) => resolve(reply as T));
    child.send(message);
  });
}

async function runEmulator(): Promise<void> {
  const { default: dynalite } = await import('dynalite');
  const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  server.listen(0, '127.0.0.1', () => {
    const address = server.address() as { port: number };
    process.send?.({ port: address.port });
  });
}

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

/** One measured tick. */
interface TickRun {
  /** From the tick's start to the last active shard's commit, workers included. */
  wholeMs: number;
  /** The tick invocation's own time (`runTick` until it returns). */
  tickMs: number;
  /** Time spent handing shards over (one call, or two when P2 handed some late). */
  handOffMs: number;
  listMs: number;
  /** The last commit of a shard the tick flushed itself / a worker flushed, from the tick's start. */
  lastLocalMs: number;
  lastWorkerMs: number;
  /** The tick's flush-time estimate after the tick (what it plans the next with). */
  flushMs: number;
  summary: TickSummary;
  local: number;
  workers: WorkerReport;
  committed: number;
  tickWalPuts: number;
}

async function measure(
  endpoint: string,
  workers: ChildProcess,
  shards: number,
): Promise<TickRun[]> {
  const tableName = `tick-${shards}`;
  const setup: Table = { client: dynamoClient(endpoint, 0), tableName };
  await ensureTable(setup);
  const config = validateSettings({ flushIntervalMs: INTERVAL_MS, flushWorkers: FLUSH_WORKERS });
  const base = {
    owner: 'ticker',
    ...flushSettings(config),
  };
  const put: PutDeps = {
    table: setup,
    config,
    requestFlush: async () => undefined,
    now: Date.now,
    sleep: (ms) => sleep(ms),
  };
  const putTo = (names: readonly string[], tick: number) =>
    mapWithConcurrency(names, 16, (shard) =>
      putRows(put, {
        shard,
        body: parsePutValue({ rows: [{ shard, tick }] }, 1),
        durability: 'buffered',
      }),
    );
  // The workers' answers: a real flush of a template shard with one pending batch.
  await putTo([TEMPLATE_SHARD], 0);
  const recorded = await recordTemplateFlush(endpoint, {
    ...base,
    table: setup,
    store: new MemoryObjectStore(),
    now: Date.now,
  });
  await ask(workers, {
    type: 'setup',
    recorded,
    flush: { ...base, owner: 'worker' },
    workers: config.flushWorkers,
  });

  const memory = new InstrumentedObjectStore(new MemoryObjectStore());
  let commits: number[] = [];
  const flush: FlushDeps = {
    ...base,
    table: { client: dynamoClient(endpoint, DDB_MS, (at) => commits.push(at)), tableName },
    store: new SlowObjectStore(memory, S3_MS),
    now: Date.now,
  };
  // The hand-off: the real sqsFanOut on a modelled SQS that delivers to the workers process.
  let sent = 0;
  const sqs = new SQSClient(emulatorClientOptions('http://127.0.0.1:9'));
  sqs.middlewareStack.add(
    () => async (args) => {
      const entries = (args.input as { Entries: { Id: string; MessageBody: string }[] }).Entries;
      await sleep(QUEUE_MS);
      const atMs = clock() + DELIVERY_MS;
      for (const entry of entries) {
        sent++;
        workers.send({ type: 'deliver', body: entry.MessageBody, atMs } satisfies ToWorkers);
      }
      return {
        output: { Successful: entries.map((e) => ({ Id: e.Id })), Failed: [] },
        response: {},
      } as never;
    },
    { step: 'initialize', name: 'modelledSqs', priority: 'high' },
  );
  const send = sqsFanOut(sqs, 'flush-queue');
  // Time spent in the tick's hand-offs (the budget's and P2's late one), this tick.
  const handOff = { ms: 0, calls: 0 };
  const fanOut = async (lists: string[][]) => {
    const from = clock();
    try {
      await send(lists);
    } finally {
      handOff.ms += clock() - from;
      handOff.calls++;
    }
  };

  const names = Array.from({ length: shards }, (_, i) => `s${String(i).padStart(5, '0')}`);
  await putTo(names, 0);
  const flushTime = new FlushTimeEstimate();
  const runs: TickRun[] = [];
  for (let tick = 0; tick < TICKS; tick++) {
    if (tick > 0) {
      // Re-activate what the tick drained; the shards handed to workers are still pending.
      const pending = new Set(await listPendingShards(setup));
      await putTo(
        names.filter((name) => !pending.has(name)),
        tick,
      );
    }
    await ask(workers, { type: 'tick' });
    commits = [];
    sent = 0;
    handOff.ms = 0;
    handOff.calls = 0;
    memory.reset();
    const listStart = clock();
    await listPendingShards({ client: dynamoClient(endpoint, DDB_MS), tableName });
    const listMs = clock() - listStart;
    const started = clock();
    const summary = await runTick({
      flush,
      intervalMs: INTERVAL_MS,
      flushTime,
      fanOut,
      flushWorkers: config.flushWorkers,
    });
    const tickMs = clock() - started;
    const report = await ask<{ report: WorkerReport }>(workers, { type: 'collect' });
    if (report.report.messages !== sent)
      throw new Error(`sent ${sent}, delivered ${report.report.messages}`);
    const local = summary.outcomes.filter((o) => o.status === 'flushed').length;
    const last = Math.max(...commits, report.report.lastCommitMs);
    runs.push({
      wholeMs: last - started,
      tickMs,
      handOffMs: handOff.ms,
      listMs,
      lastLocalMs: commits.length > 0 ? Math.max(...commits) - started : 0,
      lastWorkerMs: report.report.commits > 0 ? report.report.lastCommitMs - started : 0,
      flushMs: flushTime.ms,
      summary,
      local,
      workers: report.report,
      committed: commits.length + report.report.commits,
      tickWalPuts: memory.counts().putIfAbsent,
    });
  }
  return runs;
}

function print(results: { shards: number; runs: TickRun[] }[]): void {
  console.log(
    `whole tick (tick start to the last active shard's commit, workers included), ` +
      `${DDB_MS} ms per DynamoDB and ${S3_MS} ms per S3 request injected, SendMessageBatch ${QUEUE_MS} ms, ` +
      `delivery ${DELIVERY_MS} ms (modelled), ${FLUSH_WORKERS} workers at once, interval ${INTERVAL_MS} ms; ` +
      `median of ticks 2-${TICKS} ` +
      `(goal: every active shard committed within the interval)`,
  );
  const median = (runs: TickRun[], of: (run: TickRun) => number) =>
    Math.round(percentile(runs.map(of), 50));
  console.table(
    results.map(({ shards, runs }) => {
      const [first, ...rest] = runs;
      const steady = rest.length > 0 ? rest : runs;
      const last = runs.at(-1)!;
      const whole = median(steady, (r) => r.wholeMs);
      return {
        'active shards': shards,
        'whole tick ms': whole,
        'within interval': whole <= INTERVAL_MS ? 'yes' : 'NO',
        'first tick whole ms': Math.round(first!.wholeMs),
        'tick invocation ms': median(steady, (r) => r.tickMs),
        'hand-off ms': median(steady, (r) => r.handOffMs),
        'listing ms': median(steady, (r) => r.listMs),
        'last local commit ms': median(steady, (r) => r.lastLocalMs),
        'last worker commit ms': median(steady, (r) => r.lastWorkerMs),
        'flush ms (estimate)': median(steady, (r) => r.flushMs),
        'flushed here': last.local,
        'by workers': last.workers.commits,
        messages: last.workers.messages,
        'longest wait for a worker ms': median(steady, (r) => r.workers.longestWaitMs),
        committed: `${last.committed}/${shards}`,
        'WAL PUTs': last.tickWalPuts + last.workers.walPuts,
        failed: last.summary.failed + last.workers.failedMessages,
        'slowest worker ms': median(steady, (r) => r.workers.slowestMs),
        'worker CPU per shard ms': Number(
          percentile(
            steady.map((r) => r.workers.cpuMs / Math.max(1, r.workers.commits)),
            50,
          ).toFixed(2),
        ),
      };
    }),
  );
}

async function main(): Promise<void> {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  logger.setLogLevel('SILENT');
  const emulator = await startEmulator();
  const workers = await forkSelf('--workers');
  const results: { shards: number; runs: TickRun[] }[] = [];
  try {
    for (const shards of SHARD_COUNTS) {
      results.push({ shards, runs: await measure(emulator.endpoint, workers, shards) });
    }
  } finally {
    emulator.stop();
    workers.kill();
  }
  print(results);
}

if (process.argv.includes('--emulator')) await runEmulator();
else if (process.argv.includes('--workers')) {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  logger.setLogLevel('SILENT');
  runWorkers();
} else await main();
