/**
 * Wraps a Lambda handler in middy with the Powertools middlewares: request
 * context on every log line, and metrics flushed at the end of each
 * invocation. Every entry point in `functions/` goes through here.
 */
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { logger, metrics } from '../observability/telemetry.js';

/** The middy-wrapped form of `handler`. */
export function wrapHandler<E, R>(handler: (event: E, context: Context) => Promise<R>) {
  return middy(handler).use(injectLambdaContext(logger)).use(logMetrics(metrics));
}
