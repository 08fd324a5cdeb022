/**
 * One hour of a workload at steady state, as a `Usage` the price table
 * turns into a bill (`billing/bill.ts`). USD per GB does not depend on the
 * period; an hour keeps the per-request metering inputs (one entry per API
 * Gateway request or SQS call) small. Monthly USD is the hour × 730.
 *
 * Where each quantity comes from:
 * - puts: the measured per-put profile × puts in the hour;
 * - ticks: measured per interval (`measuredTicks`) or, for cells not run,
 *   the fitted tick model at the expected active shards (`modelledTicks`);
 * - export and verify: per run from the measured jobs, at the schedule's
 *   runs per hour, reading only the data new since the previous run (what
 *   the design specifies; `exportAsCoded` prints what today's code does);
 * - storage: item bytes × lifetime (measured) for DynamoDB and point-in-time
 *   recovery; WAL bytes × (retention + noncurrent-version days) and export
 *   bytes × the priced history months for S3; log bytes × retention for
 *   CloudWatch Logs (compressed by the measured ratio);
 * - Lambda: billed ms per invocation (measured CPU scaled to the
 *   function's memory + requests × latency), at each function's memory; the
 *   ticker's whole invocation (one a minute, the whole minute);
 * - fixed monthly items (alarms, custom metrics) as 1/730 of a month.
 */

import type { HandlerName } from '../../infra/constructs/functions.js';
import { SPILL_READS_IN_FLIGHT } from '../../lib/memtable/read-batches.js';
import { STREAM_PART_BYTES } from '../../lib/store/s3-store.js';
import { planTick, TICK_SIZING } from '../../lib/ticker/tick-plan.js';
import type { Assumptions } from './assumptions.js';
import { type Bill, bill, GIB, type Usage } from './billing/bill.js';
import type { PriceTable } from './billing/prices.js';
import type { DeploymentFacts } from './deployment.js';
import type { JobProfile, PutProfile, TickProfile } from './profiles.js';
import { spillObjectLifetimeSeconds } from './spill.js';
import { expectedActiveShards, type TickQuantities, tickCost } from './tick-model.js';
import { Transport, type Workload } from './workload.js';

/** Ticks of the hour, per interval. */
export interface TickRates {
  /** Quantities of one interval's tick(s). */
  perInterval: TickQuantities;
  /** Shards flushed per interval. */
  activeShards: number;
  /** Whether they were measured (this workload ran) or come from the tick model. */
  measured: boolean;
}

/** CPU figures from unmetered timing runs (this machine). */
export interface CpuProfile {
  /** Per put invocation (HTTP: one put; SQS: one batch). */
  putInvocationMs: number;
  /** Per flushed shard, inside a tick. */
  flushMs: number;
}

/** Everything the hour is computed from. */
export interface SteadyInput {
  workload: Workload;
  put: PutProfile;
  ticks: TickRates;
  tickProfile: TickProfile;
  exportJob: JobProfile;
  verifyJob: JobProfile;
  cpu: CpuProfile;
  deployment: DeploymentFacts;
  assumptions: Assumptions;
  /** Bytes of the Lambda platform lines (START, END, REPORT) of one invocation. */
  platformLogBytes: number;
  /** Bytes of one HTTP API access-log line. */
  accessLogBytes: number;
  /** Compressed over raw bytes of the logs, as CloudWatch stores them. */
  logCompressedFraction: number;
  /** Custom metrics (EMF), distinct. */
  metrics: number;
  /** Scheduler invocations per hour. */
  schedulerPerHour: number;
  /**
   * How export and verify find the shards: a Scan of the whole table (what
   * `lib/memtable/list-shards.ts` does; it evaluates and bills every item),
   * or a registry holding only the shard records (modelled). Default: the Scan.
   */
  shardListing?: 'table-scan' | 'registry';
}

