/**
 * Runs one workload through the real code in virtual time and measures it.
 *
 * - Puts go through the Lambda handlers' own composition: HTTP puts through
 *   `wrapHandler(handlePut)` (what `functions/put-http.ts` exports), SQS
 *   batches through `wrapHandler(handlePutMessages)` (which calls
 *   `putMessage` per record), so the HTTP layer, the logger's Lambda context
 *   and the end-of-invocation EMF flush are all counted.
 * - Ticks are the scheduled invocation's own `runLoggedTick` (the real
 *   `runTick`, then its log line and metrics), fired on the grid by the real
 *   `runTicksUntil`, whose sleeps on the virtual clock are where the puts of
 *   each interval run.
 * - With `jobs`, the run is three rounds: export after the first two, then
 *   verify and a last export, through `handleExportEvent` and
 *   `handleRecoverEvent` with the events their schedules send.
 * DynamoDB is dynalite behind `MeteredDynamoDB` (and `ItemLifetimes`, for
 * storage); the object store is the filesystem store behind
 * `ByteMeteredStore` and `InstrumentedObjectStore`. Everything runs one
 * request at a time, so the figures are the same run to run.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { type DynamoDBClient, ScanCommand } from '@aws-sdk/client-dynamodb';
import type { APIGatewayProxyEventV2, Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { exportDeps } from '../../lib/export/deps.js';
import { handleExportEvent } from '../../lib/export/export-event.js';
import type { ExportReport } from '../../lib/export/export-report.js';
import type { LeaseTimers } from '../../lib/fence/lease-keeper.js';
import { handlePut } from '../../lib/http/put-route.js';
import { scheduledEvent, VERIFY_SCHEDULE_INPUT } from '../../lib/local/scheduled-events.js';
import { ensureTable } from '../../lib/memtable/create-table.js';
import { payloadSpill } from '../../lib/memtable/spill.js';
import type { Table } from '../../lib/memtable/table.js';
import { logger, withLogScope } from '../../lib/observability/telemetry.js';
import { recoveryDeps } from '../../lib/recovery/deps.js';
import { handleRecoverEvent } from '../../lib/recovery/recover-event.js';
import type { VerifyReport } from '../../lib/recovery/verify.js';
import { type Service, serviceFromEnv } from '../../lib/runtime/service.js';
import { wrapHandler } from '../../lib/runtime/wrap.js';
import { seededRandom } from '../../lib/seeded-random.js';
import { handlePutMessages } from '../../lib/sqs/put-messages.js';
import { FsObjectStore } from '../../lib/store/fs-store.js';
import { InstrumentedObjectStore } from '../../lib/store/instrumented-store.js';
import type { ObjectStore } from '../../lib/store/object-store.js';
import type { StoreOperation } from '../../lib/store/store-operation.js';
import { ClaimLead } from '../../lib/ticker/claim-lead.js';
import { runLoggedTick } from '../../lib/ticker/scheduled-tick.js';
import { flushAndReport } from '../../lib/ticker/tick.js';
import { FlushTimeEstimate } from '../../lib/ticker/tick-plan.js';
import { runTicksUntil } from '../../lib/ticker/ticker.js';
import { itemSize } from './billing/item-size.js';
import { emptyCounters, type MeterCounters } from './billing/meter-ledger.js';
import { MeteredDynamoDB } from './billing/metered-dynamodb.js';
import { cloneKinds, diff, snapshot, subtractBytes, subtractKinds, zeroKinds } from './counters.js';
import type { DeploymentFacts } from './deployment.js';
import { type ClassStorage, type ItemClass, ItemLifetimes } from './item-lifetimes.js';
import { contextFor, httpEvent, sqsRecord, uuidFrom } from './lambda-events.js';
import { type CapturedOutput, captureOutput, emptyCapture } from './log-capture.js';
import { type JsonRow, putBodyText, rowGenerator } from './rows.js';
import { ByteMeteredStore, type KindBytes, type ObjectKind, objectKind } from './store-meter.js';
import { VirtualClock } from './virtual-clock.js';
import { putsIn, Transport, type Workload } from './workload.js';

/** Parts of a run whose costs are kept apart. */
const Phase = {
  put: 'put',
  tick: 'tick',
  worker: 'worker',
  export: 'export',
  verify: 'verify',
} as const;
type Phase = (typeof Phase)[keyof typeof Phase];
const PHASES = Object.values(Phase);

