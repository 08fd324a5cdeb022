import { describe, expect, it } from 'vitest';
import { ASSUMPTIONS } from '../../../bench/cost/assumptions.js';
import { bill } from '../../../bench/cost/billing/bill.js';
import { PRICES_US_EAST_1 } from '../../../bench/cost/billing/prices.js';
import type { DeploymentFacts } from '../../../bench/cost/deployment.js';
import type { JobProfile, PutProfile, TickProfile } from '../../../bench/cost/profiles.js';
import {
  cycle,
  measuredTicks,
  modelledTicks,
  type SteadyInput,
  steadyHour,
} from '../../../bench/cost/steady.js';
import { expectedActiveShards, fitTicks, tickCost } from '../../../bench/cost/tick-model.js';
import { variantOf } from '../../../bench/cost/workload.js';

const fn = (memoryMb: number) => ({
  memoryMb,
  timeoutSeconds: 60,
  architecture: 'arm64' as const,
  logLevel: 'INFO',
  logLevelSource: 'test',
  logRetentionDays: 30,
});

const deployment = {
  settings: {
    service: {
      walRetentionMs: 7 * 86_400_000,
      maxWalObjectBytes: 32 * 1024 * 1024,
      flushConcurrency: undefined,
      maxShardsPerTick: undefined,
    },
    ticker: { rateMinutes: 1, ticksPerInvocation: 60, tickIntervalMs: 1_000 },
  },
  functions: {
    putHttp: fn(512),
    statusHttp: fn(256),
    putSqs: fn(512),
    flushTick: fn(1024),
    flushWorker: fn(1024),
    export: fn(2048),
    recover: fn(2048),
  },
  alarms: 23,
  schedules: [
    { id: 'SchedulesFlushTicker', expression: 'rate(1 minute)', perHour: 60 },
    { id: 'SchedulesExport', expression: 'rate(15 minutes)', perHour: 4 },
    { id: 'SchedulesVerify', expression: 'rate(1 hour)', perHour: 1 },
  ],
  table: { billingMode: 'PAY_PER_REQUEST', pitr: true, ttlAttribute: 'expiresAt' },
  bucket: { versioned: true, noncurrentDays: 30 },
  apiAccessLogFormat: undefined,
  ingestBatchSize: 10,
  metricFilters: 0,
} as unknown as DeploymentFacts;

const put: PutProfile = {
  source: 'test',
  transport: 'http',
  idempotent: false,
  rawBytes: 100_000,
  jsonBytes: 100_100,
  requestBytes: [100_100],
  units: { requests: 2, readUnits: 0, writeUnits: 20, indexWriteUnits: 0.1, failedConditions: 0 },
  walBytes: 20_000,
  s3Puts: 0,
  s3Gets: 0,
  spillBytes: 0,
  logBytes: 800,
  logEvents: 2,
  invocationsPerPut: 1,
  ddbRequestsPerInvocation: 2,
  byteSecondsPerPut: 20_000 * 0.5,
  permanentBytesPerPut: 0,
  metrics: new Set(),
};

const model = fitTicks(
  [
    [0, 0],
    [1, 10],
    [6, 10],
    [10, 100],
  ].map(([activeShards, batches]) => ({
    activeShards: activeShards!,
    batches: batches!,
    requests: 1 + 6 * activeShards!,
    readUnits: 0.5 + 1.5 * activeShards! + 4.75 * batches!,
    writeUnits: 3 * activeShards! + 19.25 * batches!,
    indexWriteUnits: activeShards!,
    s3Puts: activeShards!,
    s3Gets: batches!,
  })),
);
const tickProfile: TickProfile = {
  model,
  logBytesPerTick: 500,
  logBytesPerFlush: 600,
  recordBytesPerShard: 300,
  metrics: new Set(),
};
const job: JobProfile = {
  s3PerShard: { puts: 1, gets: 2, lists: 3, deletes: 0 },
  getsPerWalObject: 1,
  unitsPerShard: { readUnits: 2, writeUnits: 1, requests: 3 },
  scanUnitsPerTableByte: 1 / 4096,
  cpuMsPerWalByte: 0,
  exportBytesPerWalByte: 1,
  streamedShare: 0,
  logBytesPerRun: 1_000,
  metrics: new Set(),
};

function input(putsPerSecond: number, shards: number): SteadyInput {
  const workload = variantOf({ putsPerSecond, shards });
  return {
    workload,
    put,
    ticks: modelledTicks(tickProfile, workload),
    tickProfile,
    exportJob: job,
    verifyJob: job,
    cpu: { putInvocationMs: 5, flushMs: 10 },
    deployment,
    assumptions: ASSUMPTIONS,
    platformLogBytes: 250,
    accessLogBytes: 400,
    logCompressedFraction: 0.1,
    metrics: 16,
    schedulerPerHour: 65,
  };
}