/** Per-function Lambda figures of the hour. */
interface LambdaLine {
  fn: HandlerName;
  invocations: number;
  /** Billed ms of one invocation (modelled). */
  billedMs: number;
  memoryMb: number;
  gbSeconds: number;
}

/** DynamoDB units of the hour by part. */
interface DynamoLine {
  part: 'put' | 'tick' | 'export' | 'verify';
  readUnits: number;
  writeUnits: number;
  indexWriteUnits: number;
}

/** One hour of `input.workload`, priced by `bill`. */
export interface SteadyHour {
  usage: Usage;
  dynamo: DynamoLine[];
  lambda: LambdaLine[];
  /** Standing table bytes (what a Scan evaluates, and what storage and PITR bill). */
  tableBytes: number;
  /** Standing S3 bytes by kind. */
  s3Bytes: { wal: number; exports: number; spill: number };
  logBytes: { put: number; tick: number; jobs: number; platform: number; access: number };
  /** Per-shard write units per second (a shard's items share one partition). */
  shardWriteUnitsPerSecond: number;
  /** Batch JSON bytes an active shard gathers per interval (a flush takes at most the WAL object cap). */
  shardBytesPerInterval: number;
  /** Modelled share of the interval a tick is busy. */
  tickBusyShare: number;
  /** Active shards per interval handed to flush workers. */
  fannedOut: number;
  puts: number;
}

const HOUR_S = 3600;

