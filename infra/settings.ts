/**
 * CDK context → validated deployment settings. The service settings go through
 * the service's own `validateSettings`, so `cdk synth` rejects exactly what a
 * cold start would reject, with the same message (`-c flushIntervalMs=0` fails
 * naming `SHARDWAL_FLUSH_INTERVAL_MS` and `0`). Deployment-only keys (stage,
 * schedules, alarms, concurrency, authorizer, API throttling) are validated
 * here, naming the key. The same rules validate a `ShardwalService`'s typed
 * props (`service-props.ts`), whose errors name the prop instead.
 *
 * The capacity mode and the spill threshold are service settings too, and
 * always reach every function's environment resolved: the table's capacity,
 * the spill grants and the code's own reading of them cannot disagree.
 */

import type { IConstruct } from 'constructs';
import {
  CAPACITY_MODE_ENV,
  DURABLE_PUTS_ENV,
  type RawSettings,
  SETTINGS,
  type SettingName,
  type ShardwalConfig,
  SPILL_BYTES_ENV,
  SPILL_OFF,
  validateSettings,
} from '../lib/config.js';
import { ConfigError } from '../lib/errors.js';
import { planSchedule, type SchedulePlan } from '../lib/ticker/schedule-plan.js';
import {
  CAPACITY_KEYS,
  type CapacityKey,
  capacityFrom,
  type ProvisionedCapacity,
} from './capacity-settings.js';
import { ContextError, type ContextReader, isSet, onOff, wholeNumber } from './context-values.js';
import { type DeployLogLevel, LOG_LEVEL_CONTEXT, logLevelFrom } from './log-settings.js';
import { TABLE_CONTEXT, type TableDeploySettings, tableSettingsFrom } from './table-settings.js';

export { ContextError, type ContextReader, PropError } from './context-values.js';

/** Context keys of the deployment, beside one key per service setting (`SETTINGS`). */
export const DEPLOY_CONTEXT = {
  stage: 'stage',
  durablePuts: 'durablePuts',
  /** `on-demand` (default) or `provisioned`; a service setting (`SHARDWAL_CAPACITY_MODE`). */
  capacityMode: 'capacityMode',
  /** Compressed batch bytes above which a payload spills to S3, or `off`; a service setting. */
  spillBytes: 'spillBytes',
  /** The functions' log level, at most INFO (`log-settings.ts`). */
  logLevel: LOG_LEVEL_CONTEXT,
  exportEveryMinutes: 'exportEveryMinutes',
  verifyEveryMinutes: 'verifyEveryMinutes',
  alarmEmail: 'alarmEmail',
  alarmTopicArn: 'alarmTopicArn',
  reservedConcurrency: 'reservedConcurrency',
  /** Concurrency cap of put-sqs's event source on the standard ingest queue. */
  ingestStandardMaxConcurrency: 'ingestStandardMaxConcurrency',
  /** Concurrency cap of put-sqs's event source on the FIFO ingest queue. */
  ingestFifoMaxConcurrency: 'ingestFifoMaxConcurrency',
  producerAccounts: 'producerAccounts',
  authorizer: 'authorizer',
  jwtIssuer: 'jwtIssuer',
  jwtAudience: 'jwtAudience',
  apiRateLimit: 'apiRateLimit',
  apiBurstLimit: 'apiBurstLimit',
} as const;

/** Defaults of the deployment-only keys. */
const DEPLOY_DEFAULTS = {
  exportEveryMinutes: 15,
  verifyEveryMinutes: 60,
  authorizer: 'iam',
  apiRateLimit: 1_000,
  apiBurstLimit: 2_000,
  reservedConcurrency: true,
  /**
   * Concurrent put-sqs invocations each ingest queue may drive (Lambda caps
   * each event source on its own): bounds DynamoDB load and the share of the
   * account's concurrency. put-sqs runs at most their sum, 50, at once.
   */
  ingestStandardMaxConcurrency: 40,
  ingestFifoMaxConcurrency: 10,
} as const;

/**
 * The key before the cap was per event source. Each of the two sources got
 * the whole value, so put-sqs could run twice what it said; refused with the
 * keys that replace it rather than read with a meaning it never had.
 */
const RETIRED_INGEST_KEY = 'ingestMaxConcurrency';

/** Lambda's bounds on an SQS event source's maximum concurrency. */
const EVENT_SOURCE_MAX_CONCURRENCY = { min: 2, max: 1_000 } as const;

/** A stage name: it becomes part of a stack name and a metric dimension. */
const STAGE_PATTERN = /^[A-Za-z][A-Za-z0-9-]{0,31}$/;