/** Shared by every run of one benchmark. */
export interface BenchEnv {
  /** The emulator's client (unmetered). */
  dynamo: DynamoDBClient;
  dynamoEndpoint: string;
  /** A scratch directory for object stores. */
  dir: string;
  deployment: DeploymentFacts;
  /** Added to every expiring item's life: DynamoDB deletes expired items within days, not at once. */
  ttlDelaySeconds: number;
}

/** How a workload is run. */
export interface RunPlan {
  /** Intervals of puts (puts = rate × ticks × interval). */
  ticks: number;
  seed: number;
  /** Export and verify in three rounds (see the module comment). */
  jobs: boolean;
  /** False: no meter (for CPU timing; the meter's side reads would be counted as the handler's). */
  metered: boolean;
}

/** One tick's consumption. */
interface TickRecord {
  activeShards: number;
  /** Batches the tick's flushes covered. */
  batches: number;
  /** Batch JSON bytes covered (what the puts charged). */
  flushedWalObjects: number;
  units: MeterCounters;
  s3Puts: number;
  /** GETs of spilled batch payloads. */
  s3Gets: number;
  /** Bytes the tick's logger and metrics wrote. */
  logBytes: number;
}

/** One export or verify run. */
export interface JobRecord {
  phase: 'export' | 'verify';
  round: number;
  units: MeterCounters;
  s3: Record<ObjectKind, Record<StoreOperation, number>>;
  bytes: Record<ObjectKind, KindBytes>;
  cpuMs: number;
  /** WAL objects that existed when it ran, and how many were above the watermark (verify) or folded (export). */
  walObjects: number;
  walObjectsNew: number;
  /** Items in the table when it ran, and their billed bytes (what a Scan evaluates). */
  tableItems: number;
  tableBytes: number;
  /** Read units of its Scans of the table (shard records are found by a Scan). */
  scanReadUnits: number;
  /** Bytes of the WAL objects in the store when it ran. */
  walBytes: number;
  logs: CapturedOutput;
}

/** Everything measured in one run. */
export interface Measurement {
  workload: Workload;
  plan: RunPlan;
  puts: number;
  rows: number;
  /** Raw row JSON bytes: the denominator of USD/GB. */
  rawBytes: number;
  /** Bytes of each HTTP request body or SQS message, in order. */
  requestBytes: number[];
  /** Handler invocations that carried the puts (HTTP: one per put; SQS: one per batch). */
  putInvocations: number;
  statuses: Record<string, number>;
  units: Record<Phase, MeterCounters>;
  /** Every (phase, DynamoDB operation) row. */
  ledger: { phase: string; operation: string; counters: MeterCounters }[];
  ticks: TickRecord[];
  s3: Record<Phase, Record<ObjectKind, Record<StoreOperation, number>>>;
  bytes: Record<ObjectKind, KindBytes>;
  liveBytes: Record<ObjectKind, number>;
  logs: Record<'put' | 'tick', CapturedOutput>;
  jobs: JobRecord[];
  /** Handler CPU (this process only; the emulator runs in its own). */
  cpuMs: Record<'put' | 'tick', number>;
  wallMs: Record<'put' | 'tick', number>;
  storage: Record<ItemClass, ClassStorage> | undefined;
  flushRequests: number;
  fannedOut: number;
  sideReadMismatches: number;
  virtualSeconds: number;
}

const START_MS = Date.UTC(2026, 11, 1);

/** Lease-keeper timers that never fire (see `serviceFor`). */
const NO_TIMERS: LeaseTimers = { setTimeout: () => undefined, clearTimeout: () => undefined };

let runs = 0;