/** Computes the hour. */
export function steadyHour(input: SteadyInput): SteadyHour {
  const { workload: w, put, ticks, deployment: d, assumptions: a } = input;
  const puts = w.putsPerSecond * HOUR_S;
  const intervals = (HOUR_S * 1000) / w.intervalMs;
  const tickHour = scale(ticks.perInterval, intervals);
  const walObjectsPerSecond = ticks.perInterval.s3Puts / (w.intervalMs / 1000);
  const walBytesPerSecond = put.walBytes * w.putsPerSecond;
  const exportsPerHour = schedulePerHour(d, 'Export');
  const verifiesPerHour = schedulePerHour(d, 'Verify');
  const exportIntervalS = exportsPerHour > 0 ? HOUR_S / exportsPerHour : HOUR_S;

  // DynamoDB storage: what puts leave behind × how long, plus the shard records.
  const tableBytes =
    put.byteSecondsPerPut * w.putsPerSecond + input.tickProfile.recordBytesPerShard * w.shards;
  // Items that never go (a leak when not zero), priced like history: for the priced months.
  const leakBytesPerHour = put.permanentBytesPerPut * puts;
  const recordBytes = input.tickProfile.recordBytesPerShard * w.shards;
  const scannedBytes = input.shardListing === 'registry' ? recordBytes : tableBytes;

  // Export and verify, per run, reading what is new since the previous run.
  const ex = input.exportJob;
  const ve = input.verifyJob;
  const exportWalObjects = walObjectsPerSecond * exportIntervalS;
  const exportWalBytes = walBytesPerSecond * exportIntervalS;
  const verifyWalObjects = walObjectsPerSecond * exportIntervalS * a.verifyLagShare;
  const verifyWalBytes = walBytesPerSecond * exportIntervalS * a.verifyLagShare;
  const exportShards = Math.min(w.shards, Math.max(ticks.activeShards, exportWalObjects));
  const jobRun = (job: JobProfile, shards: number, walObjects: number) => ({
    puts: job.s3PerShard.puts * shards,
    gets: job.s3PerShard.gets * shards + job.getsPerWalObject * walObjects,
    lists: job.s3PerShard.lists * shards,
    deletes: job.s3PerShard.deletes * shards,
    readUnits: job.unitsPerShard.readUnits * shards + job.scanUnitsPerTableByte * scannedBytes,
    writeUnits: job.unitsPerShard.writeUnits * shards,
    requests: job.unitsPerShard.requests * shards,
  });
  const exportRun = jobRun(ex, exportShards, exportWalObjects);
  // A streamed export object past one part is a multipart upload: create, parts, complete.
  const streamedPerShard =
    (exportWalBytes * ex.exportBytesPerWalByte * ex.streamedShare) / Math.max(1, exportShards);
  if (streamedPerShard > STREAM_PART_BYTES) {
    exportRun.puts += exportShards * (1 + Math.ceil(streamedPerShard / STREAM_PART_BYTES));
  }
  const verifyRun = jobRun(ve, w.shards, verifyWalObjects);

  // S3 storage: WAL until retired, then as a noncurrent version; exports for the priced history.
  const walLifetimeS =
    d.settings.service.walRetentionMs / 1000 +
    2 * exportIntervalS +
    (d.bucket.versioned ? (d.bucket.noncurrentDays ?? 0) * 86_400 : 0);
  const walStanding = walBytesPerSecond * walLifetimeS;
  const exportBytesPerSecond = walBytesPerSecond * ex.exportBytesPerWalByte;
  const exportStanding = exportBytesPerSecond * a.historyMonths * a.monthHours * HOUR_S;
  // Spilled payloads: until the lifecycle rule expires them (at the midnight after
  // SPILL_LIFECYCLE_DAYS, half a day later on average), then as a noncurrent version.
  const spillStanding =
    put.spillBytes * w.putsPerSecond * spillObjectLifetimeSeconds(d.bucket.versioned);

  // Lambda.
  const fn = d.functions;
  const billed = (cpuMs: number, memoryMb: number, requestMs: number) =>
    Math.ceil(cpuMs * Math.max(1, a.fullVcpuMemoryMb / memoryMb) + requestMs);
  const putFn = w.transport === Transport.sqs ? 'putSqs' : 'putHttp';
  const putInvocations = puts * put.invocationsPerPut;
  const lambda: LambdaLine[] = [
    line(
      putFn,
      putInvocations,
      billed(
        input.cpu.putInvocationMs,
        fn[putFn].memoryMb,
        put.ddbRequestsPerInvocation * a.dynamoLatencyMs +
          (put.s3Puts / put.invocationsPerPut) * a.s3PutLatencyMs,
      ),
      fn[putFn].memoryMb,
    ),
    tickerLine(input, intervals),
    workerLine(input, intervals),
    line(
      'export',
      exportsPerHour,
      billed(
        ex.cpuMsPerWalByte * exportWalBytes,
        fn.export.memoryMb,
        exportRun.requests * a.dynamoLatencyMs +
          exportRun.puts * a.s3PutLatencyMs +
          (exportRun.gets + exportRun.lists) * a.s3GetLatencyMs,
      ),
      fn.export.memoryMb,
    ),
    line(
      'recover',
      verifiesPerHour,
      billed(
        ve.cpuMsPerWalByte * verifyWalBytes,
        fn.recover.memoryMb,
        verifyRun.requests * a.dynamoLatencyMs +
          (verifyRun.gets + verifyRun.lists) * a.s3GetLatencyMs,
      ),
      fn.recover.memoryMb,
    ),
  ];

  // Logs: handler output, Lambda's platform lines, the API's access log.
  const tickLogs =
    intervals * input.tickProfile.logBytesPerTick +
    intervals * ticks.activeShards * input.tickProfile.logBytesPerFlush;
  const logBytes = {
    put: put.logBytes * puts,
    tick: tickLogs,
    jobs: ex.logBytesPerRun * exportsPerHour + ve.logBytesPerRun * verifiesPerHour,
    platform: input.platformLogBytes * lambda.reduce((sum, l) => sum + l.invocations, 0),
    access: w.transport === Transport.http ? input.accessLogBytes * puts : 0,
  };
  const logTotal = Object.values(logBytes).reduce((sum, b) => sum + b, 0);
  const retentionDays = fn[putFn].logRetentionDays ?? 30;
  const monthFraction = 1 / a.monthHours;

  const dynamo: DynamoLine[] = [
    {
      part: 'put',
      readUnits: put.units.readUnits * puts,
      writeUnits: put.units.writeUnits * puts,
      indexWriteUnits: put.units.indexWriteUnits * puts,
    },
    {
      part: 'tick',
      readUnits: tickHour.readUnits,
      writeUnits: tickHour.writeUnits,
      indexWriteUnits: tickHour.indexWriteUnits,
    },
    {
      part: 'export',
      readUnits: exportRun.readUnits * exportsPerHour,
      writeUnits: exportRun.writeUnits * exportsPerHour,
      indexWriteUnits: 0,
    },
    {
      part: 'verify',
      readUnits: verifyRun.readUnits * verifiesPerHour,
      writeUnits: verifyRun.writeUnits * verifiesPerHour,
      indexWriteUnits: 0,
    },
  ];
  const sum = (key: keyof Omit<DynamoLine, 'part'>) => dynamo.reduce((s, l) => s + l[key], 0);
  const tableGb = (tableBytes + leakBytesPerHour * a.historyMonths * a.monthHours) / GIB;

  const usage: Usage = {
    rawBytes: put.rawBytes * puts,
    dynamodb: {
      units: {
        readUnits: sum('readUnits'),
        writeUnits: sum('writeUnits'),
        indexWriteUnits: sum('indexWriteUnits'),
      },
      storageGbMonths: tableGb * monthFraction,
      pitrGbMonths: d.table.pitr ? tableGb * monthFraction : 0,
    },
    s3: {
      putCopyPostListRequests:
        put.s3Puts * puts +
        tickHour.s3Puts +
        (exportRun.puts + exportRun.lists) * exportsPerHour +
        (verifyRun.puts + verifyRun.lists) * verifiesPerHour,
      getRequests:
        put.s3Gets * puts +
        tickHour.s3Gets +
        exportRun.gets * exportsPerHour +
        verifyRun.gets * verifiesPerHour,
      deleteRequests: exportRun.deletes * exportsPerHour,
      storageGbMonths: ((walStanding + exportStanding + spillStanding) / GIB) * monthFraction,
    },
    lambda: {
      [fn.putHttp.architecture === 'arm64' ? 'arm64GbSeconds' : 'x86GbSeconds']: lambda.reduce(
        (s, l) => s + l.gbSeconds,
        0,
      ),
      requests: lambda.reduce((s, l) => s + l.invocations, 0),
    },
    ...(w.transport === Transport.http
      ? { apiGateway: { requestBodyBytes: cycle(put.requestBytes, Math.round(puts)) } }
      : { sqs: { standardRequestBytes: sqsCalls(input, puts) } }),
    cloudwatch: {
      logsIngestedBytes: logTotal,
      logsStorageGbMonths:
        ((logTotal * input.logCompressedFraction * retentionDays * 24) / GIB) * monthFraction,
      customMetricMonths: input.metrics * monthFraction,
      alarmMonths: d.alarms * monthFraction,
    },
    scheduler: { invocations: input.schedulerPerHour },
  };
  return {
    usage,
    dynamo,
    lambda,
    tableBytes,
    s3Bytes: { wal: walStanding, exports: exportStanding, spill: spillStanding },
    logBytes,
    shardWriteUnitsPerSecond:
      ((put.units.writeUnits + put.units.indexWriteUnits) * w.putsPerSecond +
        (tickHour.writeUnits + tickHour.indexWriteUnits) / HOUR_S) /
      w.shards,
    shardBytesPerInterval:
      ticks.activeShards > 0
        ? (put.jsonBytes * w.putsPerSecond * (w.intervalMs / 1000)) / ticks.activeShards
        : 0,
    tickBusyShare: tickBusyMs(input) / w.intervalMs,
    fannedOut: fannedOutPerInterval(input),
    puts,
  };
}