/** A shardwal context key, as distinct from the CDK's own keys (which carry `:`, `@`, `-` or `/`). */
const SHARDWAL_KEY = /^[a-z][a-zA-Z0-9]*$/;

/** API Gateway HTTP APIs cut an integration off at 30 s; a durable wait must end before that. */
const MAX_DURABLE_WAIT_MS = 25_000;

/**
 * Lambda's synchronous invoke payload limit is 6 MB; the HTTP API event
 * envelope (headers, request context) needs room beside the body.
 */
const MAX_HTTP_BODY_BYTES = 6 * 1024 * 1024 - 256 * 1024;

/** How the HTTP API authorizes callers. */
export type ApiAuthorizer =
  | { kind: 'iam' }
  | { kind: 'jwt'; issuer: string; audience: readonly string[] };

/** A context key: a service setting or a deployment key (capacity ranges included). */
type SettingsKey =
  | SettingName
  | (typeof DEPLOY_CONTEXT)[keyof typeof DEPLOY_CONTEXT]
  | CapacityKey
  | (typeof TABLE_CONTEXT)[keyof typeof TABLE_CONTEXT];

/**
 * Settings as a construct user writes them: the context keys of `cdk.json`,
 * with the values `-c key=value` or `cdk.json` would give.
 */
export type ShardwalSettings = {
  readonly [K in SettingsKey]?:
    | string
    | number
    | boolean
    | readonly string[]
    // `tableSchemas` may be given as the object its JSON text spells.
    | Readonly<Record<string, unknown>>;
};

/** Everything the stack needs, validated. */
export interface DeploySettings {
  /** Stage name when one was set (the construct defaults it to its stack's name). */
  stage: string | undefined;
  /** The service configuration the functions will load (defaults filled in). */
  service: ShardwalConfig & { flushIntervalMs: number };
  /** How the flush interval maps onto EventBridge Scheduler. */
  ticker: SchedulePlan;
  /**
   * Settings environment for every function: the ones the user set, plus the
   * flush interval, the capacity mode and the spill threshold, always.
   */
  environment: Record<string, string>;
  /** Ranges auto scaling keeps the table and its indexes in; undefined on demand. */
  capacity: ProvisionedCapacity | undefined;
  /** The level Lambda and Powertools log at (`log-settings.ts`). */
  logLevel: DeployLogLevel;
  exportEveryMinutes: number;
  verifyEveryMinutes: number;
  alarmEmail: string | undefined;
  /** An existing SNS topic for the alarms (a pager's integration), instead of a new one. */
  alarmTopicArn: string | undefined;
  /** Reserve concurrency for the ticker, flush workers, export and recover. */
  reservedConcurrency: boolean;
  /** Concurrency cap of each ingest event source; put-sqs runs at most their sum at once. */
  ingestMaxConcurrency: { standard: number; fifo: number };
  /** Other AWS accounts whose principals may assume the producer role. */
  producerAccounts: readonly string[];
  authorizer: ApiAuthorizer;
  apiRateLimit: number;
  apiBurstLimit: number;
  /** The Iceberg tables (`table-settings.ts`); undefined with `tables` unset: no committer. */
  tables: TableDeploySettings | undefined;
}

function stageFrom(get: ContextReader): string | undefined {
  const raw = get(DEPLOY_CONTEXT.stage);
  if (!isSet(raw)) return undefined;
  if (typeof raw !== 'string' || !STAGE_PATTERN.test(raw)) {
    throw new ContextError(
      DEPLOY_CONTEXT.stage,
      raw,
      'expected 1-32 letters, digits or hyphens, starting with a letter',
    );
  }
  return raw;
}

function accountsFrom(get: ContextReader): readonly string[] {
  const raw = get(DEPLOY_CONTEXT.producerAccounts);
  if (!isSet(raw)) return [];
  const accounts = (Array.isArray(raw) ? raw : String(raw).split(','))
    .map((a) => String(a).trim())
    .filter((a) => a.length > 0);
  for (const account of accounts) {
    if (!/^\d{12}$/.test(account)) {
      throw new ContextError(
        DEPLOY_CONTEXT.producerAccounts,
        raw,
        `expected 12-digit AWS account ids, comma-separated; got ${JSON.stringify(account)}`,
      );
    }
  }
  return [...new Set(accounts)];
}

function alarmTopicArnFrom(get: ContextReader): string | undefined {
  const raw = get(DEPLOY_CONTEXT.alarmTopicArn);
  if (!isSet(raw)) return undefined;
  if (typeof raw !== 'string' || !/^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[\w-]{1,256}$/.test(raw)) {
    throw new ContextError(DEPLOY_CONTEXT.alarmTopicArn, raw, 'expected an SNS topic ARN');
  }
  return raw;
}

