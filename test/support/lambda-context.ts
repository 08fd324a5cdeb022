/** A Lambda `Context` for calling handlers in-process, with a controllable deadline. */
import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';

/** A context whose remaining time counts down from `timeoutMs` on `now`. */
export function lambdaContext(
  options: { functionName?: string; timeoutMs?: number; now?: () => number } = {},
): Context {
  const now = options.now ?? Date.now;
  const functionName = options.functionName ?? 'shardwal-test';
  const timeoutMs = options.timeoutMs ?? 900_000;
  const started = now();
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:us-east-1:123456789012:function:${functionName}`,
    memoryLimitInMB: '1024',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: '2026/03/12/[$LATEST]0123456789abcdef0123456789abcdef',
    getRemainingTimeInMillis: () => Math.max(0, started + timeoutMs - now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}
