/**
 * `npm run bench:client`: the producer client's throughput against the local
 * stack, beside raw `fetch` puts of the same batches.
 *
 * Every mode puts the same seeded rows (~110 bytes each) in batches of
 * BENCH_CLIENT_BATCH_ROWS rows, BENCH_CLIENT_IN_FLIGHT batches in flight, each
 * batch under its own Idempotency-Key, into a fresh shard:
 *
 * - `fetch`: a bare loop: `JSON.stringify({rows})`, `fetch` POST, check 202;
 *   no retries, no validation of the ack, no gzip;
 * - `client`: `createHttpProducer` (rows serialized on append, cut by count
 *   and bytes, acks checked against the spec, retries armed), gzip off;
 * - `client+gzip`: the same with the default gzip (bodies ≥ 8 KiB). A
 *   service without gzip support refuses the first gzipped body and the
 *   client falls back to plain for the rest; the table says which happened.
 *
 * Runs are interleaved (fetch, client, client+gzip, fetch, …) and the median
 * of BENCH_RUNS runs is reported. Env: BENCH_CLIENT_ROWS (default 50000),
 * BENCH_CLIENT_BATCH_ROWS (500), BENCH_CLIENT_IN_FLIGHT (4), BENCH_RUNS (3),
 * BENCH_SEED (42), BENCH_FLUSH_INTERVAL_MS (100).
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalStack } from '../infra/local/local-stack.js';
import { ShardwalHttpClient } from '../lib/client/http-client.js';
import { createHttpProducer } from '../lib/client/http-producer.js';
import { seededRandom } from './support.js';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

const ROWS = Number(process.env.BENCH_CLIENT_ROWS ?? 50_000);
const BATCH_ROWS = Number(process.env.BENCH_CLIENT_BATCH_ROWS ?? 500);
const IN_FLIGHT = Number(process.env.BENCH_CLIENT_IN_FLIGHT ?? 4);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const SEED = Number(process.env.BENCH_SEED ?? 42);
const FLUSH_INTERVAL_MS = Number(process.env.BENCH_FLUSH_INTERVAL_MS ?? 100);

type Row = { id: string; at: number; value: number; note: string };

function rows(seed: number): Row[] {
  const random = seededRandom(seed);
  return Array.from({ length: ROWS }, (_, i) => ({
    id: `r-${i}`,
    at: 1_700_000_000_000 + i,
    value: Math.floor(random() * 1e9),
    note: random().toString(36).slice(2, 12).repeat(5),
  }));
}

/** What one run measured. */
interface RunResult {
  ms: number;
  requests: number;
  wireBytes: number;
  gzipped: number;
}

/** A fetch that counts requests, bytes on the wire and gzipped bodies. */
function countingFetch(result: RunResult): typeof fetch {
  return (async (input: string | URL | Request, init?: RequestInit) => {
    result.requests++;
    const body = init?.body;
    if (body instanceof Uint8Array) result.wireBytes += body.length;
    else if (typeof body === 'string') result.wireBytes += Buffer.byteLength(body);
    const encoding = new Headers(init?.headers).get('content-encoding');
    if (encoding === 'gzip') result.gzipped++;
    return fetch(input, init);
  }) as typeof fetch;
}

