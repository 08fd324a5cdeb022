/**
 * The process-wide structured logger and metrics (Powertools). Lambda entry
 * points wrap handlers with the middy middlewares that flush metrics and add
 * request context; the local stack publishes after each tick.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { METRICS_NAMESPACE } from './metric-names.js';

/** Service name on every log line and metric. */
export const SERVICE_NAME = 'shardwal';

/** Structured JSON logger. */
export const logger = new Logger({ serviceName: SERVICE_NAME });

/** CloudWatch EMF metrics, namespace `shardwal`, dimension `service=shardwal`. */
export const metrics = new Metrics({ namespace: METRICS_NAMESPACE, serviceName: SERVICE_NAME });
