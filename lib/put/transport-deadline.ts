/**
 * The hard end a Lambda invocation puts on a put: it is killed at its
 * timeout, so the put must give up (sealing its own seq) a little before,
 * while it can still answer (L1 in `lib/liveness.ts`).
 */
import type { Context } from 'aws-lambda';

/** Time kept to settle the seq and answer after the last moment a batch may be written. */
const INVOCATION_MARGIN_MS = 1_000;

/** The put deadline the invocation imposes, or undefined outside Lambda. */
export function invocationDeadline(
  context: Context | undefined,
  nowMs: number,
): number | undefined {
  if (!context?.getRemainingTimeInMillis) return undefined;
  return nowMs + context.getRemainingTimeInMillis() - INVOCATION_MARGIN_MS;
}