async function rawFetch(base: string, shard: string, data: Row[]): Promise<RunResult> {
  const result: RunResult = { ms: 0, requests: 0, wireBytes: 0, gzipped: 0 };
  const send = countingFetch(result);
  const batches: Row[][] = [];
  for (let i = 0; i < data.length; i += BATCH_ROWS) batches.push(data.slice(i, i + BATCH_ROWS));
  const started = performance.now();
  let next = 0;
  const worker = async () => {
    while (next < batches.length) {
      const batch = batches[next++]!;
      const response = await send(`${base}/v1/shards/${shard}/rows`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': randomUUID() },
        body: JSON.stringify({ rows: batch }),
      });
      await response.text();
      if (response.status !== 202) throw new Error(`fetch put: ${response.status}`);
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  result.ms = performance.now() - started;
  return result;
}

async function viaClient(
  base: string,
  shard: string,
  data: Row[],
  gzip: boolean,
): Promise<RunResult> {
  const result: RunResult = { ms: 0, requests: 0, wireBytes: 0, gzipped: 0 };
  const client = new ShardwalHttpClient({
    endpoint: base,
    fetch: countingFetch(result),
    ...(gzip ? {} : { gzip: false }),
  });
  const producer = createHttpProducer(client, shard, {
    maxBatchRows: BATCH_ROWS,
    maxBatchBytes: 1_000_000,
    maxInFlight: IN_FLIGHT,
    lingerMs: null,
  });
  const started = performance.now();
  for (const row of data) await producer.append(row);
  await producer.close();
  result.ms = performance.now() - started;
  if (producer.stats().ackedRows !== data.length) throw new Error('client: rows not acked');
  return result;
}

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const n = (value: number) => Math.round(value).toLocaleString('en-US');

async function main(): Promise<void> {
  const dataDir = await mkdtemp(join(tmpdir(), 'shardwal-bench-client-'));
  const stack = await startLocalStack({
    port: 0,
    dynamodbPort: 0,
    sqsPort: 0,
    dataDir,
    flushIntervalMs: FLUSH_INTERVAL_MS,
    logLevel: 'SILENT',
    sweepEveryMs: undefined,
    exportEveryMs: undefined,
    verifyEveryMs: undefined,
  });
  const base = stack.info.httpUrl;
  const modes = {
    fetch: (shard: string, data: Row[]) => rawFetch(base, shard, data),
    client: (shard: string, data: Row[]) => viaClient(base, shard, data, false),
    'client+gzip': (shard: string, data: Row[]) => viaClient(base, shard, data, true),
  } as const;
  const results: Record<string, RunResult[]> = { fetch: [], client: [], 'client+gzip': [] };
  try {
    // One warm-up put per mode: handler modules, connections, the JIT.
    for (const [name, run] of Object.entries(modes))
      await run(`warm-${name.replace('+', '-')}`, rows(1).slice(0, BATCH_ROWS));
    for (let i = 0; i < RUNS; i++) {
      const data = rows(SEED + i);
      for (const [name, run] of Object.entries(modes)) {
        results[name]!.push(await run(`bench-${name.replace('+', '-')}-${i}`, data));
      }
    }
  } finally {
    await stack.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
  const rawBytes = Buffer.byteLength(JSON.stringify(rows(SEED)));
  console.log(
    `${ROWS} rows (${(rawBytes / 1e6).toFixed(1)} MB of JSON) per run, ${BATCH_ROWS} rows per put, ` +
      `${IN_FLIGHT} puts in flight, ticker ${FLUSH_INTERVAL_MS} ms, median of ${RUNS} (node ${process.version})`,
  );
  console.log(
    '| mode | rows/s | MB/s (JSON) | puts/s | requests | bytes on the wire | gzipped bodies |',
  );
  console.log('| --- | --- | --- | --- | --- | --- | --- |');
  const fetchRate = median(results.fetch!.map((r) => ROWS / (r.ms / 1000)));
  for (const [name, runs] of Object.entries(results)) {
    const rate = median(runs.map((r) => ROWS / (r.ms / 1000)));
    const ms = median(runs.map((r) => r.ms));
    const last = runs[runs.length - 1]!;
    console.log(
      `| ${name} | ${n(rate)} (${(rate / fetchRate).toFixed(2)}×) | ${(rawBytes / 1e6 / (ms / 1000)).toFixed(1)} | ` +
        `${n(Math.ceil(ROWS / BATCH_ROWS) / (ms / 1000))} | ${last.requests} | ${n(last.wireBytes)} | ${last.gzipped} |`,
    );
  }
}

await main();
