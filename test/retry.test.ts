import { describe, expect, it } from 'vitest';
import { InternalError, UnavailableError } from '../lib/errors.js';
import { type RetryPolicy, retry, retryDelayMs } from '../lib/retry.js';

const POLICY: RetryPolicy = { attempts: 4, baseDelayMs: 50, maxDelayMs: 120 };

/** An attempt that fails with `errors` in turn, then resolves to the attempt's number. */
function failing(errors: Error[]) {
  const seen: number[] = [];
  const attempt = async (n: number) => {
    seen.push(n);
    const error = errors[n - 1];
    if (error) throw error;
    return n;
  };
  return { attempt, seen };
}

const retryable = (error: unknown) => error instanceof UnavailableError;

describe('retry', () => {
  it('retries retryable failures and resolves to the first success', async () => {
    const { attempt, seen } = failing([new UnavailableError('a'), new UnavailableError('b')]);
    const waits: number[] = [];
    const result = await retry(POLICY, attempt, {
      retryable,
      sleep: async (ms) => void waits.push(ms),
      random: () => 0.5,
    });
    expect(result).toBe(3);
    expect(seen).toEqual([1, 2, 3]);
    expect(waits).toEqual([37.5, 75]); // steps 50 and 100, each half plus half a half
  });

  it('raises the last failure, through giveUp, when the attempts run out', async () => {
    const errors = [1, 2, 3, 4].map((n) => new UnavailableError(`try ${n}`));
    const { attempt, seen } = failing(errors);
    const thrown = await retry(POLICY, attempt, {
      retryable,
      giveUp: (error, attempts) => new InternalError(`gave up after ${attempts}: ${error}`),
      sleep: async () => {},
    }).catch((error: unknown) => error);
    expect(seen).toEqual([1, 2, 3, 4]);
    expect(thrown).toBeInstanceOf(InternalError);
    expect((thrown as Error).message).toBe('gave up after 4: UnavailableError: try 4');
  });

  it('raises a failure it may not retry at once', async () => {
    const { attempt, seen } = failing([new InternalError('bug')]);
    await expect(retry(POLICY, attempt, { retryable, sleep: async () => {} })).rejects.toThrow(
      'bug',
    );
    expect(seen).toEqual([1]);
  });

  it('retries at once when the policy has no delay', async () => {
    const { attempt } = failing([new UnavailableError('a')]);
    const waits: number[] = [];
    const policy = { attempts: 2, baseDelayMs: 0, maxDelayMs: 0 };
    await retry(policy, attempt, { retryable, sleep: async (ms) => void waits.push(ms) });
    expect(waits).toEqual([]);
  });

  it('refuses a policy without an attempt', async () => {
    const { attempt } = failing([]);
    const policy = { attempts: 0, baseDelayMs: 0, maxDelayMs: 0 };
    await expect(retry(policy, attempt, { retryable })).rejects.toBeInstanceOf(InternalError);
  });
});

describe('retryDelayMs', () => {
  it('doubles the step from the base up to the cap, and waits half to all of it', () => {
    expect([1, 2, 3, 4].map((n) => retryDelayMs(POLICY, n, 0))).toEqual([25, 50, 60, 60]);
    expect(retryDelayMs(POLICY, 2, 0.999)).toBeCloseTo(99.95);
  });
});
