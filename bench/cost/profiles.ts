/**
 * What one put, one tick, one export and one verify cost, read off metered
 * runs. The steady-state model (`steady.ts`) multiplies these by rates.
 */
import { InternalError } from '../../lib/errors.js';
import { ItemClass } from './item-lifetimes.js';
import type { JobRecord, Measurement } from './run-workload.js';
import { fitTicks, type TickModel } from './tick-model.js';
import type { Transport } from './workload.js';

/** Consumption of one put, from a metered run. */
export interface PutProfile {
  /** The run it was measured in. */
  source: string;
  transport: Transport;
  idempotent: boolean;
  rawBytes: number;
  /** Batch JSON bytes charged against the shard's buffer (what the WAL object cap bounds). */
  jsonBytes: number;
  /** Bytes of each HTTP body or SQS message of the run (the API Gateway and SQS metering inputs). */
  requestBytes: readonly number[];
  units: {
    requests: number;
    readUnits: number;
    writeUnits: number;
    indexWriteUnits: number;
    failedConditions: number;
  };
  /** Compressed WAL bytes the put ends up as. */
  walBytes: number;
  /** S3 requests of the put path: PUTs of spilled payloads (`lib/memtable/spill.ts`), and GETs. */
  s3Puts: number;
  s3Gets: number;
  /** Bytes of spilled payload objects a put creates. */
  spillBytes: number;
  /** Handler log and EMF bytes, and log events. */
  logBytes: number;
  logEvents: number;
  invocationsPerPut: number;
  ddbRequestsPerInvocation: number;
  /** Σ billed item bytes × seconds lived, of the items a put leaves behind (batches, idempotency records). */
  byteSecondsPerPut: number;
  /** Bytes a put leaves that neither expire nor are deleted (a leak, when not zero). */
  permanentBytesPerPut: number;
  metrics: ReadonlySet<string>;
}

/** Consumption of ticks, from every metered run's ticks. */
export interface TickProfile {
  model: TickModel;
  /** Log bytes: per tick, and per flushed shard. */
  logBytesPerTick: number;
  logBytesPerFlush: number;
  /** Shard-record bytes that stay for good, per shard. */
  recordBytesPerShard: number;
  metrics: ReadonlySet<string>;
}

/** Consumption of one scheduled export or verify run (O(new data) reading; see `steady.ts`). */
export interface JobProfile {
  /** S3 requests per shard per run, besides the per-WAL-object GETs. */
  s3PerShard: { puts: number; gets: number; lists: number; deletes: number };
  /** S3 GETs per WAL object folded or checked. */
  getsPerWalObject: number;
  /** DynamoDB units per shard per run, besides the Scan. */
  unitsPerShard: { readUnits: number; writeUnits: number; requests: number };
  /** Scan read units per byte of table evaluated (DynamoDB: 1 unit per 4 KB, strongly consistent). */
  scanUnitsPerTableByte: number;
  /** CPU ms per WAL byte folded or checked (this machine), and per shard. */
  cpuMsPerWalByte: number;
  /** Export bytes per WAL byte covered (export only). */
  exportBytesPerWalByte: number;
  /** Share of the export's bytes written as streams (on S3, multipart uploads past one part). */
  streamedShare: number;
  logBytesPerRun: number;
  metrics: ReadonlySet<string>;
}

/** Per-put figures of metered run `m`; `cpu` is from an unmetered run of the same shape. */
export function putProfile(m: Measurement): PutProfile {
  if (m.puts === 0 || !m.storage)
    throw new InternalError(`run ${m.workload.name}: no metered puts`);
  const u = m.units.put;
  const storage = m.storage;
  const perPutClasses = [ItemClass.batch, ItemClass.idempotency, ItemClass.other];
  return {
    source: m.workload.name,
    transport: m.workload.transport,
    idempotent: m.workload.idempotent,
    rawBytes: m.rawBytes / m.puts,
    jsonBytes: putJsonBytes(m),
    requestBytes: m.requestBytes,
    units: {
      requests: u.requests / m.puts,
      readUnits: u.readUnits / m.puts,
      writeUnits: u.writeUnits / m.puts,
      indexWriteUnits: u.indexWriteUnits / m.puts,
      failedConditions: u.failedConditions / m.puts,
    },
    walBytes: m.bytes.wal.createdBytes / m.puts,
    s3Puts: m.s3.put.spill.putIfAbsent / m.puts,
    s3Gets: m.s3.put.spill.get / m.puts,
    spillBytes: m.bytes.spill.createdBytes / m.puts,
    logBytes: m.logs.put.bytes / m.puts,
    logEvents: m.logs.put.events / m.puts,
    invocationsPerPut: m.putInvocations / m.puts,
    ddbRequestsPerInvocation: u.requests / m.putInvocations,
    byteSecondsPerPut: perPutClasses.reduce((sum, c) => sum + storage[c].byteSeconds, 0) / m.puts,
    permanentBytesPerPut:
      perPutClasses.reduce((sum, c) => sum + storage[c].permanentBytes, 0) / m.puts,
    metrics: m.logs.put.metrics,
  };
}

