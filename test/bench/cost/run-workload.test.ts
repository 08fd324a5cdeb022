import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeploymentFacts } from '../../../bench/cost/deployment.js';
import { type BenchEnv, type Measurement, runWorkload } from '../../../bench/cost/run-workload.js';
import { variantOf } from '../../../bench/cost/workload.js';
import { type DynaliteServer, startDynalite } from '../../../lib/memtable/dynalite-server.js';

const fn = (memoryMb: number) => ({
  memoryMb,
  timeoutSeconds: 30,
  architecture: 'arm64' as const,
  logLevel: 'INFO',
  logLevelSource: 'test',
  logRetentionDays: 30,
});

const deployment = {
  settings: { environment: { SHARDWAL_FLUSH_INTERVAL_MS: '1000' } },
  functions: {
    putHttp: fn(512),
    statusHttp: fn(256),
    putSqs: fn(512),
    flushTick: fn(1024),
    flushWorker: fn(1024),
    export: fn(2048),
    recover: fn(2048),
  },
  table: { billingMode: 'PAY_PER_REQUEST', pitr: true, ttlAttribute: 'expiresAt' },
  ingestBatchSize: 10,
} as unknown as DeploymentFacts;

/** A small workload: 10 puts/s of 10 rows over 3 shards. */
const workload = variantOf({ putsPerSecond: 10, shards: 3, rowsPerPut: 10 }, 'small');

let server: DynaliteServer;
let dir: string;
let env: BenchEnv;

beforeAll(async () => {
  server = await startDynalite();
  dir = await mkdtemp(join(tmpdir(), 'cost-bench-test-'));
  env = {
    dynamo: server.client,
    dynamoEndpoint: server.endpoint,
    dir,
    deployment,
    ttlDelaySeconds: 0,
  };
});

afterAll(async () => {
  await server?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const plan = { ticks: 3, seed: 5, jobs: false, metered: true };

function fingerprint(m: Measurement) {
  return {
    puts: m.puts,
    rawBytes: m.rawBytes,
    ledger: m.ledger.map((r) => [r.phase, r.operation, r.counters]),
    ticks: m.ticks.map((t) => [t.activeShards, t.batches, t.units, t.s3Puts]),
    storage: m.storage,
    wal: m.bytes.wal,
  };
}

describe('cost bench runWorkload', () => {
  it('measures the same units, bytes and storage for the same seed', async () => {
    const a = await runWorkload(env, workload, plan);
    const b = await runWorkload(env, workload, plan);
    expect(a.puts).toBe(30);
    expect(a.statuses).toEqual({ 202: 30 });
    expect(fingerprint(b)).toEqual(fingerprint(a));
  });

  it('sends no S3 request from a put below the spill threshold, and one WAL PUT per active shard per tick', async () => {
    const m = await runWorkload(env, workload, { ...plan, seed: 6 });
    const putRequests = Object.values(m.s3.put).flatMap((ops) => Object.values(ops));
    expect(putRequests.every((n) => n === 0)).toBe(true);
    for (const tick of m.ticks) expect(tick.s3Puts).toBe(tick.activeShards);
    expect(m.ticks.reduce((s, t) => s + t.batches, 0)).toBe(m.puts);
    expect(m.units.put.writeUnits).toBeGreaterThan(m.puts);
  });

  it('spills a put above the threshold: one S3 PUT on the put path, one GET per batch flushed, a small item', async () => {
    const large = variantOf({ putsPerSecond: 4, shards: 2, rowsPerPut: 100 }, 'large');
    const m = await runWorkload(env, large, { ...plan, seed: 7 });
    expect(m.s3.put.spill.putIfAbsent).toBe(m.puts);
    expect(m.s3.put.wal.putIfAbsent).toBe(0);
    const batches = m.ticks.reduce((s, t) => s + t.batches, 0);
    expect(batches).toBe(m.puts);
    expect(m.ticks.reduce((s, t) => s + t.s3Gets, 0)).toBe(batches);
    for (const tick of m.ticks) expect(tick.s3Puts).toBe(tick.activeShards);
    // The pointer item and the counter update: a couple of write units, not ~20.
    expect(m.units.put.writeUnits / m.puts).toBeLessThan(4);
  });
});
