/**
 * Runs one simulated schedule end to end: the real put path (HTTP and SQS
 * handlers), the real ticker tick over the pending index, flushers started by
 * size triggers, exports with retention, verifies with heals and rebuilds,
 * all on the world's scheduler with faults at the DynamoDB layer (throttles,
 * 500s, lost responses, with the SDK's retries), at the object store (failures,
 * lost acks) and in the actors (kills at any request, stalls that make
 * zombies, clock skew). Then faults stop, producers finish their retries,
 * ticks drain the shards, and the checker judges the history.
 */
import {
  type AttributeValue,
  type DynamoDBClient,
  PutItemCommand,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import type { APIGatewayProxyEventV2, SQSRecord } from 'aws-lambda';
import { type ShardwalConfig, validateSettings } from '../../lib/config.js';
import { ErrorKind, ShardwalError } from '../../lib/errors.js';
import { exportDeadlineMs } from '../../lib/export/deadline.js';
import { type ExportDeps, ExportFaultPoint } from '../../lib/export/deps.js';
import { exportShard } from '../../lib/export/export-shard.js';
import { historyKeptFrom } from '../../lib/export/retention-cursor.js';
import type { LeaseTimers } from '../../lib/fence/lease-keeper.js';
import { type FlushDeps, flushSettings, flushShard } from '../../lib/flush/flush-shard.js';
import { handlePut } from '../../lib/http/put-route.js';
import { itemLifetimes, voidLifetimeMs } from '../../lib/liveness.js';
import { ensureTable } from '../../lib/memtable/create-table.js';
import type { Table } from '../../lib/memtable/table.js';
import { logger } from '../../lib/observability/telemetry.js';
import { CommitDelayEstimate } from '../../lib/put/durable-wait.js';
import type { PutDeps } from '../../lib/put/put-rows.js';
import type { RecoveryDeps } from '../../lib/recovery/deps.js';
import { HealKind } from '../../lib/recovery/findings.js';
import { rebuildShard } from '../../lib/recovery/rebuild.js';
import { verifyShard } from '../../lib/recovery/verify.js';
import { verifyAll } from '../../lib/recovery/verify-all.js';
import { seededRandom } from '../../lib/seeded-random.js';
import { putMessage } from '../../lib/sqs/put-messages.js';
import { FaultyObjectStore } from '../../lib/store/faulty-store.js';
import { MemoryObjectStore } from '../../lib/store/memory-store.js';
import { tableHold } from '../../lib/table/floor.js';
import { ClaimLead } from '../../lib/ticker/claim-lead.js';
import { runTick } from '../../lib/ticker/tick.js';
import { FlushTimeEstimate } from '../../lib/ticker/tick-plan.js';
import { FaultyDynamoClient } from '../support/sim-dynamodb/faulty-dynamo-client.js';
import { MemoryDynamoDB } from '../support/sim-dynamodb/memory-dynamodb.js';
import { SwitchableStore } from '../support/stepped-flusher.js';
import {
  AGE_MARGIN_MS,
  type CheckInput,
  checkBuffered,
  finalChecks,
  peekRecord,
  rawRecord,
} from './checker.js';
import { simClient } from './client-transport.js';
import { FifoQueue } from './fifo-queue.js';
import { type AttemptOutcome, History } from './history.js';
import {
  checkWrittenManifest,
  type ReaderRun,
  runReader,
  validManifests,
} from './lifecycle-checks.js';
import { CreatedObjects, RecordingStore, SimStore } from './sim-store.js';
import { commitTables, maintainTables, simTables } from './sim-tables.js';
import {
  heldExportFor,
  type Intent,
  intentsFor,
  restoreTimes,
  type ScheduleParams,
} from './workload.js';
import { type ActorKind, CLOCK_ORIGIN_MS, makeZlibSynchronous, World } from './world.js';

/** The outcome of one schedule. */
export interface ScheduleResult {
  params: ScheduleParams;
  violations: string[];
  trace: string[];
  stats: {
    steps: number;
    virtualMs: number;
    attempts: number;
    acks: number;
    kills: number;
    /** How often issue 20's areas did something, so a check over them is never vacuous. */
    lifecycle: LifecycleCounts;
  };
}

/** Events of issue 20's areas in one schedule. */
export interface LifecycleCounts {
  /** Pending items the scheduled verify renewed. */
  renewals: number;
  /** Puts refused by the stall refusal. */
  stallRefusals: number;
  /** Exports retired and orphans swept by retention. */
  retired: number;
  orphansSwept: number;
  /** FIFO messages failed back to the queue (their own failure or their group's). */
  fifoHeldBack: number;
  /** Rows yielded by tail readers run during the schedule. */
  readerRows: number;
  /** Items (flushed batches, voids, idempotency records) the TTL sweeper deleted. */
  expiredItems: number;
  /** Shard records restored from a backup behind S3, and batches rebuild quarantined after it. */
  restores: number;
  quarantined: number;
  /** Table appends committed, table segments exports listed, table files maintenance deleted, rows history retention removed from tables (V16). */
  tableCommits: number;
  tableSegments: number;
  tableFilesDeleted: number;
  tableRowsRetired: number;
}

const TABLE = 'sim';
const INTERVAL_MS = 1_000;
const MAX_ATTEMPTS = 8;
const MAX_STEPS = 400_000;

/** Idempotency window of `expiry` schedules: batch items then live ~10.6 s (L5). */
const EXPIRY_IDEMPOTENCY_TTL_MS = 6_000;
/** How often the scheduled verify runs in `expiry` schedules (well under half the batch lifetime). */
const KEEPER_INTERVAL_MS = 2_000;

/** The service settings every schedule runs with: short bounds, small objects, a tight buffer. */
function simConfig(params?: Pick<ScheduleParams, 'expiry'>): ShardwalConfig {
  return validateSettings({
    flushIntervalMs: INTERVAL_MS,
    putDeadlineMs: 2_000,
    clockSkewMs: 200,
    leaseMs: 3_000,
    durableWaitMs: 2_500,
    durablePollMs: 100,
    maxWalObjectBytes: 3_000,
    maxBufferedBytes: 600_000,
    flushTriggerBytes: 4_000,
    idempotencyTtlMs: params?.expiry ? EXPIRY_IDEMPOTENCY_TTL_MS : 600_000,
    walRetentionMs: 1_500,
  });
}

/** Timers that never fire: lease renewal is liveness only, and its lapse makes more zombies. */
const NO_TIMERS: LeaseTimers = { setTimeout: () => undefined, clearTimeout: () => undefined };

const EXPECTED_KINDS = new Set<string>([
  ErrorKind.unavailable,
  ErrorKind.fenced,
  ErrorKind.poisoned,
  ErrorKind.notFound,
  ErrorKind.backpressure,
  ErrorKind.inProgress,
]);

/** Runs `params` and checks it. */
export async function runSchedule(
  params: ScheduleParams,
  traceLimit = 3_000,
): Promise<ScheduleResult> {
  makeZlibSynchronous();
  logger.setLogLevel('SILENT');
  const world = new World(
    params.seed,
    {
      maxLatencyMs: 40,
      stallProbability: params.actorFaults ? 0.006 : 0,
      maxStallMs: 6_000,
      killProbability: params.actorFaults ? 0.006 : 0,
      faultyKinds: new Set<ActorKind>([
        'put',
        'flush',
        'tick',
        'export',
        'verify',
        'rebuild',
        'table',
      ]),
    },
    traceLimit,
  );
  const random = seededRandom(params.seed ^ 0x27d4eb2f);
  const config = simConfig(params);
  // Its own stream, so the draws of schedules without issue 20's areas stay what they were.
  const lifecycleRandom = seededRandom(params.seed ^ 0x2545f491);
  const lifetimes = itemLifetimes(config);
  const shards = Array.from({ length: params.shards }, (_, i) => `s${i}`);
  const intents = intentsFor(params);
  const history = new History(intents);

  const db = new MemoryDynamoDB({
    beforeApply: (_command, info) => world.park(`ddb ${info.operation}`),
    afterApply: (command, info) => {
      noteAllocation(history, command, info.output, lifetimes.batchMs, world.now);
      return world.park(`ddb ${info.operation}-done`, 0);
    },
    maxPageItems: 5,
  });
  const dynamo = new FaultyDynamoClient(db, {
    random: seededRandom(params.seed ^ 0x165667b1),
    faults: params.dynamoFaults
      ? { throttle: 0.02, internalError: 0.015, lostResponse: 0.025 }
      : {},
    sleep: world.sleep,
  });
  // As the service builds it (`lib/runtime/service.ts`): item lifetimes from the settings.
  const table: Table = {
    client: dynamo as unknown as DynamoDBClient,
    tableName: TABLE,
    lifetimes,
  };
  await ensureTable({ client: db as unknown as DynamoDBClient, tableName: TABLE });
  // TTL as the deployed table has it (`TABLE_LAYOUT.ttlAttribute`), swept at every check
  // (`advanceTo`): an item whose TTL passed is gone, as DynamoDB may delete it at that moment.
  await db.send(
    new UpdateTimeToLiveCommand({
      TableName: TABLE,
      TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
    }),
  );

  const created = new CreatedObjects();
  const memory = new MemoryObjectStore();
  const recording = new RecordingStore(memory, created);
  const faultyStore = new FaultyObjectStore(recording, {
    random: seededRandom(params.seed ^ 0x3c6ef372),
    failProbability: { putIfAbsent: 0.04, get: 0.04, getStream: 0.02, list: 0.02, delete: 0.02 },
    lostAckProbability: 0.04,
  });
  const switchable = new SwitchableStore(params.storeFaults ? faultyStore : recording);
  const store = new SimStore(world, switchable);
  if (params.spillBytes !== undefined) {
    table.spill = { store: () => store, thresholdBytes: params.spillBytes };
  }
  const exportRetentionMs = params.retention ? lifecycleRandom() * 3_000 : undefined;
  const historyRetentionMs = params.retention ? Math.floor(lifecycleRandom() * 4_000) : 0;
  const readers: ReaderRun[] = [];
  const counts: LifecycleCounts = {
    renewals: 0,
    stallRefusals: 0,
    retired: 0,
    orphansSwept: 0,
    fifoHeldBack: 0,
    readerRows: 0,
    expiredItems: 0,
    restores: 0,
    quarantined: 0,
    tableCommits: 0,
    tableSegments: 0,
    tableFilesDeleted: 0,
    tableRowsRetired: 0,
  };
  /** Counts what an export's retention did, and checks the manifest it wrote (V14). */
  const countRetention = async (report: Awaited<ReturnType<typeof exportShard>>) => {
    counts.retired += report.retention?.retired.length ?? 0;
    counts.tableSegments += report.writes?.tableSegments ?? 0;
    counts.orphansSwept +=
      (report.retention?.orphans.parts ?? 0) + (report.retention?.orphans.segments ?? 0);
    if (report.key === null || (report.status !== 'exported' && report.status !== 'adopted'))
      return;
    const young = (createdAtMs: number) =>
      createdAtMs > check.clockNow() - check.exportRetentionMs + AGE_MARGIN_MS;
    await world.outside(() =>
      checkWrittenManifest(memory, report.shard, report.key!, young, (text) =>
        history.violation(world.now, text),
      ),
    );
  };
  const damagedKeys = new Set<string>();
  const check: CheckInput = {
    history,
    db,
    tableName: TABLE,
    created,
    store: memory,
    shards,
    exportRetentionMs: exportRetentionMs ?? config.walRetentionMs,
    clockNow: () => CLOCK_ORIGIN_MS + world.now,
    expiry: params.expiry,
    readers,
    damagedKeys,
    restored: new Map(),
    voidsSeen: new Map(),
  };

  const skew = () => Math.round((random() - 0.5) * config.clockSkewMs);
  let owners = 0;
  let kills = 0;
  const flushDeps = (owner: string): FlushDeps => ({
    table,
    store,
    owner,
    ...flushSettings(config),
    now: world.clock,
    timers: NO_TIMERS,
  });
  const background = (name: string, kind: ActorKind, work: () => Promise<unknown>) => {
    const spawned = world.spawn(name, kind, skew(), work);
    spawned.promise.catch((error: unknown) => {
      if (error instanceof ShardwalError && EXPECTED_KINDS.has(error.kind)) return;
      history.violation(
        world.now,
        `${name} threw ${(error as Error).name}: ${(error as Error).message}`,
      );
    });
    return spawned;
  };
  // A stopped ticker (flushOutage): from a moment in the run, longer than a batch item lives.
  const outageRandom = seededRandom(params.seed ^ 0x1b873593);
  const outageFrom =
    params.expiry && params.flushOutage
      ? Math.floor(outageRandom() * params.spanMs)
      : Number.POSITIVE_INFINITY;
  const outageTo = outageFrom + lifetimes.batchMs + 1_500;
  const inOutage = () => world.now >= outageFrom && world.now < outageTo;
  // A record restore (recordRestore): a backup of the busiest shard's record, restored over it
  // once the batch items the backup saw pending or allocated next have expired.
  const restoreRandom = seededRandom(params.seed ^ 0x5bd1e995);
  const restore =
    params.expiry && params.recordRestore
      ? {
          shard: shards[0]!,
          ...restoreTimes(params),
          /** The operator's recovery comes this long after the restore. */
          recoverAfterMs: 500 + Math.floor(restoreRandom() * 2_000),
          backup: undefined as Record<string, AttributeValue> | undefined,
          state: 'planned' as 'planned' | 'backed-up' | 'restored',
          /** When the record was restored. */
          restoredAtMs: undefined as number | undefined,
        }
      : undefined;
  let operatorRebuilds = 0;
  /** The operator's rebuild ran to its end (a rebuild that threw or stopped is run again). */
  let operatorDone = false;
  /** The restore's steps when due, and the operator's rebuild of the shard it poisoned. */
  const stepRestore = async () => {
    if (!restore) return;
    if (restore.state === 'planned' && world.now >= restore.backupAt) {
      restore.backup = await world.outside(() => rawRecord(db, TABLE, restore.shard));
      restore.state = 'backed-up';
      if (!restore.backup) restore.state = 'restored'; // nothing to restore: no record yet
      world.trace.add(world.now, `BACKUP ${restore.shard} record`);
    } else if (restore.state === 'backed-up' && world.now >= restore.restoreAt) {
      await world.outside(() =>
        db.send(new PutItemCommand({ TableName: TABLE, Item: restore.backup! })),
      );
      restore.state = 'restored';
      restore.restoredAtMs = world.now;
      check.restored.set(restore.shard, { phase: 'behind' });
      counts.restores += 1;
      world.trace.add(world.now, `RESTORE ${restore.shard} record from the backup`);
    } else if (
      restore.state === 'restored' &&
      world.now >= restore.restoreAt + restore.recoverAfterMs &&
      world.live('rebuild').length === 0
    ) {
      // The operator who restored the table runs recovery on it until it completes (as one
      // would re-run a `shardwal recover` that failed or was killed), and again on a divergence
      // a flush finds later (a poison other than a rebuild's own, which a takeover ends).
      const record = await world.outside(() => peekRecord(db, TABLE, restore.shard));
      const divergence = record?.poison && !record.poison.startsWith('recovery: rebuild');
      if (!operatorDone || divergence) {
        const owner = `operator-rebuild-${++operatorRebuilds}`;
        background(owner, 'rebuild', async () => {
          const report = await rebuildShard(recoveryDeps(owner), restore.shard);
          if (report.status !== 'stopped') operatorDone = true;
          if (report.status === 'rebuilt') check.restored.set(restore.shard, { phase: 'rebuilt' });
          counts.quarantined += report.batches?.rejected.length ?? 0;
        });
      }
    }
  };
  // Fresh learned estimates per schedule: a process-wide one would carry one schedule's
  // timing into the next, and a seed would no longer replay alone as it ran in a series.
  const commitDelay = new CommitDelayEstimate(config.durablePollMs);
  const flushTime = new FlushTimeEstimate();
  const putDeps: PutDeps = {
    table,
    config,
    commitDelay,
    now: world.clock,
    sleep: world.sleep,
    requestFlush: async (shard) => {
      if (inOutage()) return; // the flush request is lost with the stopped flushers
      const owner = `trigger-${++owners}`;
      background(owner, 'flush', () => flushShard(flushDeps(owner), shard));
    },
  };
  const recoveryDeps = (owner: string): RecoveryDeps => ({
    table,
    store,
    now: world.clock,
    gapSealMs: config.gapSealMs,
    leaseMs: config.leaseMs,
    voidLifetimeMs: voidLifetimeMs(config),
    owner,
  });
  const exportDeps: ExportDeps = {
    table,
    store,
    now: world.clock,
    walRetentionMs: config.walRetentionMs,
    exportRetentionMs,
    historyRetentionMs,
    clockSkewMs: config.clockSkewMs,
  };
  // Tables (V16), on their own stream so the draws of schedules without them stay what they were.
  const tablesRandom = seededRandom(params.seed ^ 0x4f1bbcdc);
  const tables = params.tables ? simTables(tablesRandom, store, world.clock, shards) : undefined;
  if (tables) {
    exportDeps.tableHold = tableHold(store, tables.config);
    tables.deps.historyKeptFrom = historyKeptFrom(table);
    check.tables = tables;
  }
  // Its own stream, so the draws of a schedule without it stay what they were.
  const slotRandom = seededRandom(params.seed ^ 0x61c88647);
  const claimLead = new ClaimLead();
  const tick = () => {
    const owner = `tick-${++owners}`;
    background(owner, 'tick', () => {
      // K1: claim now, resolve at a slot up to 60 ms on (the lead a real ticker learns).
      const slot = params.claimAhead
        ? {
            atMs: world.clock() + Math.floor(slotRandom() * 60),
            intervalMs: 250,
            sleep: world.sleep,
            lead: claimLead,
          }
        : undefined;
      return runTick({
        flush: flushDeps(owner),
        concurrency: params.claimAhead ? 2 : 1,
        maxShardsPerTick: 1_000,
        flushTime,
        slot,
      });
    });
  };

  // The producers.
  const retryWindowMs = config.idempotencyTtlMs - config.putDeadlineMs - 2 * config.clockSkewMs;
  const fifo = new FifoQueue(world, history, putDeps, () => {
    kills += 1;
  });
  const clients: Array<Promise<void>> = [];
  /** Records one request of `intent` and checks its answer: no 5xx but unavailable or poisoned. */
  const recordAttempt = (
    intent: Intent,
    attempt: number,
    startedAt: number,
    outcome: AttemptOutcome,
  ) => {
    if (outcome.kind === 'crashed') kills += 1;
    if (outcome.kind === 'error' && outcome.message.includes('have not been flushed')) {
      counts.stallRefusals += 1;
    }
    if (outcome.kind === 'error' && (outcome.status >= 500 || outcome.errorKind === 'internal')) {
      if (outcome.errorKind !== ErrorKind.unavailable && outcome.errorKind !== ErrorKind.poisoned) {
        history.violation(
          world.now,
          `put ${intent.id}.${attempt}: ${outcome.status} ${outcome.errorKind}: ${outcome.message}`,
        );
      }
    }
    history.attempts.push({ intent: intent.id, attempt, startedAt, endedAt: world.now, outcome });
    world.trace.add(world.now, `put ${intent.id}.${attempt} → ${describe(outcome)}`);
  };
  // Its own stream, so the draws of schedules without it stay what they were.
  const clientRandom = seededRandom(params.seed ^ 0x7f4a7c15);
  /** A producer using `lib/client`: its own retries, one Idempotency-Key for all of them. */
  const libraryClient = (intent: Intent) => {
    const spawned = world.spawn(`client-${intent.id}`, 'client', 0, async () => {
      let attempt = 0;
      const api = simClient({
        world,
        deps: putDeps,
        name: `put-${intent.id}`,
        skew,
        random: clientRandom,
        // A producer retries within the idempotency window, or a retry is a new put.
        maxElapsedMs: params.expiry ? retryWindowMs : 60_000,
        onRequest: (outcome, startedAt) => recordAttempt(intent, ++attempt, startedAt, outcome),
      });
      const rowTexts = intent.rows.map((row) => JSON.stringify(row));
      const options = {
        key: intent.idempotencyKey,
        keyField: intent.keyField,
        durable: intent.durable,
      };
      const startedAt = world.now;
      const ack = await api.putRowTexts(intent.shard, rowTexts, options).catch(() => undefined);
      if (ack?.durable) await checkDurableAck(intent, ack.seq, startedAt);
    });
    clients.push(spawned.promise);
  };
  const client = (intent: Intent) => {
    if (params.viaClient && intent.transport === 'http' && intent.idempotencyKey) {
      libraryClient(intent);
      return;
    }
    const spawned = world.spawn(`client-${intent.id}`, 'client', 0, async () => {
      const firstAt = world.now;
      for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
        const startedAt = world.now;
        // A producer retries within the idempotency window, or a retry is a new put.
        if (attempt > 1 && startedAt - firstAt > retryWindowMs) return;
        const proc = world.spawn(`put-${intent.id}.${attempt}`, 'put', skew(), () =>
          attemptPut(intent, putDeps),
        );
        const outcome: AttemptOutcome = await Promise.race([
          proc.promise,
          proc.actor.died.then((): AttemptOutcome => ({ kind: 'crashed' })),
        ]);
        recordAttempt(intent, attempt, startedAt, outcome);
        if (outcome.kind === 'ack') {
          if (outcome.durable) await checkDurableAck(intent, outcome.seq, startedAt);
          return;
        }
        if (!retryable(intent, outcome)) return;
        await world.sleep(200 + Math.floor(random() * 1_300));
      }
    });
    clients.push(spawned.promise);
  };
  const checkDurableAck = async (intent: Intent, seq: number | undefined, startedAt: number) => {
    // A restore of the shard while the put waited rolled the record back below what its waiter
    // read as durable (seed 23012396): the record now says nothing of that read, and the
    // end-of-run checks hold the put to it (in the WAL, never quarantined).
    const restoredAt = restore?.shard === intent.shard ? restore.restoredAtMs : undefined;
    if (restoredAt !== undefined && restoredAt >= startedAt) return;
    const record = await world.outside(() => peekRecord(db, TABLE, intent.shard));
    if (seq === undefined || !record || record.durableSeq < seq) {
      history.violation(
        world.now,
        `put ${intent.id}: acked durable:true at seq ${seq} while durableSeq is ${record?.durableSeq}`,
      );
    }
  };

  // The schedule of events: arrivals, ticks, exports, verifies, rebuilds.
  const events: Array<{ at: number; fire: () => void }> = intents.map((intent) => ({
    at: intent.arriveAt,
    fire: () => (intent.transport === 'fifo' ? fifo.send(intent) : client(intent)),
  }));
  const pickShard = () => shards[Math.floor(random() * shards.length)]!;
  const at = () => Math.floor(random() * (params.spanMs + 3_000));
  const corrupted = new Set<string>();
  for (let i = 0; i < params.exports; i++) {
    const shard = pickShard();
    const damage = params.storeFaults && random() < 0.2;
    events.push({
      at: at(),
      fire: () =>
        background(`export-${i}`, 'export', async () => {
          const report = await exportShard(exportDeps, shard);
          await countRetention(report);
          // A bad export (bit rot, an older writer's bug): readers must pass over it (T1).
          if (damage && report.status === 'exported' && report.key && !corrupted.has(shard)) {
            corrupted.add(shard);
            await world.outside(() => damageObject(memory, report.key!));
            damagedKeys.add(report.key);
            world.trace.add(world.now, `DAMAGE ${report.key}`);
          }
        }),
    });
  }
  if (tables) {
    /** `count` runs of `work` named `name-i`, at times drawn over `windowMs`. */
    const tableRuns = (
      name: string,
      count: number,
      windowMs: number,
      work: () => Promise<void>,
    ) => {
      for (let i = 0; i < count; i++) {
        events.push({
          at: Math.floor(tablesRandom() * windowMs),
          fire: () => background(`${name}-${i}`, 'table', work),
        });
      }
    };
    tableRuns('table', 2 + Math.floor(tablesRandom() * 6), params.spanMs + 3_000, async () => {
      counts.tableCommits += await commitTables(tables);
    });
    tableRuns('maintain', 1 + Math.floor(tablesRandom() * 3), params.spanMs + 6_000, async () => {
      const maintained = await maintainTables(tables);
      counts.tableFilesDeleted += maintained.deleted;
      counts.tableRowsRetired += maintained.retired;
    });
  }
  for (let i = 0; i < params.verifies; i++) {
    const shard = pickShard();
    events.push({
      at: at(),
      fire: () =>
        background(`verify-${i}`, 'verify', () => verifyShard(recoveryDeps(`verify-${i}`), shard)),
    });
  }
  for (let i = 0; i < params.rebuilds; i++) {
    const shard = pickShard();
    events.push({
      at: at(),
      fire: () =>
        background(`rebuild-${i}`, 'rebuild', () =>
          rebuildShard(recoveryDeps(`rebuild-${i}`), shard),
        ),
    });
  }
  // Issue 20's areas: more exports racing under short retention, tail readers, the scheduled verify.
  const extraExports = params.retention ? 3 + Math.floor(lifecycleRandom() * 5) : 0;
  const retentionShards = shards.slice(0, 1 + Math.floor(lifecycleRandom() * shards.length));
  for (let i = 0; i < extraExports; i++) {
    const shard = retentionShards[Math.floor(lifecycleRandom() * retentionShards.length)]!;
    const name = `export-r${i}`;
    events.push({
      at: Math.floor(lifecycleRandom() * (params.spanMs + 3_000)),
      fire: () =>
        background(name, 'export', async () =>
          countRetention(await exportShard(exportDeps, shard)),
        ),
    });
  }
  // D4 (`lib/export/deadline.ts`): an export held at a fault point, for up to most of its
  // deadline, while two more exports of its shard complete with their retention, each once a
  // put (`heldExportFor`) made the WAL grow past the export before it.
  const held = heldExportFor(params);
  if (held) {
    const { shard, startAt } = held;
    const deadlineMs = exportDeadlineMs(exportDeps);
    const record = () => world.outside(() => peekRecord(db, TABLE, shard));
    /** Flushes until the WAL is past `position` (or the clock reaches `untilMs`). */
    const flushPast = async (name: string, position: number, untilMs: number) => {
      await flushShard(flushDeps(name), shard);
      while (((await record())?.walNextPos ?? 0) <= position && world.clock() < untilMs) {
        await world.sleep(50);
        await flushShard(flushDeps(name), shard);
      }
    };
    /** `flushPast`, then an export. */
    const exportPast = async (name: string, position: number, untilMs: number) => {
      await flushPast(name, position, untilMs);
      const report = await exportShard(exportDeps, shard);
      await countRetention(report);
      return report;
    };
    // Its base: an export 3,150 ms before it (older than any export retention the run draws).
    events.push({
      at: startAt - 3_150,
      fire: () =>
        background('export-before-held', 'export', async () => {
          const exported = (await record())?.aofWatermark ?? 0;
          await exportPast('export-before-held', exported, world.clock() + 500);
        }),
    });
    events.push({
      at: startAt,
      fire: () =>
        background('export-held', 'export', async () => {
          const exported = (await record())?.aofWatermark ?? 0;
          await flushPast('export-held', exported, world.clock() + 500);
          const target = (await record())?.walNextPos ?? 0;
          const resumeAt = world.clock() + Math.floor(0.95 * deadlineMs);
          const hold: ExportDeps['faults'] = async (point) => {
            if (point !== ExportFaultPoint.afterArchive) return;
            const later = background('export-past-held', 'export', async () => {
              const second = await exportPast('export-past-held', target, resumeAt);
              await exportPast('export-past-held', second.coveredPosition ?? target, resumeAt);
            });
            await Promise.race([
              later.promise.catch(() => undefined),
              world.sleep(resumeAt - world.clock()),
            ]);
          };
          await countRetention(await exportShard({ ...exportDeps, faults: hold }, shard));
        }),
    });
  }
  for (let i = 0; i < params.readers; i++) {
    const shard = shards[Math.floor(lifecycleRandom() * shards.length)]!;
    const pick = lifecycleRandom();
    events.push({
      at: Math.floor(lifecycleRandom() * (params.spanMs + 3_000)),
      fire: () => void startReader(`reader-${i}`, shard, pick),
    });
  }
  events.sort((a, b) => a.at - b.at);
  let keepers = 0;
  /**
   * The scheduled verify: the product's `verifyAll` over the registry, so one shard that fails
   * (or that the registry lists before its first batch) never keeps the others from their heals,
   * the expiry extension included.
   */
  const scheduledVerify = () => {
    const owner = `keeper-${++keepers}`;
    background(owner, 'keeper', async () => {
      const report = await verifyAll(recoveryDeps(owner));
      for (const shard of report.reports) {
        for (const heal of shard.heals) {
          if (heal.kind === HealKind.pendingExpiryExtended) counts.renewals += 1;
        }
      }
    });
  };
  /** A tail reader from a seq at or near the newest export's boundary (or seq 1). */
  const startReader = async (name: string, shard: string, pick: number) => {
    const manifests = await world.outside(() => validManifests(memory, shard));
    const boundary = manifests.at(-1)?.header.lastSeq ?? 0;
    const from = Math.max(1, pick < 0.2 ? 1 : boundary + Math.floor(pick * 5) - 2);
    const run: ReaderRun = { name, shard, from, rows: [], error: undefined };
    readers.push(run);
    world.spawn(name, 'reader', 0, () =>
      runReader(store, run, { now: world.clock, sleep: world.sleep }),
    );
  };

  let nextTick = INTERVAL_MS;
  let nextKeeper = KEEPER_INTERVAL_MS;
  let sinceCheck = 0;
  /** Runs the world up to virtual time `until`, ticking on the grid and firing due events. */
  const advanceTo = async (until: number) => {
    while (world.now < until && world.steps < MAX_STEPS) {
      const nextEvent = Math.min(
        events[0]?.at ?? Number.POSITIVE_INFINITY,
        nextTick,
        params.expiry ? nextKeeper : Number.POSITIVE_INFINITY,
        restore?.state === 'planned'
          ? restore.backupAt
          : restore?.state === 'backed-up'
            ? restore.restoreAt
            : Number.POSITIVE_INFINITY,
        until,
      );
      if (!(await world.step(nextEvent))) world.now = Math.max(world.now, nextEvent);
      if (++sinceCheck >= 25) {
        sinceCheck = 0;
        await world.outside(() => checkBuffered(check, world.now));
        counts.expiredItems += db.expireTtl(TABLE, Math.floor(check.clockNow() / 1000));
      }
      while (events[0] && events[0].at <= world.now) events.shift()!.fire();
      fifo.poll();
      if (params.expiry && nextKeeper <= world.now) {
        scheduledVerify();
        nextKeeper = world.now + KEEPER_INTERVAL_MS;
      }
      if (restore && (restore.state !== 'restored' || nextTick <= world.now)) await stepRestore();
      if (nextTick <= world.now) {
        if (!inOutage()) tick();
        nextTick = (Math.floor(world.now / INTERVAL_MS) + 1) * INTERVAL_MS;
      }
    }
  };

  // 1. Faults on, until every producer arrived and a little after.
  await advanceTo(Math.max(params.spanMs, ...intents.map((i) => i.arriveAt)) + 3_000);
  while (events.length > 0) events.shift()!.fire();
  // 2. Faults off; producers finish their retries; the operator re-runs an interrupted rebuild.
  world.faultsOn = false;
  dynamo.faults.enabled = false;
  switchable.target = recording;
  let settled = false;
  void Promise.all(clients).then(() => {
    settled = true;
  });
  const drainEnd = world.now + 120_000;
  while (!(settled && fifo.empty) && world.now < drainEnd && world.steps < MAX_STEPS) {
    await advanceTo(world.now + INTERVAL_MS);
    await rerunInterruptedRebuilds();
  }
  if (!settled)
    history.violation(world.now, 'producers did not finish within 120 s after faults stopped');
  if (!fifo.empty)
    history.violation(world.now, 'FIFO messages were still queued 120 s after faults stopped');
  // 3. Liveness: every allocated seq durable within the bound.
  const bound =
    config.leaseMs + config.gapSealMs + config.reservationLeaseMs + 6_000 + 5 * INTERVAL_MS;
  // A restore still to come, and the operator's rebuild after it, are part of the run.
  const restoreDone = restore ? restore.restoreAt + restore.recoverAfterMs : 0;
  const livenessEnd = Math.max(world.now, restoreDone) + bound;
  while (world.now < livenessEnd && world.steps < MAX_STEPS && !(await allDurable())) {
    await advanceTo(world.now + INTERVAL_MS);
    await rerunInterruptedRebuilds();
  }
  await advanceTo(world.now + 2 * INTERVAL_MS); // the last tick clears the pending markers
  while (
    world.live().some((a) => a.kind !== 'tick' && a.kind !== 'keeper') &&
    world.steps < MAX_STEPS
  ) {
    await advanceTo(world.now + INTERVAL_MS);
  }
  if (world.steps >= MAX_STEPS) history.violation(world.now, `gave up after ${MAX_STEPS} steps`);
  await world.outside(() => finalChecks(check, world.now));

  return {
    params,
    violations: history.violations,
    trace: world.trace.lines,
    stats: {
      steps: world.steps,
      virtualMs: world.now,
      attempts: history.attempts.length,
      acks: history.attempts.filter((a) => a.outcome.kind === 'ack').length,
      kills,
      lifecycle: {
        ...counts,
        fifoHeldBack: history.attempts.filter(
          (a) => a.outcome.kind === 'error' && a.outcome.errorKind === 'held-back',
        ).length,
        readerRows: readers.reduce((n, run) => n + run.rows.length, 0),
      },
    },
  };

  async function allDurable(): Promise<boolean> {
    if (restore && (restore.state !== 'restored' || (restore.backup && !operatorDone)))
      return false;
    for (const shard of shards) {
      const record = await world.outside(() => peekRecord(db, TABLE, shard));
      if (record && (record.durableSeq !== record.nextSeq - 1 || record.poison)) return false;
    }
    return true;
  }

  async function rerunInterruptedRebuilds(): Promise<void> {
    if (world.live('rebuild').length > 0) return;
    for (const shard of shards) {
      const record = await world.outside(() => peekRecord(db, TABLE, shard));
      if (record?.poison?.startsWith('recovery: rebuild')) {
        const owner = `rebuild-again-${++owners}`;
        background(owner, 'rebuild', () => rebuildShard(recoveryDeps(owner), shard));
      }
    }
  }
}

