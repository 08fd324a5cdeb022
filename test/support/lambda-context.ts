/** A Lambda `Context` for calling handlers in-process in tests: the local stack's, with test defaults. */
import type { Context } from 'aws-lambda';
import { lambdaContext as localContext } from '../../lib/local/lambda-context.js';

/** A context whose remaining time counts down from `timeoutMs` (default 15 min) on `now`. */
export function lambdaContext(
  options: { functionName?: string; timeoutMs?: number; now?: () => number } = {},
): Context {
  return localContext(options.functionName ?? 'shardwal-test', {
    timeoutMs: options.timeoutMs ?? 900_000,
    ...(options.now ? { now: options.now } : {}),
  });
}
