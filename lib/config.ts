/**
 * Service configuration, validated once at start. Every setting has one
 * environment name; errors name it and the offending value. The CDK stack
 * validates its context with the same `validateSettings`, so a bad value
 * fails `cdk synth` the same way it would fail a cold start.
 */
import { ConfigError } from './errors.js';

/** Tunable settings with their environment names, defaults and lower bounds. */
export const SETTINGS = {
  flushIntervalMs: { env: 'SHARDWAL_FLUSH_INTERVAL_MS', default: 1_000, min: 1 },
  maxBufferedBytes: { env: 'SHARDWAL_MAX_BUFFERED_BYTES', default: 64 * 1024 * 1024, min: 1 },
  flushTriggerBytes: { env: 'SHARDWAL_FLUSH_TRIGGER_BYTES', default: 8 * 1024 * 1024, min: 1 },
  maxWalObjectBytes: { env: 'SHARDWAL_MAX_WAL_OBJECT_BYTES', default: 32 * 1024 * 1024, min: 1 },
  maxBodyBytes: { env: 'SHARDWAL_MAX_BODY_BYTES', default: 1024 * 1024, min: 1 },
  /** Derived when not given: `DECODED_BODY_FACTOR` × the body limit (4 MiB with the default). */
  maxDecodedBodyBytes: {
    env: 'SHARDWAL_MAX_DECODED_BODY_BYTES',
    default: 4 * 1024 * 1024,
    min: 1,
  },
  maxRowsPerPut: { env: 'SHARDWAL_MAX_ROWS_PER_PUT', default: 10_000, min: 1 },
  durableWaitMs: { env: 'SHARDWAL_DURABLE_WAIT_MS', default: 0, min: 0 },
  durablePollMs: { env: 'SHARDWAL_DURABLE_POLL_MS', default: 100, min: 1 },
  /** Derived when not given: put deadline + clock skew (`lib/liveness.ts`). */
  gapSealMs: { env: 'SHARDWAL_GAP_SEAL_MS', default: 0, min: 1 },
  leaseMs: { env: 'SHARDWAL_LEASE_MS', default: 5_000, min: 1 },
  putDeadlineMs: { env: 'SHARDWAL_PUT_DEADLINE_MS', default: 5_000, min: 1 },
  clockSkewMs: { env: 'SHARDWAL_CLOCK_SKEW_MS', default: 1_000, min: 0 },
  /** Derived when not given: put deadline + clock skew (`lib/liveness.ts`). */
  reservationLeaseMs: { env: 'SHARDWAL_RESERVATION_LEASE_MS', default: 0, min: 1 },
  /** Derived per tick when not given: from the interval and the active shards (`lib/ticker/tick-plan.ts`). */
  flushConcurrency: { env: 'SHARDWAL_FLUSH_CONCURRENCY', default: 0, min: 1 },
  /** Derived per tick when not given: from the interval and the active shards (`lib/ticker/tick-plan.ts`). */
  maxShardsPerTick: { env: 'SHARDWAL_MAX_SHARDS_PER_TICK', default: 0, min: 1 },
  /**
   * Flush workers that run at once: the deployed stack reserves this many
   * and caps the flush queue's event source at it (at least 2, SQS's floor),
   * and a tick hands over at most this many lists (P6 in `lib/ticker/tick-plan.ts`).
   */
  flushWorkers: { env: 'SHARDWAL_FLUSH_WORKERS', default: 40, min: 2 },
  idempotencyTtlMs: { env: 'SHARDWAL_IDEMPOTENCY_TTL_MS', default: 24 * 3600 * 1000, min: 1 },
  walRetentionMs: { env: 'SHARDWAL_WAL_RETENTION_MS', default: 7 * 24 * 3600 * 1000, min: 0 },
  exportRetentionMs: {
    env: 'SHARDWAL_EXPORT_RETENTION_MS',
    default: 7 * 24 * 3600 * 1000,
    min: 0,
  },
  /** 0 keeps keyless history (segments) forever. */
  historyRetentionMs: { env: 'SHARDWAL_HISTORY_RETENTION_MS', default: 0, min: 0 },
} as const;