/** Flips one byte in the middle of a stored object. */
async function damageObject(store: MemoryObjectStore, key: string): Promise<void> {
  const bytes = await store.get(key);
  if (!bytes) return;
  const damaged = Uint8Array.from(bytes);
  damaged[Math.floor(damaged.length / 2)]! ^= 0xff;
  await store.delete(key);
  await store.putIfAbsent(key, damaged);
}

/** One attempt of `intent` through its transport, as its producer sees the answer. */
async function attemptPut(intent: Intent, deps: PutDeps): Promise<AttemptOutcome> {
  const body: Record<string, unknown> = { rows: intent.rows };
  if (intent.keyField !== undefined) body.key = intent.keyField;
  if (intent.transport === 'sqs') {
    const record = {
      messageId: intent.idempotencyKey!,
      body: JSON.stringify({ shard: intent.shard, ...body }),
      messageAttributes: {},
      attributes: {},
    } as unknown as SQSRecord;
    try {
      await putMessage(deps, record);
      return { kind: 'ack', seq: undefined, durable: false, repeated: false };
    } catch (error) {
      const kind = error instanceof ShardwalError ? error.kind : 'internal';
      return { kind: 'error', status: 0, errorKind: kind, message: (error as Error).message };
    }
  }
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (intent.idempotencyKey) headers['idempotency-key'] = intent.idempotencyKey;
  const event = {
    version: '2.0',
    routeKey: 'POST /v1/shards/{shard}/rows',
    rawPath: `/v1/shards/${intent.shard}/rows`,
    headers,
    body: JSON.stringify(body),
    isBase64Encoded: false,
    pathParameters: { shard: intent.shard },
    queryStringParameters: { durability: intent.durable ? 'durable' : 'buffered' },
  } as unknown as APIGatewayProxyEventV2;
  const response = await handlePut(event, deps);
  const payload = JSON.parse(String(response.body)) as {
    seq?: number;
    durable?: boolean;
    error?: { kind: string; message: string };
  };
  const status = response.statusCode ?? 0;
  if (status === 200 || status === 202) {
    return { kind: 'ack', seq: payload.seq, durable: payload.durable === true, repeated: false };
  }
  return {
    kind: 'error',
    status,
    errorKind: payload.error?.kind ?? 'unknown',
    message: payload.error?.message ?? '',
  };
}

