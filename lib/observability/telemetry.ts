/**
 * The process-wide structured logger and metrics (Powertools). Lambda entry
 * points wrap handlers with the middy middlewares that flush metrics and add
 * request context; the local stack publishes after each tick.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import type { Context } from 'aws-lambda';
import { RESOURCE_ENV } from '../config.js';
import { METRICS_NAMESPACE } from './metric-names.js';

/** Service name on every log line and metric. */
export const SERVICE_NAME = 'shardwal';

/** Dimension (and log key) naming the deployment stage; the CDK alarms filter on it. */
export const STAGE_DIMENSION = 'stage';

// Two stages in one account share the namespace: the stage keeps their series apart.
const stage = process.env[RESOURCE_ENV.stage] || undefined;

const baseLogger = new Logger({
  serviceName: SERVICE_NAME,
  ...(stage ? { persistentKeys: { [STAGE_DIMENSION]: stage } } : {}),
});

const scopes = new AsyncLocalStorage<Logger>();

/**
 * Structured JSON logger; each line carries `stage` when SHARDWAL_STAGE is
 * set. Inside `withLogScope` it is that scope's own logger: the local stack
 * runs every function in one process, and without scopes one invocation's
 * Lambda context would stamp another's lines (a tick logging as a put).
 */
export const logger: Logger = new Proxy(baseLogger, {
  get(target, property) {
    const current = scopes.getStore() ?? target;
    const value = Reflect.get(current, property, current) as unknown;
    return typeof value === 'function' ? value.bind(current) : value;
  },
});

/** Runs `fn` with a logger of its own, stamped with `context` (one function invocation). */
export function withLogScope<T>(context: Context, fn: () => T): T {
  const child = baseLogger.createChild();
  child.addContext(context);
  return scopes.run(child, fn);
}

/**
 * CloudWatch EMF metrics, namespace `shardwal`, dimension `service=shardwal`,
 * plus `stage=<SHARDWAL_STAGE>` when set (the local stack sets none).
 */
export const metrics = new Metrics({
  namespace: METRICS_NAMESPACE,
  serviceName: SERVICE_NAME,
  ...(stage ? { defaultDimensions: { [STAGE_DIMENSION]: stage } } : {}),
});