/**
 * The bill of `hour` with the table in provisioned mode, capacity held at
 * the assumed target utilisation by auto scaling (modelled: see
 * `billing/dynamodb-pricing.ts`).
 */
export function provisionedBill(
  hour: SteadyHour,
  prices: PriceTable,
  assumptions: Assumptions,
): Bill {
  return bill(
    {
      ...hour.usage,
      dynamodb: {
        ...hour.usage.dynamodb!,
        mode: {
          mode: 'provisioned',
          durationSeconds: HOUR_S,
          targetUtilisation: assumptions.provisionedTargetUtilisation,
        },
      },
    },
    prices,
  );
}

/** Ticks per interval as measured in a run of the workload itself. */
export function measuredTicks(
  ticks: readonly {
    activeShards: number;
    units: { requests: number; readUnits: number; writeUnits: number; indexWriteUnits: number };
    s3Puts: number;
    s3Gets: number;
  }[],
  intervalsRun: number,
): TickRates {
  const total: TickQuantities = {
    requests: 0,
    readUnits: 0,
    writeUnits: 0,
    indexWriteUnits: 0,
    s3Puts: 0,
    s3Gets: 0,
  };
  let active = 0;
  for (const t of ticks) {
    total.requests += t.units.requests;
    total.readUnits += t.units.readUnits;
    total.writeUnits += t.units.writeUnits;
    total.indexWriteUnits += t.units.indexWriteUnits;
    total.s3Puts += t.s3Puts;
    total.s3Gets += t.s3Gets;
    active += t.activeShards;
  }
  return {
    perInterval: scale(total, 1 / intervalsRun),
    activeShards: active / intervalsRun,
    measured: true,
  };
}