/** Runs `workload` by `plan` and measures it. */
export async function runWorkload(
  env: BenchEnv,
  workload: Workload,
  plan: RunPlan,
): Promise<Measurement> {
  runs += 1;
  const tableName = `cost-${runs}-${workload.name.replace(/[^a-z0-9]+/gi, '-')}`.slice(0, 200);
  const clock = new VirtualClock(START_MS);
  const tracker = new ItemLifetimes(env.dynamo, clock.now);
  const meter = plan.metered ? new MeteredDynamoDB(tracker) : undefined;
  const client = (phase: Phase) => (meter ? meter.labelled(phase) : env.dynamo);
  await ensureTable({ client: env.dynamo, tableName });

  let phase: Phase = Phase.put;
  const s3 = Object.fromEntries(PHASES.map((p) => [p, zeroKinds()])) as Measurement['s3'];
  const dir = join(env.dir, tableName);
  await mkdir(dir, { recursive: true });
  const bytes = new ByteMeteredStore(new FsObjectStore(dir));
  const store = new InstrumentedObjectStore(bytes, {
    onRequest: (operation, key) => {
      s3[phase][objectKind(key)][operation] += 1;
    },
  });
  let flushRequests = 0;
  let fannedOut = 0;
  const services = Object.fromEntries(
    PHASES.map((p) => [
      p,
      serviceFor(env, { client: client(p), tableName }, store, clock, workload, () => {
        flushRequests += 1;
      }),
    ]),
  ) as Record<Phase, Service>;

  const m: Measurement = {
    workload,
    plan,
    puts: 0,
    rows: 0,
    rawBytes: 0,
    requestBytes: [],
    putInvocations: 0,
    statuses: {},
    units: Object.fromEntries(PHASES.map((p) => [p, emptyCounters()])) as Measurement['units'],
    ledger: [],
    ticks: [],
    s3,
    bytes: bytes.bytes(),
    liveBytes: bytes.liveBytes(),
    logs: { put: emptyCapture(), tick: emptyCapture() },
    jobs: [],
    cpuMs: { put: 0, tick: 0 },
    wallMs: { put: 0, tick: 0 },
    storage: undefined,
    flushRequests: 0,
    fannedOut: 0,
    sideReadMismatches: 0,
    virtualSeconds: 0,
  };
  const deployment = env.deployment;
  const timed = async <T>(key: 'put' | 'tick', fn: () => Promise<T>): Promise<T> => {
    const cpu = process.cpuUsage();
    const wall = performance.now();
    try {
      return await fn();
    } finally {
      const used = process.cpuUsage(cpu);
      m.cpuMs[key] += (used.user + used.system) / 1000;
      m.wallMs[key] += performance.now() - wall;
    }
  };

  // Puts, scheduled on the clock at even spacing; shards drawn with the seed.
  const random = seededRandom(plan.seed);
  const rows = rowGenerator({
    variant: workload.variant,
    seed: plan.seed,
    targetBytes: workload.rowBytes,
  });
  const total = putsIn(workload, plan.ticks);
  const spacingMs = 1000 / workload.putsPerSecond;
  const putHandler = wrapHandler((event: APIGatewayProxyEventV2, context: Context) =>
    handlePut(event, services.put.put, context),
  );
  const sqsHandler = wrapHandler((event: SQSEvent, context: Context) =>
    handlePutMessages(event, context, services.put.put),
  );
  const putFn = deployment.functions[workload.transport === Transport.sqs ? 'putSqs' : 'putHttp'];
  const invoke = async <E>(
    handler: (event: E, context: Context) => Promise<unknown>,
    event: E,
  ): Promise<unknown> => {
    const context = contextFor(putFn.memoryMb, putFn.timeoutSeconds, clock.now, workload.transport);
    logger.setLogLevel(putFn.logLevel as 'INFO');
    return captureOutput(m.logs.put, () =>
      timed('put', () => withLogScope(context, () => handler(event, context))),
    );
  };
  let batch: SQSRecord[] = [];
  for (let i = 0; i < total; i++) {
    const atMs = START_MS + (i + 0.5) * spacingMs;
    const shard = `s${String(Math.floor(random() * workload.shards)).padStart(3, '0')}`;
    const messageId = uuidFrom(random);
    clock.schedule(atMs, async () => {
      const putRows: JsonRow[] = rows.take(workload.rowsPerPut);
      const rowsText = putBodyText(putRows);
      m.puts += 1;
      m.rows += putRows.length;
      // The denominator: each row's JSON as the producer sent it (no envelope).
      m.rawBytes += Buffer.byteLength(rowsText) - '{"rows":[]}'.length - (putRows.length - 1);
      if (workload.transport === Transport.http) {
        const event = httpEvent(
          shard,
          rowsText,
          workload.idempotent ? messageId : undefined,
          clock.now(),
        );
        m.requestBytes.push(Buffer.byteLength(rowsText));
        m.putInvocations += 1;
        const result = (await invoke(putHandler, event)) as { statusCode?: number };
        count(m.statuses, String(result.statusCode));
        return;
      }
      const body = JSON.stringify({ shard, rows: putRows });
      m.requestBytes.push(Buffer.byteLength(body));
      batch.push(sqsRecord(messageId, body, clock.now()));
      if (batch.length === deployment.ingestBatchSize || i === total - 1) {
        const event: SQSEvent = { Records: batch };
        batch = [];
        m.putInvocations += 1;
        const response = (await invoke(sqsHandler, event)) as {
          batchItemFailures?: unknown[];
        };
        const failed = response.batchItemFailures?.length ?? 0;
        count(m.statuses, 'ok', event.Records.length - failed);
        if (failed > 0) count(m.statuses, 'failed', failed);
      }
    });
  }

  // Ticks: the real loop on the grid, in rounds when export and verify run between them.
  const tickFn = deployment.functions.flushTick;
  const flushTime = new FlushTimeEstimate();
  // Per run, like the flush time: a process-wide lead would carry one run's ticks into the next.
  const lead = new ClaimLead();
  let invocation: Context | undefined;
  let invocationStartMs = -1;
  const tick = async (slotMs: number) => {
    // One scheduled invocation per minute (`runScheduledTicks`): its ticks share a Lambda context.
    const minute = Math.floor(slotMs / 60_000) * 60_000;
    if (minute !== invocationStartMs) {
      invocationStartMs = minute;
      invocation = contextFor(tickFn.memoryMb, tickFn.timeoutSeconds, clock.now, 'tick');
    }
    const context = invocation!;
    phase = Phase.tick;
    const before = snapshot(meter, Phase.tick);
    const walPutsBefore = s3.tick.wal.putIfAbsent;
    const spillGetsBefore = s3.tick.spill.get;
    const logBytesBefore = m.logs.tick.bytes;
    logger.setLogLevel(tickFn.logLevel as 'INFO');
    const summary = await captureOutput(m.logs.tick, () =>
      timed('tick', () =>
        withLogScope(context, async () => {
          const deps = {
            ...services.tick.tick(context.awsRequestId),
            flushTime,
            // Ticks claim ahead of their slots as deployed (K1 in `claim-lead.ts`), so the
            // second listing is counted. The wait for the slot is not slept: the puts due in it
            // would run inside the tick's meters; they are flushed a tick later instead, which
            // moves no capacity unit.
            slot: {
              atMs: slotMs,
              intervalMs: workload.intervalMs,
              lead,
              sleep: async () => undefined,
            },
            fanOut: async (lists: string[][]) => {
              const shards = lists.flat();
              fannedOut += shards.length;
              workerShards.push(...shards);
            },
          };
          return runLoggedTick(deps);
        }),
      ),
    );
    let batches = 0;
    let walObjects = 0;
    for (const outcome of summary.outcomes) {
      if (outcome.status !== 'flushed') continue;
      batches += outcome.lastSeq - outcome.firstSeq + 1;
      walObjects += 1;
    }
    m.ticks.push({
      activeShards: summary.activeShards,
      batches,
      flushedWalObjects: walObjects,
      units: diff(snapshot(meter, Phase.tick), before),
      s3Puts: s3.tick.wal.putIfAbsent - walPutsBefore,
      s3Gets: s3.tick.spill.get - spillGetsBefore,
      logBytes: m.logs.tick.bytes - logBytesBefore,
    });
    // Fanned-out shards: a flush worker takes them at once (the flush queue's consumer).
    phase = Phase.worker;
    while (workerShards.length > 0) {
      const shard = workerShards.shift()!;
      await flushAndReport(services.worker.flush(`worker-${shard}`), shard);
    }
    phase = Phase.put;
  };
  const workerShards: string[] = [];

  const rounds = plan.jobs ? 3 : 1;
  const runEndMs = START_MS + plan.ticks * workload.intervalMs;
  for (let round = 0; round < rounds; round++) {
    const fromMs = START_MS + Math.floor((round * plan.ticks) / rounds) * workload.intervalMs;
    const untilMs =
      round === rounds - 1
        ? runEndMs + workload.intervalMs // one more tick covers the last interval's puts
        : START_MS + Math.floor(((round + 1) * plan.ticks) / rounds) * workload.intervalMs;
    await runTicksUntil({
      intervalMs: workload.intervalMs,
      fromMs,
      untilMs,
      deadlineMs: Number.POSITIVE_INFINITY,
      now: clock.now,
      sleep: clock.sleep,
      tick,
      leadMs: () => lead.ms(workload.intervalMs),
    });
    await clock.runUntil(Math.min(untilMs, runEndMs));
    if (!plan.jobs) continue;
    if (round === rounds - 1) await runJob(Phase.verify, round);
    await runJob(Phase.export, round);
  }
  if (clock.pending > 0) throw new Error(`${clock.pending} puts were never run`);

  async function runJob(job: 'export' | 'verify', round: number): Promise<void> {
    phase = job;
    const fn = deployment.functions[job === 'export' ? 'export' : 'recover'];
    const context = contextFor(fn.memoryMb, fn.timeoutSeconds, clock.now, job);
    const service = services[job];
    const before = snapshot(meter, job);
    const scanBefore = meter ? meter.totals({ label: job, operation: 'Scan' }).readUnits : 0;
    const s3Before = cloneKinds(s3[job]);
    const bytesBefore = bytes.bytes();
    const table = await tableSize(env.dynamo, tableName);
    const walBytes = bytes.liveBytes().wal;
    const logs = emptyCapture();
    const cpu = process.cpuUsage();
    logger.setLogLevel(fn.logLevel as 'INFO');
    const handler: (event: unknown, ctx: Context) => Promise<unknown> =
      job === 'export'
        ? wrapHandler((event: unknown) =>
            handleExportEvent({ ...exportDeps(service), now: clock.now }, event),
          )
        : wrapHandler((event: unknown, ctx: Context) =>
            handleRecoverEvent(
              { ...recoveryDeps(service, `recovery-${ctx.awsRequestId}`), now: clock.now },
              event,
            ),
          );
    const report = (await captureOutput(logs, () =>
      withLogScope(context, () =>
        handler(
          // What the schedules send (the local stack's builders of the same events).
          job === 'export'
            ? scheduledEvent('Export', context.awsRequestId, clock.now())
            : VERIFY_SCHEDULE_INPUT,
          context,
        ),
      ),
    )) as unknown;
    const used = process.cpuUsage(cpu);
    m.jobs.push({
      phase: job,
      round,
      units: diff(snapshot(meter, job), before),
      s3: subtractKinds(s3[job], s3Before),
      bytes: subtractBytes(bytes.bytes(), bytesBefore),
      cpuMs: (used.user + used.system) / 1000,
      walObjects: walCount(bytes),
      walObjectsNew: newWalObjects(report),
      tableItems: table.items,
      tableBytes: table.bytes,
      scanReadUnits:
        (meter ? meter.totals({ label: job, operation: 'Scan' }).readUnits : 0) - scanBefore,
      walBytes,
      logs,
    });
    phase = Phase.put;
  }

  m.virtualSeconds = (clock.now() - START_MS) / 1000;
  m.bytes = bytes.bytes();
  m.liveBytes = bytes.liveBytes();
  m.flushRequests = flushRequests;
  m.fannedOut = fannedOut;
  if (meter) {
    for (const p of PHASES) m.units[p] = meter.totals({ label: p });
    m.ledger = meter
      .rows()
      .map((row) => ({ phase: row.label, operation: row.operation, counters: row }));
    m.sideReadMismatches = meter.sideReadMismatches;
    const ttl = deployment.table.ttlAttribute ?? 'expiresAt';
    m.storage = await tracker.storage(tableName, ttl, env.ttlDelaySeconds);
  }
  return m;
}

