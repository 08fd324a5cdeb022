/**
 * CDK context → validated deployment settings. The service settings go through
 * the service's own `validateSettings`, so `cdk synth` rejects exactly what a
 * cold start would reject, with the same message (`-c flushIntervalMs=0` fails
 * naming `SHARDWAL_FLUSH_INTERVAL_MS` and `0`). Deployment-only keys (schedules,
 * alarms, authorizer, API throttling) are validated here, naming the key.
 */
import {
  DURABLE_PUTS_ENV,
  type RawSettings,
  SETTINGS,
  type SettingName,
  type ShardwalConfig,
  validateSettings,
} from '../lib/config.js';
import { ConfigError } from '../lib/errors.js';
import { planSchedule, type SchedulePlan } from '../lib/ticker/schedule-plan.js';

/** Context keys of the deployment, beside one key per service setting (`SETTINGS`). */
export const DEPLOY_CONTEXT = {
  durablePuts: 'durablePuts',
  exportEveryMinutes: 'exportEveryMinutes',
  verifyEveryMinutes: 'verifyEveryMinutes',
  alarmEmail: 'alarmEmail',
  authorizer: 'authorizer',
  jwtIssuer: 'jwtIssuer',
  jwtAudience: 'jwtAudience',
  apiRateLimit: 'apiRateLimit',
  apiBurstLimit: 'apiBurstLimit',
} as const;

/** Defaults of the deployment-only keys. */
export const DEPLOY_DEFAULTS = {
  exportEveryMinutes: 15,
  verifyEveryMinutes: 60,
  authorizer: 'iam',
  apiRateLimit: 1_000,
  apiBurstLimit: 2_000,
} as const;

/** API Gateway HTTP APIs cut an integration off at 30 s; a durable wait must end before that. */
export const MAX_DURABLE_WAIT_MS = 25_000;

/**
 * Lambda's synchronous invoke payload limit is 6 MB; the HTTP API event
 * envelope (headers, request context) needs room beside the body.
 */
export const MAX_HTTP_BODY_BYTES = 6 * 1024 * 1024 - 256 * 1024;

/** How the HTTP API authorizes callers. */
export type ApiAuthorizer =
  | { kind: 'iam' }
  | { kind: 'jwt'; issuer: string; audience: readonly string[] };

/** Everything the stack needs, validated. */
export interface DeploySettings {
  /** The service configuration the functions will load (defaults filled in). */
  service: ShardwalConfig & { flushIntervalMs: number };
  /** How the flush interval maps onto EventBridge Scheduler. */
  ticker: SchedulePlan;
  /** Settings environment for every function: the ones the user set, plus the flush interval. */
  environment: Record<string, string>;
  exportEveryMinutes: number;
  verifyEveryMinutes: number;
  alarmEmail: string | undefined;
  authorizer: ApiAuthorizer;
  apiRateLimit: number;
  apiBurstLimit: number;
}

/** A CDK context value that cannot be deployed; names the key and the value. */
export class ContextError extends Error {
  readonly contextKey: string;
  constructor(contextKey: string, value: unknown, problem: string, options?: { cause?: unknown }) {
    super(`cdk context ${contextKey}=${JSON.stringify(value)}: ${problem}`, options);
    this.name = 'ContextError';
    this.contextKey = contextKey;
  }
}

/** Reads one context value (`app.node.tryGetContext`). */
export type ContextReader = (key: string) => unknown;

const isSet = (raw: unknown): boolean => raw !== undefined && raw !== null && raw !== '';

function wholeNumber(get: ContextReader, key: string, fallback: number, min: number): number {
  const raw = get(key);
  if (!isSet(raw)) return fallback;
  const value =
    typeof raw === 'number' ? raw : typeof raw === 'string' ? Number(raw.trim()) : Number.NaN;
  if (!Number.isInteger(value) || value < min) {
    throw new ContextError(key, raw, `expected a whole number of at least ${min}`);
  }
  return value;
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
  const known = new Set<string>([...Object.keys(SETTINGS), ...Object.values(DEPLOY_CONTEXT)]);
  for (const key of keys) {
    if (/^[a-z][a-zA-Z0-9]*$/.test(key) && !known.has(key)) {
      throw new ContextError(
        key,
        get(key),
        `not a shardwal context key; known keys: ${[...known].join(', ')}`,
      );
    }
  }
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
  const raw: RawSettings = { durablePuts: get(DEPLOY_CONTEXT.durablePuts) };
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

  const environment: Record<string, string> = {
    // Always set: the schedule is derived from it, so the functions must not
    // fall back to a default that could differ from what was planned.
    [SETTINGS.flushIntervalMs.env]: String(intervalMs),
  };
  for (const name of Object.keys(SETTINGS) as SettingName[]) {
    if (isSet(raw[name])) environment[SETTINGS[name].env] = String(service[name]);
  }
  if (isSet(raw.durablePuts)) environment[DURABLE_PUTS_ENV] = service.durablePuts ? 'on' : 'off';

  return {
    service: { ...service, flushIntervalMs: intervalMs },
    ticker: planSchedule(intervalMs),
    environment,
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
    authorizer: authorizerFrom(get),
    apiRateLimit: wholeNumber(get, DEPLOY_CONTEXT.apiRateLimit, DEPLOY_DEFAULTS.apiRateLimit, 1),
    apiBurstLimit: wholeNumber(get, DEPLOY_CONTEXT.apiBurstLimit, DEPLOY_DEFAULTS.apiBurstLimit, 1),
  };
}
