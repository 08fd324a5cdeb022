/**
 * A Lambda `Context` for handlers invoked in-process by the local stack:
 * the fields handlers and the Powertools middlewares read, and a deadline
 * like the deployed function's timeout.
 */
import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';
import { LOCAL_RESOURCES } from './data-dir.js';

/** Options of `lambdaContext`. */
export interface LambdaContextOptions {
  /** The function's timeout: the deadline is this long after creation (default 30 s). */
  timeoutMs?: number;
  /**
   * When it returns true, the deadline moves to now: handlers that stop
   * starting new work near their deadline (export, recovery) then wrap up, as
   * the local stack wants when it stops.
   */
  cutShort?: () => boolean;
  /** The clock the deadline counts on (default `Date.now`). */
  now?: () => number;
}

/** A fresh context for one invocation of `functionName`. */
export function lambdaContext(functionName: string, options: LambdaContextOptions = {}): Context {
  const now = options.now ?? Date.now;
  const cutShort = options.cutShort ?? (() => false);
  const deadline = now() + (options.timeoutMs ?? 30_000);
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${LOCAL_RESOURCES.region}:000000000000:function:${functionName}`,
    memoryLimitInMB: '1024',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: `local/${process.pid}`,
    getRemainingTimeInMillis: () => (cutShort() ? 0 : Math.max(0, deadline - now())),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}