/** Name of a numeric setting. */
export type SettingName = keyof typeof SETTINGS;

/** The value that switches the ticker off (`SHARDWAL_FLUSH_INTERVAL_MS=off`). */
export const TICKER_OFF = 'off';

/** Environment name of the durable-puts switch (`on` by default, or `off`). */
export const DURABLE_PUTS_ENV = 'SHARDWAL_DURABLE_PUTS';

/** How the table's capacity is bought: per request, or provisioned with autoscaling. */
export enum CapacityMode {
  onDemand = 'on-demand',
  provisioned = 'provisioned',
}

/** Environment name of the table's capacity mode (`on-demand` by default). */
export const CAPACITY_MODE_ENV = 'SHARDWAL_CAPACITY_MODE';

/** Environment name of the spill threshold: compressed batch bytes, or `off`. */
export const SPILL_BYTES_ENV = 'SHARDWAL_SPILL_BYTES';

/** The value that keeps every batch in DynamoDB (`SHARDWAL_SPILL_BYTES=off`). */
export const SPILL_OFF = 'off';

/**
 * The spill threshold by capacity mode: the compressed batch size above which
 * an S3 object plus a small pointer item costs less than the item itself.
 *
 * Derivation (the cost benchmark's `bench/cost/spill.ts`, with the dated
 * price table `bench/cost/billing/prices.ts`; `test/bench/cost/spill-default.test.ts`
 * recomputes both values and fails when they drift). For a payload of P
 * compressed bytes and a batch item of P + O bytes (O: its other attributes):
 * - kept in DynamoDB it costs ⌈(P + O) / 1 KB⌉ write units, (P + O) / 4 KB
 *   read units when the flusher reads it, and its storage (table and
 *   point-in-time recovery) for its lifetime (`batchExpiryMs` plus the TTL
 *   delay);
 * - spilled it costs one S3 PUT, one GET, the object's storage for
 *   `SPILL_LIFECYCLE_DAYS` + ½ + `SPILL_NONCURRENT_DAYS`, and the same
 *   DynamoDB costs for a pointer item of O + 178 bytes (the object's key,
 *   length and SHA-256).
 * The write units grow a unit per KB and the S3 side hardly grows, so past a
 * break-even spilling is cheaper for every larger P; the default is that
 * break-even rounded up to a KiB. A provisioned write unit costs less than an
 * on-demand one (priced per unit used at the autoscaling target), so the
 * provisioned break-even is higher. Re-derive both when the prices, the item
 * layout or the lifetimes change.
 */
export const SPILL_BYTES_DEFAULT: Readonly<Record<CapacityMode, number>> = {
  [CapacityMode.onDemand]: 8 * 1024,
  [CapacityMode.provisioned]: 18 * 1024,
};

