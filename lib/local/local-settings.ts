/**
 * Settings of the local stack, from the environment, validated at start with
 * errors naming the setting and its value (like `lib/config.ts`, which still
 * validates the service settings the handlers read).
 *
 * The flush interval follows the deployment's rules (`validateSettings`:
 * under a minute, or whole minutes) and the same tick semantics (the grid
 * ticker, `lib/ticker/ticker.ts`); it defaults to 1000 ms. `off` is rejected
 * (the timer loop *is* the local ticker).
 *
 * The export and verify schedules (EventBridge Scheduler in AWS) are timers
 * here too: a period in milliseconds, or `off`. Zero, negative or fractional
 * periods are rejected naming the setting, like every other setting.
 */
import { SETTINGS, TICKER_OFF, validateSettings } from '../config.js';
import { ConfigError } from '../errors.js';

/** Flush interval of the local stack when none is set. */
const LOCAL_DEFAULT_FLUSH_INTERVAL_MS = 1_000;

/** Environment names and defaults of the local settings. */
export const LOCAL_SETTINGS = {
  port: { env: 'PORT', default: 3_000 },
  dataDir: { env: 'SHARDWAL_DATA_DIR', default: './.shardwal' },
  /** Default: PORT + 1 (ephemeral when PORT is 0). */
  dynamodbPort: { env: 'SHARDWAL_DYNAMODB_PORT' },
  /** Default: PORT + 2 (ephemeral when PORT is 0). */
  sqsPort: { env: 'SHARDWAL_SQS_PORT' },
  flushIntervalMs: { env: SETTINGS.flushIntervalMs.env, default: LOCAL_DEFAULT_FLUSH_INTERVAL_MS },
  logLevel: { env: 'SHARDWAL_LOG_LEVEL', default: 'WARN' },
  /** Period of the export job (`functions/export.ts`); `off` disables it. */
  exportEveryMs: { env: 'SHARDWAL_LOCAL_EXPORT_EVERY_MS', default: 300_000 },
  /** Period of the scheduled verify (`functions/recover.ts`); `off` disables it. */
  verifyEveryMs: { env: 'SHARDWAL_LOCAL_VERIFY_EVERY_MS', default: 3_600_000 },
  /** Period of the TTL sweep (DynamoDB's TTL, which dynalite lacks); `off` disables it. */
  sweepEveryMs: { env: 'SHARDWAL_LOCAL_SWEEP_EVERY_MS', default: 600_000 },
} as const;

/** The value that disables a local schedule. */
const SCHEDULE_OFF = 'off';

/** Log levels the Powertools logger understands. */
const LOG_LEVELS = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR', 'CRITICAL', 'SILENT'] as const;

/** Validated local settings. Ports of 0 mean "any free port". */
export interface LocalSettings {
  port: number;
  dynamodbPort: number;
  sqsPort: number;
  dataDir: string;
  flushIntervalMs: number;
  logLevel: (typeof LOG_LEVELS)[number];
  /** Period of the local export job; undefined when off. */
  exportEveryMs: number | undefined;
  /** Period of the local scheduled verify; undefined when off. */
  verifyEveryMs: number | undefined;
  /** Period of the local TTL sweep; undefined when off. */
  sweepEveryMs: number | undefined;
}

function parsePort(env: string, raw: string | undefined, fallback: () => number): number {
  if (raw === undefined || raw.trim() === '') return fallback();
  const value = Number(raw.trim());
  if (!Number.isInteger(value) || value < 0 || value > 65_535) {
    throw new ConfigError(env, raw, 'expected a port number from 0 to 65535 (0 = any free port)');
  }
  return value;
}

function parseInterval(raw: string | undefined): number {
  const { env, default: fallback } = LOCAL_SETTINGS.flushIntervalMs;
  if (raw === undefined || raw.trim() === '') return fallback;
  if (raw.trim() === TICKER_OFF) {
    throw new ConfigError(env, raw, 'the local stack needs its ticker; expected a flush interval');
  }
  // The deployment's rules, so what runs locally deploys and the other way round.
  return validateSettings({ flushIntervalMs: raw }).flushIntervalMs!;
}

function parseEvery(
  setting:
    | typeof LOCAL_SETTINGS.exportEveryMs
    | typeof LOCAL_SETTINGS.verifyEveryMs
    | typeof LOCAL_SETTINGS.sweepEveryMs,
  raw: string | undefined,
): number | undefined {
  if (raw === undefined || raw.trim() === '') return setting.default;
  if (raw.trim() === SCHEDULE_OFF) return undefined;
  const value = Number(raw.trim());
  if (!Number.isInteger(value) || value < 1) {
    throw new ConfigError(
      setting.env,
      raw,
      `expected a whole number of milliseconds of at least 1, or ${SCHEDULE_OFF}`,
    );
  }
  return value;
}

function parseLogLevel(raw: string | undefined): LocalSettings['logLevel'] {
  const { env, default: fallback } = LOCAL_SETTINGS.logLevel;
  if (raw === undefined || raw.trim() === '') return fallback;
  const level = raw.trim().toUpperCase();
  const known = LOG_LEVELS.find((candidate) => candidate === level);
  if (!known) throw new ConfigError(env, raw, `expected one of ${LOG_LEVELS.join(', ')}`);
  return known;
}

/** Reads and validates the local settings. */
export function localSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): LocalSettings {
  const port = parsePort(LOCAL_SETTINGS.port.env, env.PORT, () => LOCAL_SETTINGS.port.default);
  const sibling = (offset: number, name: string) => () => {
    if (port === 0) return 0;
    if (port + offset > 65_535) {
      throw new ConfigError(name, undefined, `defaults to PORT+${offset}, past 65535; set it`);
    }
    return port + offset;
  };
  const dynamodbEnv = LOCAL_SETTINGS.dynamodbPort.env;
  const sqsEnv = LOCAL_SETTINGS.sqsPort.env;
  return {
    port,
    dynamodbPort: parsePort(dynamodbEnv, env[dynamodbEnv], sibling(1, dynamodbEnv)),
    sqsPort: parsePort(sqsEnv, env[sqsEnv], sibling(2, sqsEnv)),
    dataDir: env[LOCAL_SETTINGS.dataDir.env] || LOCAL_SETTINGS.dataDir.default,
    flushIntervalMs: parseInterval(env[LOCAL_SETTINGS.flushIntervalMs.env]),
    logLevel: parseLogLevel(env[LOCAL_SETTINGS.logLevel.env]),
    exportEveryMs: parseEvery(LOCAL_SETTINGS.exportEveryMs, env[LOCAL_SETTINGS.exportEveryMs.env]),
    verifyEveryMs: parseEvery(LOCAL_SETTINGS.verifyEveryMs, env[LOCAL_SETTINGS.verifyEveryMs.env]),
    sweepEveryMs: parseEvery(LOCAL_SETTINGS.sweepEveryMs, env[LOCAL_SETTINGS.sweepEveryMs.env]),
  };
}