describe('cost bench steady state', () => {
  describe('modelledTicks', () => {
    it('prices an interval at the expected active shards and one batch per put', () => {
      const w = variantOf({ putsPerSecond: 10, shards: 100 });
      const ticks = modelledTicks(tickProfile, w);
      const active = expectedActiveShards(100, 10);
      expect(ticks.activeShards).toBeCloseTo(active, 12);
      expect(ticks.perInterval.writeUnits).toBeCloseTo(tickCost(model, active, 10).writeUnits, 9);
      expect(ticks.measured).toBe(false);
    });
  });

  describe('measuredTicks', () => {
    it('averages what the ticks consumed over the intervals run', () => {
      const tick = (active: number, wcu: number) => ({
        activeShards: active,
        units: { requests: 1, readUnits: 0.5, writeUnits: wcu, indexWriteUnits: 0 },
        s3Puts: active,
        s3Gets: 0,
      });
      const rates = measuredTicks([tick(0, 0), tick(10, 100), tick(10, 300)], 2);
      expect(rates.perInterval.writeUnits).toBe(200);
      expect(rates.perInterval.s3Puts).toBe(10);
      expect(rates.activeShards).toBe(10);
      expect(rates.measured).toBe(true);
    });
  });

  describe('steadyHour', () => {
    const hourInput = input(10, 100);
    const hour = steadyHour(hourInput);
    const puts = 10 * 3600;

    it('multiplies per-put figures by the puts of the hour', () => {
      expect(hour.puts).toBe(puts);
      expect(hour.usage.rawBytes).toBe(100_000 * puts);
      const putLine = hour.dynamo.find((d) => d.part === 'put')!;
      expect(putLine.writeUnits).toBeCloseTo(20 * puts, 6);
      expect(putLine.indexWriteUnits).toBeCloseTo(0.1 * puts, 6);
      expect(hour.usage.apiGateway?.requestBodyBytes).toHaveLength(puts);
    });

    it('prices 3,600 ticks of the tick model, one WAL PUT per active shard per tick', () => {
      const tickLine = hour.dynamo.find((d) => d.part === 'tick')!;
      const perTick = tickCost(model, hourInput.ticks.activeShards, 10);
      expect(tickLine.writeUnits).toBeCloseTo(perTick.writeUnits * 3600, 6);
      expect(hour.usage.s3!.putCopyPostListRequests!).toBeGreaterThanOrEqual(perTick.s3Puts * 3600);
    });

    it('bills the put function per invocation and the ticker for its whole minute', () => {
      const putFn = hour.lambda.find((l) => l.fn === 'putHttp')!;
      const billedMs = Math.ceil(5 * (1769 / 512) + 2 * ASSUMPTIONS.dynamoLatencyMs);
      expect(putFn.billedMs).toBe(billedMs);
      expect(putFn.gbSeconds).toBeCloseTo((puts * billedMs * 0.5) / 1000, 6);
      const ticker = hour.lambda.find((l) => l.fn === 'flushTick')!;
      expect(ticker.invocations).toBe(60);
      expect(ticker.gbSeconds).toBeCloseTo(60 * 60, 6);
    });

    it('stores what puts leave behind for their lifetime, in the table and PITR', () => {
      const standing = 20_000 * 0.5 * 10 + 300 * 100;
      expect(hour.tableBytes).toBeCloseTo(standing, 6);
      const gbMonths = standing / 2 ** 30 / ASSUMPTIONS.monthHours;
      expect(hour.usage.dynamodb!.storageGbMonths).toBeCloseTo(gbMonths, 15);
      expect(hour.usage.dynamodb!.pitrGbMonths).toBeCloseTo(gbMonths, 15);
    });

    it('keeps WAL objects for the retention, two export intervals and the noncurrent days', () => {
      const lifeS = 7 * 86_400 + 2 * 900 + 30 * 86_400;
      expect(hour.s3Bytes.wal).toBeCloseTo(20_000 * 10 * lifeS, 0);
    });

    it('gives the same USD per GB for any hour of the same steady state', () => {
      const twice = bill(steadyHour(input(10, 100)).usage, PRICES_US_EAST_1).usdPerGb;
      expect(bill(hour.usage, PRICES_US_EAST_1).usdPerGb).toBeCloseTo(twice, 12);
    });

    it('bills a streamed export past one part as a multipart upload per shard', () => {
      const streamed = steadyHour({ ...hourInput, exportJob: { ...job, streamedShare: 1 } });
      // 10 puts/s × 20,000 WAL bytes × 900 s over 100 shards: 1.8 MB a shard, one part: no extra.
      expect(streamed.usage.s3!.putCopyPostListRequests).toBe(
        hour.usage.s3!.putCopyPostListRequests,
      );
      const big = input(1_000, 10);
      const plain = steadyHour(big).usage.s3!.putCopyPostListRequests!;
      const multipart = steadyHour({ ...big, exportJob: { ...job, streamedShare: 1 } }).usage.s3!
        .putCopyPostListRequests!;
      // 1,000 × 20,000 × 900 / 10 = 1.8 GB a shard a run: create + 215 parts + complete, 4 runs.
      const perShard = 1 + Math.ceil(1.8e9 / (8 * 1024 * 1024));
      expect(multipart - plain).toBeCloseTo(4 * 10 * perShard, 6);
    });

    it('flags a shard past the partition write limit', () => {
      const hot = steadyHour(input(1_000, 1));
      expect(hot.shardWriteUnitsPerSecond).toBeGreaterThan(
        ASSUMPTIONS.partitionWriteUnitsPerSecond,
      );
      expect(hour.shardWriteUnitsPerSecond).toBeLessThan(ASSUMPTIONS.partitionWriteUnitsPerSecond);
    });
  });

  describe('cycle', () => {
    it('takes count entries from the values in turn', () => {
      expect(cycle([1, 2, 3], 7)).toEqual([1, 2, 3, 1, 2, 3, 1]);
      expect(cycle([], 3)).toEqual([]);
    });
  });
});