/** Validated configuration. */
export interface ShardwalConfig {
  /** Flush-interval ticker period; undefined when the ticker is off. */
  flushIntervalMs: number | undefined;
  /** Whether `durability=durable` puts are accepted. */
  durablePuts: boolean;
  /** Per-shard buffered bytes above which puts get 429. */
  maxBufferedBytes: number;
  /** Buffered bytes at which the put path requests a flush before the next tick. */
  flushTriggerBytes: number;
  /** Cap on the batch bytes folded into one WAL object. */
  maxWalObjectBytes: number;
  /** Cap on one request body as sent, compressed or not (413 above). */
  maxBodyBytes: number;
  /** Cap on one request body after its Content-Encoding is undone (413 above; a gzip bomb stops here). */
  maxDecodedBodyBytes: number;
  /** Cap on rows in one put. */
  maxRowsPerPut: number;
  /** How long a durable put waits before answering "not yet durable". */
  durableWaitMs: number;
  /** How often a durable waiter re-reads the shard record. */
  durablePollMs: number;
  /** How long an allocated but unwritten seq stays open before the flusher seals it void. */
  gapSealMs: number;
  /** Flush lease duration; a running flush renews it every third of it. */
  leaseMs: number;
  /** A put writes its batch within this long of its start, or not at all (the liveness bound). */
  putDeadlineMs: number;
  /** Largest clock difference assumed between two processes (put, flusher, recovery). */
  clockSkewMs: number;
  /** How long an idempotency reservation belongs to its put before a retry may take it over. */
  reservationLeaseMs: number;
  /** Shards flushed at once by one tick; undefined: derived per tick (`lib/ticker/tick-plan.ts`). */
  flushConcurrency: number | undefined;
  /** Shards one tick flushes itself before fanning the rest out; undefined: derived per tick. */
  maxShardsPerTick: number | undefined;
  /** Flush workers that run at once, and so the most lists a tick hands over (P6 in `lib/ticker/tick-plan.ts`). */
  flushWorkers: number;
  /** How long an idempotency record answers repeats. */
  idempotencyTtlMs: number;
  /** How long WAL objects below the AOF watermark are kept before retirement. */
  walRetentionMs: number;
  /** How long superseded export manifests and snapshot parts are kept (the newest two always are). */
  exportRetentionMs: number;
  /** How long keyless history (segments) is kept; 0 keeps it forever. */
  historyRetentionMs: number;
  /** How the table's capacity is bought; picks the default spill threshold. */
  capacityMode: CapacityMode;
  /**
   * Batches whose compressed payload is larger than this are written to an
   * immutable S3 object referenced from the batch item (`lib/memtable/spill.ts`);
   * undefined: every batch stays in DynamoDB.
   */
  spillBytes: number | undefined;
}

/** Raw settings as they arrive from the environment or CDK context. */
export type RawSettings = Partial<Record<SettingName, unknown>> & {
  durablePuts?: unknown;
  capacityMode?: unknown;
  spillBytes?: unknown;
};

function parseNumber(name: SettingName, raw: unknown): number {
  const spec = SETTINGS[name];
  if (raw === undefined || raw === '') return spec.default;
  const value =
    typeof raw === 'number' ? raw : typeof raw === 'string' ? Number(raw.trim()) : Number.NaN;
  if (!Number.isInteger(value)) {
    throw new ConfigError(spec.env, raw, 'expected a whole number');
  }
  if (value < spec.min) {
    throw new ConfigError(spec.env, raw, `expected at least ${spec.min}`);
  }
  return value;
}

function parseSwitch(env: string, raw: unknown, fallback: boolean): boolean {
  if (raw === undefined || raw === '') return fallback;
  if (raw === true || raw === 'on' || raw === 'true') return true;
  if (raw === false || raw === 'off' || raw === 'false') return false;
  throw new ConfigError(env, raw, 'expected on or off');
}

function parseCapacityMode(raw: unknown): CapacityMode {
  if (raw === undefined || raw === '') return CapacityMode.onDemand;
  const modes: readonly unknown[] = Object.values(CapacityMode);
  if (modes.includes(raw)) return raw as CapacityMode;
  throw new ConfigError(CAPACITY_MODE_ENV, raw, `expected ${modes.join(' or ')}`);
}

function parseSpillBytes(raw: unknown, mode: CapacityMode): number | undefined {
  if (raw === undefined || raw === '') return SPILL_BYTES_DEFAULT[mode];
  if (raw === SPILL_OFF) return undefined;
  const value =
    typeof raw === 'number' ? raw : typeof raw === 'string' ? Number(raw.trim()) : Number.NaN;
  if (!Number.isInteger(value) || value < 0) {
    throw new ConfigError(SPILL_BYTES_ENV, raw, `expected a whole number of bytes or ${SPILL_OFF}`);
  }
  return value;
}

