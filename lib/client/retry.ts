/**
 * The retry loop shared by the HTTP and SQS producers. What is retried is the
 * error's business (`ApiError.retryable`, from the kind's rule in
 * `error-kinds.ts`); how long to wait is decided here:
 *
 * - an answer with `Retry-After` waits at least that long (plus up to one
 *   base delay of jitter, so clients told the same second do not return in
 *   step);
 * - otherwise exponential backoff with equal jitter: half the capped
 *   exponential delay, plus a random share of the other half;
 * - `poisoned` backs off the same way from a much longer first delay: the
 *   shard needs an operator's recovery, hammering it helps nobody.
 *
 * The loop gives up after `maxAttempts` requests, or when the next wait would
 * end past `maxElapsedMs` since the first request, and throws the last error
 * with `attempts` set. Randomness, sleep and clock are injectable: tests seed
 * the jitter and record the waits.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { ErrorKind } from '../errors.js';
import { ApiError } from './errors.js';

/** How the client retries. */
export interface RetryOptions {
  /** Requests per call, the first included (1 = never retry). */
  maxAttempts: number;
  /** First backoff step; also the jitter added to `Retry-After`. */
  baseDelayMs: number;
  /** Longest backoff step (a longer `Retry-After` is still honoured). */
  maxDelayMs: number;
  /** First backoff step for a poisoned shard. */
  poisonedDelayMs: number;
  /** No wait may end later than this after the first request. */
  maxElapsedMs: number;
  /** Uniform in [0, 1); seed it for reproducible waits. */
  random: () => number;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  now: () => number;
}

/** Defaults of `RetryOptions`. */
export const RETRY_DEFAULTS = {
  maxAttempts: 10,
  baseDelayMs: 100,
  maxDelayMs: 10_000,
  poisonedDelayMs: 5_000,
  maxElapsedMs: 120_000,
} as const;

/** Fills in the defaults. */
export function retryOptions(options: Partial<RetryOptions> = {}): RetryOptions {
  return {
    ...RETRY_DEFAULTS,
    random: Math.random,
    sleep: (ms, signal) => delay(ms, undefined, { signal }),
    now: Date.now,
    ...options,
  };
}

/** One retry about to happen. */
export interface RetryEvent {
  /** The request that failed (1 = the first). */
  attempt: number;
  error: ApiError;
  /** How long the client waits before the next request. */
  delayMs: number;
}

/** The wait before retry number `retry` (1 = the first retry) after `error`. */
function retryDelayMs(error: ApiError, retry: number, options: RetryOptions): number {
  if (error.retryAfterMs !== undefined) {
    return error.retryAfterMs + Math.floor(options.random() * options.baseDelayMs);
  }
  const first = error.kind === ErrorKind.poisoned ? options.poisonedDelayMs : options.baseDelayMs;
  const cap = Math.max(first, options.maxDelayMs);
  const step = Math.min(cap, first * 2 ** Math.min(retry - 1, 30));
  return Math.floor(step / 2 + options.random() * (step / 2));
}

/**
 * Runs `attempt` until it succeeds, throws something not retryable, or the
 * attempts or time run out; `onRetry` hears of every retry before its wait.
 */
export async function withRetries<T>(
  attempt: (attemptNumber: number) => Promise<T>,
  options: RetryOptions,
  onRetry?: (event: RetryEvent) => void,
  signal?: AbortSignal,
): Promise<T> {
  const startedAt = options.now();
  for (let attemptNumber = 1; ; attemptNumber++) {
    try {
      return await attempt(attemptNumber);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      error.attempts = attemptNumber;
      if (!error.retryable || attemptNumber >= options.maxAttempts || signal?.aborted) throw error;
      const delayMs = retryDelayMs(error, attemptNumber, options);
      if (options.now() + delayMs - startedAt > options.maxElapsedMs) throw error;
      onRetry?.({ attempt: attemptNumber, error, delayMs });
      await options.sleep(delayMs, signal);
    }
  }
}
