/**
 * Wraps a Lambda handler in middy with the Powertools logger middleware
 * (request context on every log line) and flushes the invocation's metrics
 * at its end. Every entry point in `functions/` goes through here.
 *
 * Metrics are published only when the invocation stored some: Powertools'
 * `logMetrics` middleware warns "No application metrics to publish" on every
 * invocation that stored none (an idempotent repeat, an empty SQS batch), a
 * log line per such request for nothing.
 */
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { logger, metrics } from '../observability/telemetry.js';

function publishIfStored(): void {
  if (metrics.hasStoredMetrics()) metrics.publishStoredMetrics();
}

/** Publishes the stored metrics, if any; runs after the handler and after its error. */
const publishMetrics: middy.MiddlewareObj = { after: publishIfStored, onError: publishIfStored };

/** The middy-wrapped form of `handler`. */
export function wrapHandler<E, R>(handler: (event: E, context: Context) => Promise<R>) {
  return middy(handler).use(injectLambdaContext(logger)).use(publishMetrics);
}