/** Whether a producer retries after `outcome`: only idempotent puts, only when it may help. */
function retryable(intent: Intent, outcome: AttemptOutcome): boolean {
  if (intent.idempotencyKey === undefined) return false;
  if (outcome.kind === 'crashed') return true;
  if (outcome.kind !== 'error') return false;
  return [
    ErrorKind.unavailable,
    ErrorKind.poisoned,
    ErrorKind.backpressure,
    ErrorKind.inProgress,
    ErrorKind.fenced,
  ].includes(outcome.errorKind as never);
}

function describe(outcome: AttemptOutcome): string {
  if (outcome.kind === 'ack') return `ack seq ${outcome.seq}${outcome.durable ? ' durable' : ''}`;
  if (outcome.kind === 'crashed') return 'crashed';
  return `${outcome.status} ${outcome.errorKind}: ${outcome.message.slice(0, 120)}`;
}

/**
 * Records an allocation update that applied (its caller may never learn it), and checks V9:
 * it applied only while the shard's oldest pending batch was younger than half the batch
 * lifetime, by the clock the allocation ran on (`:now`).
 */
function noteAllocation(
  history: History,
  command: unknown,
  output: unknown,
  batchMs: number,
  virtualNow: number,
): void {
  const input = (command as { input?: { UpdateExpression?: string } }).input;
  if (!input?.UpdateExpression?.includes('nextSeq = if_not_exists')) return;
  const attributes = (output as { Attributes?: Record<string, { N?: string; S?: string }> })
    ?.Attributes;
  if (!attributes) return;
  const update = input as {
    Key?: { pk?: { S?: string } };
    ExpressionAttributeValues?: Record<string, { N?: string }>;
  };
  const nowMs = Number(update.ExpressionAttributeValues?.[':now']?.N);
  const pendingSinceMs = Number(attributes.pendingSinceMs?.N);
  if (pendingSinceMs <= nowMs - Math.floor(batchMs / 2)) {
    history.violation(
      virtualNow,
      `${update.Key?.pk?.S}: seq ${Number(attributes.nextSeq?.N) - 1} allocated while batches were pending for ${nowMs - pendingSinceMs} ms, past the stall refusal at half the batch lifetime (${Math.floor(batchMs / 2)} ms)`,
    );
  }
  history.allocated({
    shard: (update.Key?.pk?.S ?? '').replace(/^shard#/, ''),
    seq: Number(attributes.nextSeq?.N) - 1,
    bytes: Number(update.ExpressionAttributeValues?.[':bytes']?.N ?? 0),
    chargeEnd: Number(attributes.chargedBytes?.N ?? 0),
  });
}