/** The service the functions would build, on the metered table, the instrumented store and the virtual clock. */
export function serviceFor(
  env: BenchEnv,
  table: Table,
  store: ObjectStore,
  clock: VirtualClock,
  workload: Workload,
  onFlushRequest: () => void,
): Service {
  const base = serviceFromEnv({
    ...env.deployment.settings.environment,
    SHARDWAL_FLUSH_INTERVAL_MS: String(workload.intervalMs),
    ...(workload.spillOff ? { SHARDWAL_SPILL_BYTES: 'off' } : {}),
    SHARDWAL_TABLE: table.tableName,
    SHARDWAL_BUCKET: 'cost-bench',
    SHARDWAL_DYNAMODB_ENDPOINT: env.dynamoEndpoint,
    SHARDWAL_STORE_DIR: env.dir,
    AWS_REGION: 'us-east-1',
  });
  // The table as the functions see it: large payloads spill to the same metered store.
  const spilling: Table = { ...table, spill: payloadSpill(base.config, () => store) };
  const flush = (owner?: string) => ({
    ...base.flush(owner),
    table: spilling,
    store,
    now: clock.now,
    // A flush takes no virtual time, so its lease keeper's first renewal (a third of the
    // lease later) never comes, as in AWS where a flush takes tens of ms. Real timers would
    // fire during this machine's slower, metered flushes and bill renewals AWS never sees.
    timers: NO_TIMERS,
  });
  return {
    ...base,
    table: spilling,
    store: () => store,
    put: {
      ...base.put,
      table: spilling,
      now: clock.now,
      // Buffered puts do not wait; a retry backoff passes no virtual time, so no other put runs inside one.
      sleep: async () => undefined,
      requestFlush: async () => {
        onFlushRequest();
      },
    },
    flush,
    tick: (owner?: string) => ({ ...base.tick(owner), flush: flush(owner) }),
  };
}