function parseInterval(raw: unknown): number | undefined {
  const env = SETTINGS.flushIntervalMs.env;
  if (raw === TICKER_OFF) return undefined;
  const value = parseNumber('flushIntervalMs', raw);
  if (value >= 60_000 && value % 60_000 !== 0) {
    throw new ConfigError(
      env,
      raw,
      'intervals of a minute or more must be whole minutes (the schedule runs at minute granularity)',
    );
  }
  return value;
}

/**
 * Validates raw settings. Rejects, naming the setting and value: non-integer
 * or below-minimum numbers (an interval of 0 or less among them), durable puts
 * with the ticker off (they would wait forever), a flush trigger above the
 * buffer limit (the trigger would never fire before backpressure).
 */
export function validateSettings(raw: RawSettings): ShardwalConfig {
  const flushIntervalMs = parseInterval(raw.flushIntervalMs);
  const durablePuts = parseSwitch(DURABLE_PUTS_ENV, raw.durablePuts, true);
  if (durablePuts && flushIntervalMs === undefined) {
    throw new ConfigError(
      DURABLE_PUTS_ENV,
      raw.durablePuts ?? 'on',
      `durable puts need a flush ticker, but ${SETTINGS.flushIntervalMs.env}=${TICKER_OFF}; they would wait forever`,
    );
  }
  const num = (name: SettingName) => parseNumber(name, raw[name]);
  const capacityMode = parseCapacityMode(raw.capacityMode);
  const given = (name: SettingName) => raw[name] !== undefined && raw[name] !== '';
  const config: ShardwalConfig = {
    flushIntervalMs,
    durablePuts,
    maxBufferedBytes: num('maxBufferedBytes'),
    flushTriggerBytes: num('flushTriggerBytes'),
    maxWalObjectBytes: num('maxWalObjectBytes'),
    maxBodyBytes: num('maxBodyBytes'),
    maxDecodedBodyBytes: num('maxDecodedBodyBytes'),
    maxRowsPerPut: num('maxRowsPerPut'),
    durableWaitMs: num('durableWaitMs'),
    durablePollMs: num('durablePollMs'),
    gapSealMs: num('gapSealMs'),
    leaseMs: num('leaseMs'),
    putDeadlineMs: num('putDeadlineMs'),
    clockSkewMs: num('clockSkewMs'),
    reservationLeaseMs: num('reservationLeaseMs'),
    flushConcurrency: given('flushConcurrency') ? num('flushConcurrency') : undefined,
    maxShardsPerTick: given('maxShardsPerTick') ? num('maxShardsPerTick') : undefined,
    flushWorkers: num('flushWorkers'),
    idempotencyTtlMs: num('idempotencyTtlMs'),
    walRetentionMs: num('walRetentionMs'),
    exportRetentionMs: num('exportRetentionMs'),
    historyRetentionMs: num('historyRetentionMs'),
    capacityMode,
    spillBytes: parseSpillBytes(raw.spillBytes, capacityMode),
  };
  if (config.flushTriggerBytes > config.maxBufferedBytes) {
    throw new ConfigError(
      SETTINGS.flushTriggerBytes.env,
      config.flushTriggerBytes,
      `must not exceed ${SETTINGS.maxBufferedBytes.env}=${config.maxBufferedBytes}`,
    );
  }
  applyLivenessBounds(config, given);
  applyDecodedBodyLimit(config, given('maxDecodedBodyBytes'));
  if (!given('durableWaitMs') && flushIntervalMs !== undefined) {
    // Default: long enough for two ticks, short enough for an API Gateway request.
    config.durableWaitMs = Math.min(Math.max(3 * flushIntervalMs, 1_000), 25_000);
  }
  return config;
}

/**
 * Derives the gap seal and the reservation lease from the put deadline when
 * they are not given, and refuses values below it: a put is alive until its
 * deadline, so sealing its seq or handing its reservation to a retry any
 * earlier would turn a working put into an error (see `lib/liveness.ts`).
 */
