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
  maxRowsPerPut: { env: 'SHARDWAL_MAX_ROWS_PER_PUT', default: 10_000, min: 1 },
  durableWaitMs: { env: 'SHARDWAL_DURABLE_WAIT_MS', default: 0, min: 0 },
  durablePollMs: { env: 'SHARDWAL_DURABLE_POLL_MS', default: 100, min: 1 },
  gapSealMs: { env: 'SHARDWAL_GAP_SEAL_MS', default: 30_000, min: 1 },
  leaseMs: { env: 'SHARDWAL_LEASE_MS', default: 60_000, min: 1 },
  flushConcurrency: { env: 'SHARDWAL_FLUSH_CONCURRENCY', default: 8, min: 1 },
  maxShardsPerTick: { env: 'SHARDWAL_MAX_SHARDS_PER_TICK', default: 64, min: 1 },
  idempotencyTtlMs: { env: 'SHARDWAL_IDEMPOTENCY_TTL_MS', default: 24 * 3600 * 1000, min: 1 },
  walRetentionMs: { env: 'SHARDWAL_WAL_RETENTION_MS', default: 7 * 24 * 3600 * 1000, min: 0 },
} as const;

/** Name of a numeric setting. */
export type SettingName = keyof typeof SETTINGS;

/** The value that switches the ticker off (`SHARDWAL_FLUSH_INTERVAL_MS=off`). */
export const TICKER_OFF = 'off';

/** Environment name of the durable-puts switch (`on` by default, or `off`). */
export const DURABLE_PUTS_ENV = 'SHARDWAL_DURABLE_PUTS';

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
  /** Cap on one request body (413 above). */
  maxBodyBytes: number;
  /** Cap on rows in one put. */
  maxRowsPerPut: number;
  /** How long a durable put waits before answering "not yet durable". */
  durableWaitMs: number;
  /** How often a durable waiter re-reads the shard record. */
  durablePollMs: number;
  /** How long an allocated but unwritten seq stays open before the flusher seals it void. */
  gapSealMs: number;
  /** Flush lease duration. */
  leaseMs: number;
  /** Shards flushed at once by one tick. */
  flushConcurrency: number;
  /** Shards one tick flushes itself before fanning the rest out to workers. */
  maxShardsPerTick: number;
  /** How long an idempotency record answers repeats. */
  idempotencyTtlMs: number;
  /** How long WAL objects below the AOF watermark are kept before retirement. */
  walRetentionMs: number;
}

/** Raw settings as they arrive from the environment or CDK context. */
export type RawSettings = Partial<Record<SettingName, unknown>> & {
  durablePuts?: unknown;
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
  const config: ShardwalConfig = {
    flushIntervalMs,
    durablePuts,
    maxBufferedBytes: num('maxBufferedBytes'),
    flushTriggerBytes: num('flushTriggerBytes'),
    maxWalObjectBytes: num('maxWalObjectBytes'),
    maxBodyBytes: num('maxBodyBytes'),
    maxRowsPerPut: num('maxRowsPerPut'),
    durableWaitMs: num('durableWaitMs'),
    durablePollMs: num('durablePollMs'),
    gapSealMs: num('gapSealMs'),
    leaseMs: num('leaseMs'),
    flushConcurrency: num('flushConcurrency'),
    maxShardsPerTick: num('maxShardsPerTick'),
    idempotencyTtlMs: num('idempotencyTtlMs'),
    walRetentionMs: num('walRetentionMs'),
  };
  if (config.flushTriggerBytes > config.maxBufferedBytes) {
    throw new ConfigError(
      SETTINGS.flushTriggerBytes.env,
      config.flushTriggerBytes,
      `must not exceed ${SETTINGS.maxBufferedBytes.env}=${config.maxBufferedBytes}`,
    );
  }
  const waitGiven = raw.durableWaitMs !== undefined && raw.durableWaitMs !== '';
  if (!waitGiven && flushIntervalMs !== undefined) {
    // Default: long enough for two ticks, short enough for an API Gateway request.
    config.durableWaitMs = Math.min(Math.max(3 * flushIntervalMs, 1_000), 25_000);
  }
  return config;
}

/** Reads and validates the settings from an environment. */
export function configFromEnv(env: NodeJS.ProcessEnv = process.env): ShardwalConfig {
  const raw: RawSettings = { durablePuts: env[DURABLE_PUTS_ENV] };
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