function authorizerFrom(get: ContextReader): ApiAuthorizer {
  const raw = get(DEPLOY_CONTEXT.authorizer) ?? DEPLOY_DEFAULTS.authorizer;
  if (raw === 'iam') return { kind: 'iam' };
  if (raw !== 'jwt') {
    throw new ContextError(DEPLOY_CONTEXT.authorizer, raw, "expected 'iam' or 'jwt'");
  }
  const issuer = get(DEPLOY_CONTEXT.jwtIssuer);
  if (typeof issuer !== 'string' || !/^https:\/\/\S+$/.test(issuer)) {
    throw new ContextError(
      DEPLOY_CONTEXT.jwtIssuer,
      issuer,
      'authorizer=jwt needs the issuer as an https:// URL',
    );
  }
  const rawAudience = get(DEPLOY_CONTEXT.jwtAudience);
  const audience = (Array.isArray(rawAudience) ? rawAudience : String(rawAudience ?? '').split(','))
    .map((a) => String(a).trim())
    .filter((a) => a.length > 0);
  if (audience.length === 0) {
    throw new ContextError(
      DEPLOY_CONTEXT.jwtAudience,
      rawAudience,
      'authorizer=jwt needs at least one audience (comma-separated)',
    );
  }
  return { kind: 'jwt', issuer, audience };
}

function alarmEmailFrom(get: ContextReader): string | undefined {
  const raw = get(DEPLOY_CONTEXT.alarmEmail);
  if (!isSet(raw)) return undefined;
  if (typeof raw !== 'string' || !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(raw)) {
    throw new ContextError(DEPLOY_CONTEXT.alarmEmail, raw, 'expected an email address');
  }
  return raw;
}

/**
 * Fails on a camelCase context key this app does not know: a typo such as
 * `flushIntervalMS` would otherwise deploy the default without a word.
 * Keys with `:`, `@`, `-` or `/` belong to the CDK and its feature flags.
 */
function rejectUnknownKeys(get: ContextReader, keys: readonly string[]): void {
  const known = new Set<string>([
    ...Object.keys(SETTINGS),
    ...Object.values(DEPLOY_CONTEXT),
    ...CAPACITY_KEYS,
    ...Object.values(TABLE_CONTEXT),
  ]);
  for (const key of keys) {
    if (key === RETIRED_INGEST_KEY) {
      throw new ContextError(
        key,
        get(key),
        `replaced by ${DEPLOY_CONTEXT.ingestStandardMaxConcurrency} and ${DEPLOY_CONTEXT.ingestFifoMaxConcurrency} (one cap per ingest queue's event source; put-sqs runs at most their sum): each source got the whole value, twice the documented bound`,
      );
    }
    if (SHARDWAL_KEY.test(key) && !known.has(key)) {
      throw new ContextError(
        key,
        get(key),
        `not a shardwal context key; known keys: ${[...known].join(', ')}`,
      );
    }
  }
}

function ingestCap(
  get: ContextReader,
  key: 'ingestStandardMaxConcurrency' | 'ingestFifoMaxConcurrency',
): number {
  return wholeNumber(
    get,
    DEPLOY_CONTEXT[key],
    DEPLOY_DEFAULTS[key],
    EVENT_SOURCE_MAX_CONCURRENCY.min,
    EVENT_SOURCE_MAX_CONCURRENCY.max,
  );
}

/**
 * Validates the context. `keys` are all context keys present (for the typo
 * check); `get` reads one. Throws `ConfigError` (service settings, naming the
 * environment name) or `ContextError` (deployment keys, naming the key).
 */