/** Ticks per interval from the tick model, for a workload that was not run. */
export function modelledTicks(profile: TickProfile, workload: Workload): TickRates {
  const putsPerTick = (workload.putsPerSecond * workload.intervalMs) / 1000;
  const active = expectedActiveShards(workload.shards, putsPerTick);
  return {
    perInterval: tickCost(profile.model, active, putsPerTick),
    activeShards: active,
    measured: false,
  };
}

/**
 * The ticker: one invocation per schedule period. With a sub-minute
 * interval it ticks until its window ends, so it is billed for the whole
 * window whatever the load; with whole minutes, for its one tick.
 */
function tickerLine(input: SteadyInput, intervals: number): LambdaLine {
  const { deployment: d } = input;
  const plan = d.settings.ticker;
  const fn = d.functions.flushTick;
  const invocations = 60 / plan.rateMinutes;
  const busyMs = tickBusyMs(input) * (intervals / invocations);
  const billedMs =
    plan.ticksPerInvocation > 1 ? Math.max(plan.rateMinutes * 60_000, busyMs) : Math.ceil(busyMs);
  return line('flushTick', invocations, billedMs, fn.memoryMb);
}

/**
 * Flush workers: the real tick planner (`planTick`) decides how many active
 * shards a tick keeps, given the flush time it would measure; flushes run
 * concurrently on one CPU, so each one's wall time is about the tick's
 * modelled busy time. The rest are fanned out in lists (P5 and P6 in
 * `lib/ticker/tick-plan.ts`), one worker invocation a list, which flushes
 * its list in waves of `TICK_SIZING.maxConcurrency`, billed at the worker's memory.
 */
function workerLine(input: SteadyInput, intervals: number): LambdaLine {
  const fn = input.deployment.functions.flushWorker;
  const active = input.ticks.activeShards;
  const { fannedOut, perMessage } = fanOutPerInterval(input);
  const a = input.assumptions;
  const perFlushMs =
    input.cpu.flushMs * Math.max(1, a.fullVcpuMemoryMb / fn.memoryMb) +
    (input.ticks.perInterval.requests / Math.max(1, active)) * a.dynamoLatencyMs +
    a.s3PutLatencyMs;
  const lists = fannedOut > 0 ? Math.ceil(fannedOut / perMessage) : 0;
  const waves = lists > 0 ? Math.ceil(fannedOut / lists / TICK_SIZING.maxConcurrency) : 0;
  return line('flushWorker', lists * intervals, perFlushMs * waves, fn.memoryMb);
}

