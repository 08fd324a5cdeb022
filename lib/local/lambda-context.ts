/**
 * A Lambda `Context` for handlers invoked in-process by the local stack:
 * the fields handlers and the Powertools middlewares read, and a deadline
 * like the deployed function's timeout.
 */
import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';
import { LOCAL_RESOURCES } from './data-dir.js';

/**
 * A fresh context for one invocation of `functionName`. `cutShort`, when it
 * returns true, brings the deadline forward to now: handlers that stop
 * starting new work near their deadline (export, recovery) then wrap up, as
 * the local stack wants when it stops.
 */
export function lambdaContext(
  functionName: string,
  timeoutMs = 30_000,
  cutShort: () => boolean = () => false,
): Context {
  const deadline = Date.now() + timeoutMs;
  const awsRequestId = randomUUID();
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${LOCAL_RESOURCES.region}:000000000000:function:${functionName}`,
    memoryLimitInMB: '1024',
    awsRequestId,
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: `local/${process.pid}`,
    getRemainingTimeInMillis: () => (cutShort() ? 0 : Math.max(0, deadline - Date.now())),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}