/** The tick model fitted on every tick of `runs`, with the log figures of their ticks. */
export function tickProfile(runs: readonly Measurement[]): TickProfile {
  const samples = runs.flatMap((m) =>
    m.ticks.map((t) => ({
      activeShards: t.activeShards,
      batches: t.batches,
      requests: t.units.requests,
      readUnits: t.units.readUnits,
      writeUnits: t.units.writeUnits,
      indexWriteUnits: t.units.indexWriteUnits,
      s3Puts: t.s3Puts,
      s3Gets: t.s3Gets,
    })),
  );
  const ticks = runs.flatMap((m) => m.ticks);
  const idle = ticks.filter((t) => t.activeShards === 0);
  const busy = ticks.filter((t) => t.activeShards > 0);
  const logBytesPerTick = mean(idle.map((t) => t.logBytes));
  const flushes = busy.reduce((sum, t) => sum + t.flushedWalObjects, 0);
  const flushLogBytes = busy.reduce((sum, t) => sum + t.logBytes - logBytesPerTick, 0);
  const records = runs.filter((m) => m.storage);
  const recordBytes = records.reduce(
    (sum, m) => sum + m.storage![ItemClass.shardRecord].permanentBytes,
    0,
  );
  const recordCount = records.reduce(
    (sum, m) => sum + m.storage![ItemClass.shardRecord].permanent,
    0,
  );
  const metrics = new Set<string>();
  for (const m of runs) for (const metric of m.logs.tick.metrics) metrics.add(metric);
  return {
    model: fitTicks(samples),
    logBytesPerTick,
    logBytesPerFlush: flushes > 0 ? flushLogBytes / flushes : 0,
    recordBytesPerShard: recordCount > 0 ? recordBytes / recordCount : 0,
    metrics,
  };
}

/**
 * The export or verify profile from the jobs of metered run `m`: the first
 * run of `phase` with a base (export) or the only one (verify).
 */
export function jobProfile(m: Measurement, phase: 'export' | 'verify'): JobProfile {
  const jobs = m.jobs.filter((j) => j.phase === phase);
  if (jobs.length === 0) throw new InternalError(`run ${m.workload.name}: no ${phase} measured`);
  // The first export folds from position 0 (no base): its bytes per WAL byte are new data only.
  const first = jobs[0]!;
  // A later export also reads its base and walks retention: the per-shard requests of a steady run.
  const steady = jobs[1] ?? first;
  const shards = Math.max(1, m.workload.shards);
  const s3 = steady.s3;
  const walGets = s3.wal.get + s3.wal.getStream;
  const metrics = new Set<string>(jobs.flatMap((j) => [...j.logs.metrics]));
  return {
    s3PerShard: {
      puts: (s3.wal.putIfAbsent + s3.export.putIfAbsent + s3.other.putIfAbsent) / shards,
      gets: (s3.export.get + s3.export.getStream + s3.other.get + s3.other.getStream) / shards,
      lists: (s3.wal.list + s3.export.list + s3.other.list) / shards,
      deletes: (s3.wal.delete + s3.export.delete + s3.other.delete) / shards,
    },
    getsPerWalObject: steady.walObjectsNew > 0 ? walGets / steady.walObjectsNew : 0,
    unitsPerShard: {
      readUnits: (steady.units.readUnits - steady.scanReadUnits) / shards,
      writeUnits: (steady.units.writeUnits + steady.units.indexWriteUnits) / shards,
      requests: steady.units.requests / shards,
    },
    // The first run on a fresh table may do one-time work (a registry backfill Scan): not steady state.
    scanUnitsPerTableByte: scanRatio(jobs.length > 1 ? jobs.slice(1) : jobs),
    cpuMsPerWalByte: first.cpuMs / Math.max(1, walBytesCovered(first)),
    exportBytesPerWalByte:
      phase === 'export' ? first.bytes.export.createdBytes / Math.max(1, first.walBytes) : 0,
    streamedShare:
      steady.bytes.export.createdBytes > 0
        ? steady.bytes.export.streamedBytes / steady.bytes.export.createdBytes
        : 0,
    logBytesPerRun: mean(jobs.map((j) => j.logs.bytes)),
    metrics,
  };
}

/** Mean JSON bytes a put charged (its raw rows plus the batch framing), from the request bodies. */
function putJsonBytes(m: Measurement): number {
  return m.requestBytes.reduce((s, b) => s + b, 0) / m.requestBytes.length;
}

/**
 * Scan read units per table byte across `jobs`: what the job's Scans read
 * relative to the table they ran over (0 when the job sends no Scan).
 */
function scanRatio(jobs: readonly JobRecord[]): number {
  const bytes = jobs.reduce((sum, j) => sum + j.tableBytes, 0);
  const units = jobs.reduce((sum, j) => sum + j.scanReadUnits, 0);
  return bytes > 0 ? units / bytes : 0;
}

function walBytesCovered(job: JobRecord): number {
  return job.phase === 'export' ? job.walBytes : job.bytes.wal.readBytes;
}

function mean(values: readonly number[]): number {
  return values.length === 0 ? 0 : values.reduce((a, b) => a + b, 0) / values.length;
}