function applyLivenessBounds(config: ShardwalConfig, given: (name: SettingName) => boolean): void {
  const floor = config.putDeadlineMs + config.clockSkewMs;
  for (const name of ['gapSealMs', 'reservationLeaseMs'] as const) {
    if (!given(name)) {
      config[name] = floor;
    } else if (config[name] < floor) {
      throw new ConfigError(
        SETTINGS[name].env,
        config[name],
        `must be at least ${SETTINGS.putDeadlineMs.env} + ${SETTINGS.clockSkewMs.env} = ${floor}: a put may still write until then`,
      );
    }
  }
}

/** The decoded body limit, when not given, as a multiple of the body limit. */
export const DECODED_BODY_FACTOR = 4;

/**
 * Derives the decoded body limit from the body limit when it is not given,
 * and refuses one below the body limit: an uncompressed body of the allowed
 * size must still fit once "decoded".
 */
function applyDecodedBodyLimit(config: ShardwalConfig, given: boolean): void {
  if (!given) {
    config.maxDecodedBodyBytes = DECODED_BODY_FACTOR * config.maxBodyBytes;
  } else if (config.maxDecodedBodyBytes < config.maxBodyBytes) {
    throw new ConfigError(
      SETTINGS.maxDecodedBodyBytes.env,
      config.maxDecodedBodyBytes,
      `must be at least ${SETTINGS.maxBodyBytes.env}=${config.maxBodyBytes}: an uncompressed body of that size must fit`,
    );
  }
}

/** Reads and validates the settings from an environment. */
export function configFromEnv(env: NodeJS.ProcessEnv = process.env): ShardwalConfig {
  const raw: RawSettings = {
    durablePuts: env[DURABLE_PUTS_ENV],
    capacityMode: env[CAPACITY_MODE_ENV],
    spillBytes: env[SPILL_BYTES_ENV],
  };
  for (const name of Object.keys(SETTINGS) as SettingName[]) {
    raw[name] = env[SETTINGS[name].env];
  }
  return validateSettings(raw);
}

/** Names of the AWS resources a deployed function talks to. */
export interface ResourceNames {
  tableName: string;
  bucketName: string;
  /** Queue for flush requests and tick fan-out; undefined when not wired. */
  flushQueueUrl: string | undefined;
}

/** Environment names of the resource settings. */
export const RESOURCE_ENV = {
  tableName: 'SHARDWAL_TABLE',
  bucketName: 'SHARDWAL_BUCKET',
  flushQueueUrl: 'SHARDWAL_FLUSH_QUEUE_URL',
  /**
   * The ingest queues put-sqs consumes, each paired with the dead-letter
   * queue it sends permanent failures to (read by `lib/sqs/ingest-queues.ts`).
   */
  ingestQueueUrl: 'SHARDWAL_INGEST_QUEUE_URL',
  ingestDlqUrl: 'SHARDWAL_INGEST_DLQ_URL',
  /** The FIFO ingest queue and its (FIFO) dead-letter queue. */
  ingestFifoQueueUrl: 'SHARDWAL_INGEST_FIFO_QUEUE_URL',
  ingestFifoDlqUrl: 'SHARDWAL_INGEST_FIFO_DLQ_URL',
  /** Deployment stage; when set, every metric and log line carries it (`lib/observability/telemetry.ts`). */
  stage: 'SHARDWAL_STAGE',
} as const;

/** Reads resource names from the environment; a missing one is a `ConfigError` naming it. */
export function resourcesFromEnv(env: NodeJS.ProcessEnv = process.env): ResourceNames {
  const required = (name: string): string => {
    const value = env[name];
    if (!value) throw new ConfigError(name, value, 'must be set');
    return value;
  };
  return {
    tableName: required(RESOURCE_ENV.tableName),
    bucketName: required(RESOURCE_ENV.bucketName),
    flushQueueUrl: env[RESOURCE_ENV.flushQueueUrl] || undefined,
  };
}
