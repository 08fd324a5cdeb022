/**
 * The one retry policy of `lib/`: every loop that tries an operation again
 * runs through `retry`, so each states how many attempts it makes and how
 * long it waits, and none ends silently: when the attempts run out, the last
 * failure is raised (through `giveUp` when the caller names it), never
 * swallowed.
 *
 * Waits follow one law ("equal jitter"): before retry n (n = 1, 2, …) the
 * step is `min(maxDelayMs, baseDelayMs · 2^(n-1))`, and the wait is drawn
 * from [step/2, step): at least half the step, so retries do spread out, plus
 * a random half, so concurrent callers do not retry in lockstep. A policy
 * with `baseDelayMs` 0 retries at once.
 *
 * The policies (`RetryPolicy`) and why each is what it is:
 * - `resendWrite`: a DynamoDB write whose outcome was lost, re-sent (3
 *   attempts, at once). The SDK already backed off within each send; the
 *   write is conditional, so a re-send that finds its own item is told
 *   apart, and the put's deadline bounds the whole.
 * - `resendAllocate`: the seq allocation, re-sent once (2 attempts, at once):
 *   a re-send of an update that landed fails its token condition (A1 in
 *   `lib/memtable/allocate.ts`).
 * - `backoff`: requests DynamoDB or S3 refused for throughput or a
 *   transient fault (unprocessed batch items, S3 5xx and throttles): 5
 *   attempts, 50 ms doubling to at most 2 s.
 */
import { setTimeout as sleepMs } from 'node:timers/promises';
import { InternalError } from './errors.js';

/** How many attempts an operation gets and how long it waits between them. */
export interface RetryPolicy {
  /** Attempts in all, the first one included (at least 1). */
  readonly attempts: number;
  /** The first retry's step, doubled for each later retry; 0 retries at once. */
  readonly baseDelayMs: number;
  /** The cap on a step. */
  readonly maxDelayMs: number;
}

/** The policies of `lib/` (see the file's comment for why each is what it is). */
export const RetryPolicy = {
  resendWrite: { attempts: 3, baseDelayMs: 0, maxDelayMs: 0 },
  resendAllocate: { attempts: 2, baseDelayMs: 0, maxDelayMs: 0 },
  backoff: { attempts: 5, baseDelayMs: 50, maxDelayMs: 2_000 },
} as const satisfies Record<string, RetryPolicy>;

/** What `retry` needs besides the policy. */
export interface RetryOptions {
  /** Whether a failure may be retried; any other is raised at once. */
  retryable: (error: unknown) => boolean;
  /** The error to raise when a retryable failure outlasts the attempts (default: the failure itself). */
  giveUp?: (error: unknown, attempts: number) => Error;
  /** Waits between attempts; injectable so tests do not sleep. */
  sleep?: (ms: number) => Promise<void>;
  /** Source of jitter in [0, 1). */
  random?: () => number;
}

/** The wait before retry `n` (1-based) under `policy`, for a jitter draw `draw` in [0, 1). */
export function retryDelayMs(policy: RetryPolicy, n: number, draw: number): number {
  const stepMs = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (n - 1));
  return stepMs / 2 + draw * (stepMs / 2);
}

/**
 * Runs `attempt` (given its 1-based number) until it resolves, retrying the
 * failures `retryable` accepts under `policy`; raises the first failure it
 * does not accept, or the last one (through `giveUp`) when the attempts run
 * out.
 */
export async function retry<T>(
  policy: RetryPolicy,
  attempt: (n: number) => Promise<T>,
  options: RetryOptions,
): Promise<T> {
  if (!Number.isInteger(policy.attempts) || policy.attempts < 1) {
    throw new InternalError(`retry policy: attempts ${policy.attempts}, expected an integer ≥ 1`);
  }
  const sleep = options.sleep ?? ((ms: number) => sleepMs(ms));
  const random = options.random ?? Math.random;
  for (let n = 1; ; n++) {
    try {
      return await attempt(n);
    } catch (error) {
      if (!options.retryable(error)) throw error;
      if (n >= policy.attempts) throw options.giveUp ? options.giveUp(error, n) : error;
      if (policy.baseDelayMs > 0) await sleep(retryDelayMs(policy, n, random()));
    }
  }
}