/** Active shards per interval a tick hands to workers (see `workerLine`). */
function fannedOutPerInterval(input: SteadyInput): number {
  return fanOutPerInterval(input).fannedOut;
}

/** Shards a tick hands to workers per interval, and the most it names in one message. */
function fanOutPerInterval(input: SteadyInput): { fannedOut: number; perMessage: number } {
  const active = Math.round(input.ticks.activeShards);
  const plan = planTick({
    activeShards: active,
    intervalMs: input.workload.intervalMs,
    flushMs: tickBusyMs(input),
    canFanOut: true,
    maxWalObjectBytes: input.deployment.settings.service.maxWalObjectBytes,
    concurrency: input.deployment.settings.service.flushConcurrency,
    maxShardsPerTick: input.deployment.settings.service.maxShardsPerTick,
    workers: input.deployment.settings.service.flushWorkers,
  });
  return { fannedOut: active - plan.here, perMessage: plan.perMessage };
}

/**
 * Modelled busy time of one tick: the flushes' CPU at the ticker's memory
 * (one thread: CPU adds up), plus one flush's chain of round trips (the
 * flushes run concurrently, so their waits overlap).
 */
function tickBusyMs(input: SteadyInput): number {
  const { assumptions: a, ticks } = input;
  const fn = input.deployment.functions.flushTick;
  const active = ticks.activeShards;
  const cpu = input.cpu.flushMs * active * Math.max(1, a.fullVcpuMemoryMb / fn.memoryMb);
  const perShard = active > 0 ? ticks.perInterval.requests / active : ticks.perInterval.requests;
  // Spilled payloads are read SPILL_READS_IN_FLIGHT at a time: a round trip per that many.
  const getsPerShard = active > 0 ? ticks.perInterval.s3Gets / active : 0;
  const chain =
    perShard * a.dynamoLatencyMs +
    (active > 0 ? a.s3PutLatencyMs : 0) +
    Math.ceil(getsPerShard / SPILL_READS_IN_FLIGHT) * a.s3GetLatencyMs;
  return cpu + chain;
}

function line(
  fn: HandlerName,
  invocations: number,
  billedMs: number,
  memoryMb: number,
): LambdaLine {
  return {
    fn,
    invocations,
    billedMs,
    memoryMb,
    gbSeconds: (invocations * billedMs * memoryMb) / 1024 / 1000,
  };
}

function schedulePerHour(d: DeploymentFacts, id: string): number {
  return d.schedules.find((s) => s.id.includes(id))?.perHour ?? 0;
}

/** SQS calls of the hour: sends, receives (one per batch), deletes (one per batch), idle long polls. */
function sqsCalls(input: SteadyInput, puts: number): number[] {
  const sizes = cycle(input.put.requestBytes, Math.round(puts));
  const batch = input.deployment.ingestBatchSize;
  const calls: number[] = [...sizes];
  for (let at = 0; at < sizes.length; at += batch) {
    const received = sizes.slice(at, at + batch).reduce((s, b) => s + b, 0);
    calls.push(received, 0);
  }
  const a = input.assumptions;
  const idle = Math.round((a.sqsIdlePollers * HOUR_S) / a.sqsLongPollSeconds);
  for (let i = 0; i < idle; i++) calls.push(0);
  return calls;
}

/** `count` entries taken from `values` in turn. */
export function cycle(values: readonly number[], count: number): number[] {
  if (values.length === 0) return [];
  return Array.from({ length: count }, (_, i) => values[i % values.length]!);
}

function scale(q: TickQuantities, by: number): TickQuantities {
  return {
    requests: q.requests * by,
    readUnits: q.readUnits * by,
    writeUnits: q.writeUnits * by,
    indexWriteUnits: q.indexWriteUnits * by,
    s3Puts: q.s3Puts * by,
    s3Gets: q.s3Gets * by,
  };
}