export function settingsFromContext(
  get: ContextReader,
  keys: readonly string[] = [],
): DeploySettings {
  rejectUnknownKeys(get, keys);
  const raw: RawSettings = {
    durablePuts: get(DEPLOY_CONTEXT.durablePuts),
    capacityMode: get(DEPLOY_CONTEXT.capacityMode),
    spillBytes: get(DEPLOY_CONTEXT.spillBytes),
  };
  for (const name of Object.keys(SETTINGS) as SettingName[]) raw[name] = get(name);

  const service = validateSettings(raw);
  const intervalMs = service.flushIntervalMs;
  if (intervalMs === undefined) {
    // The local stack's final flush on Ctrl-C has no counterpart in AWS: with no
    // ticker, rows under the size trigger would stay buffered forever.
    throw new ConfigError(
      SETTINGS.flushIntervalMs.env,
      raw.flushIntervalMs,
      'the deployed stack needs a flush ticker; set a whole number of milliseconds',
    );
  }
  if (service.durableWaitMs > MAX_DURABLE_WAIT_MS) {
    throw new ConfigError(
      SETTINGS.durableWaitMs.env,
      service.durableWaitMs,
      `expected at most ${MAX_DURABLE_WAIT_MS}: the HTTP API ends an integration after 30 s`,
    );
  }
  if (service.maxBodyBytes > MAX_HTTP_BODY_BYTES) {
    throw new ConfigError(
      SETTINGS.maxBodyBytes.env,
      service.maxBodyBytes,
      `expected at most ${MAX_HTTP_BODY_BYTES}: Lambda's synchronous payload limit is 6 MB`,
    );
  }

  if (service.flushWorkers > EVENT_SOURCE_MAX_CONCURRENCY.max) {
    throw new ConfigError(
      SETTINGS.flushWorkers.env,
      service.flushWorkers,
      `expected at most ${EVENT_SOURCE_MAX_CONCURRENCY.max}: the flush queue's event source is capped at it`,
    );
  }

  const environment: Record<string, string> = {
    // Always set: the schedule is derived from it, so the functions must not
    // fall back to a default that could differ from what was planned.
    [SETTINGS.flushIntervalMs.env]: String(intervalMs),
    // Always set, resolved, for the same reason: the table's capacity and the
    // spill grants follow these values, and so must the code.
    [CAPACITY_MODE_ENV]: service.capacityMode,
    [SPILL_BYTES_ENV]: service.spillBytes === undefined ? SPILL_OFF : String(service.spillBytes),
    // Always set, resolved: the tick plans its lists for the workers the stack reserves (P6).
    [SETTINGS.flushWorkers.env]: String(service.flushWorkers),
  };
  for (const name of Object.keys(SETTINGS) as SettingName[]) {
    if (isSet(raw[name])) environment[SETTINGS[name].env] = String(service[name]);
  }
  if (isSet(raw.durablePuts)) environment[DURABLE_PUTS_ENV] = service.durablePuts ? 'on' : 'off';
  const tables = tableSettingsFrom(get);
  // Every function gets them: export reads the tables as its retention floor.
  Object.assign(environment, tables?.environment);

  return {
    stage: stageFrom(get),
    service: { ...service, flushIntervalMs: intervalMs },
    ticker: planSchedule(intervalMs),
    environment,
    capacity: capacityFrom(get, service.capacityMode),
    logLevel: logLevelFrom(get),
    exportEveryMinutes: wholeNumber(
      get,
      DEPLOY_CONTEXT.exportEveryMinutes,
      DEPLOY_DEFAULTS.exportEveryMinutes,
      1,
    ),
    verifyEveryMinutes: wholeNumber(
      get,
      DEPLOY_CONTEXT.verifyEveryMinutes,
      DEPLOY_DEFAULTS.verifyEveryMinutes,
      1,
    ),
    alarmEmail: alarmEmailFrom(get),
    alarmTopicArn: alarmTopicArnFrom(get),
    reservedConcurrency: onOff(
      get,
      DEPLOY_CONTEXT.reservedConcurrency,
      DEPLOY_DEFAULTS.reservedConcurrency,
    ),
    ingestMaxConcurrency: {
      standard: ingestCap(get, 'ingestStandardMaxConcurrency'),
      fifo: ingestCap(get, 'ingestFifoMaxConcurrency'),
    },
    producerAccounts: accountsFrom(get),
    authorizer: authorizerFrom(get),
    apiRateLimit: wholeNumber(get, DEPLOY_CONTEXT.apiRateLimit, DEPLOY_DEFAULTS.apiRateLimit, 1),
    apiBurstLimit: wholeNumber(get, DEPLOY_CONTEXT.apiBurstLimit, DEPLOY_DEFAULTS.apiBurstLimit, 1),
    tables,
  };
}

/**
 * Validates settings given as an object (a construct's props) by the same
 * rules as the context: unknown camelCase keys, service settings, deployment keys.
 */
export function validateDeploySettings(
  settings: ShardwalSettings | Readonly<Record<string, unknown>> = {},
): DeploySettings {
  const values = settings as Readonly<Record<string, unknown>>;
  return settingsFromContext((key) => values[key], Object.keys(values));
}

/** The shardwal keys of a construct's context (`cdk.json` and `-c`), CDK feature flags left out. */
export function contextSettings(scope: IConstruct): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(scope.node.getAllContext()).filter(([key]) => SHARDWAL_KEY.test(key)),
  );
}