/** Adds `n` to `into[key]`. */
function count(into: Record<string, number>, key: string, n = 1): void {
  into[key] = (into[key] ?? 0) + n;
}

/** WAL objects in the store (created so far, less those retired). */
function walCount(bytes: ByteMeteredStore): number {
  const b = bytes.bytes();
  return b.wal.created - b.wal.deleted;
}

/** WAL objects an export-all folded (`folded.objects`) or a verify-all checked (`walChecked.objects`). */
function newWalObjects(report: unknown): number {
  const reports = (report as { reports?: unknown[] })?.reports ?? [];
  let objects = 0;
  for (const r of reports) {
    const shard = r as Partial<Pick<ExportReport, 'folded'> & Pick<VerifyReport, 'walChecked'>>;
    objects += shard.folded?.objects ?? shard.walChecked?.objects ?? 0;
  }
  return objects;
}

/** Items in the table and their billed bytes (unmetered: what a Scan by export or verify evaluates). */
async function tableSize(
  client: DynamoDBClient,
  tableName: string,
): Promise<{ items: number; bytes: number }> {
  let items = 0;
  let bytes = 0;
  let startKey: Record<string, never> | undefined;
  do {
    const page = await client.send(
      new ScanCommand({ TableName: tableName, ExclusiveStartKey: startKey }),
    );
    for (const item of page.Items ?? []) {
      items += 1;
      bytes += itemSize(item);
    }
    startKey = page.LastEvaluatedKey as Record<string, never> | undefined;
  } while (startKey);
  return { items, bytes };
}
