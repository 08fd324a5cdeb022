/**
 * `npm run bench:cost`: shardwal's cost per GB ingested, in capacity units ×
 * the dated price table (`billing/prices.ts`), for the standard workload
 * (1 KB event-like rows, 100 rows per put, 100 puts/s over 10 shards, 1 s
 * ticks, HTTP, buffered, on-demand) and a grid around it. It runs the real
 * handlers, ticker, export and verify on dynalite and the filesystem store,
 * in virtual time, and ends with exactly one line:
 *   cost: <X> USD/GB (standard: 1 KB rows, 100 rows/put, 100 puts/s over 10 shards, 1 s ticks, on-demand)
 *
 * Options (environment): BENCH_COST_TICKS (standard run intervals, a
 * multiple of 3, default 24), BENCH_COST_VARIANT_TICKS (6),
 * BENCH_COST_GRID_TICKS (20), BENCH_COST_IDLE_SHARDS (1000),
 * BENCH_COST_SEED (42).
 */
import { readFileSync } from 'node:fs';

// Read at module load by the telemetry the handlers use, so set before any of it loads:
// the deployed functions run with their stage on every metric and log line, and Lambda
// sets a trace header that Powertools adds to every log line.
const cdk = JSON.parse(readFileSync(new URL('../cdk.json', import.meta.url), 'utf8')) as {
  context: { stage?: string };
};
process.env.SHARDWAL_STAGE ??= cdk.context.stage ?? 'default';
process.env._X_AMZN_TRACE_ID ??=
  'Root=1-674b9a80-1c2d3e4f5a6b7c8d9e0f1a2b;Parent=53995c3f42cd8ad8;Sampled=0;Lineage=1:a1b2c3d4:0';
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
delete process.env.POWERTOOLS_METRICS_DISABLED;
delete process.env.POWERTOOLS_DEV;

const number = (name: string, fallback: number) => {
  const raw = process.env[name];
  const value = raw === undefined || raw === '' ? fallback : Number(raw);
  if (!Number.isInteger(value) || value <= 0) {
    throw new Error(`${name}=${raw}: expected a whole number > 0`);
  }
  return value;
};

const standardTicks = number('BENCH_COST_TICKS', 24);
if (standardTicks % 3 !== 0) {
  throw new Error(
    `BENCH_COST_TICKS=${standardTicks}: expected a multiple of 3 (three export rounds)`,
  );
}
const { runCostBench } = await import('./cost/main.js');
await runCostBench({
  standardTicks,
  variantTicks: number('BENCH_COST_VARIANT_TICKS', 6),
  gridTicks: number('BENCH_COST_GRID_TICKS', 20),
  idleShards: number('BENCH_COST_IDLE_SHARDS', 1_000),
  seed: number('BENCH_COST_SEED', 42),
});
