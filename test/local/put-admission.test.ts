import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ErrorKind } from '../../lib/errors.js';
import { AdmissionRefusedError } from '../../lib/local/errors.js';
import { PutAdmission } from '../../lib/local/put-admission.js';

const OPTIONS = { maxInFlight: 2, fullForMs: 1_000, retryAfterSeconds: 1 };

/** Settles `promise` into what it gave: a leave function or the refusal. */
function outcome(promise: Promise<unknown>) {
  const state: { value?: unknown; error?: unknown } = {};
  promise.then(
    (value) => {
      state.value = value;
    },
    (error: unknown) => {
      state.error = error;
    },
  );
  return state;
}

describe('PutAdmission', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: 0 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  describe('enter', () => {
    it('lets maxInFlight puts of a shard in and the next one in when one leaves (P1)', async () => {
      const admission = new PutAdmission(OPTIONS);
      const first = await admission.enter('a');
      await admission.enter('a');
      const third = outcome(admission.enter('a'));
      const otherShard = outcome(admission.enter('b'));
      await vi.advanceTimersByTimeAsync(0);
      expect(third).toEqual({});
      expect(otherShard.value).toBeTypeOf('function');
      first(202);
      await vi.advanceTimersByTimeAsync(0);
      expect(third.value).toBeTypeOf('function');
    });

    it('never refuses a put for waiting: it waits until a place frees (P1)', async () => {
      const admission = new PutAdmission(OPTIONS);
      const first = await admission.enter('a');
      await admission.enter('a');
      const waiting = outcome(admission.enter('a'));
      await vi.advanceTimersByTimeAsync(60_000);
      expect(waiting).toEqual({});
      first(202);
      await vi.advanceTimersByTimeAsync(0);
      expect(waiting.value).toBeTypeOf('function');
    });

    it('refuses waiting and new puts at once with a 429 for fullForMs after a 429, then admits again (P2)', async () => {
      const admission = new PutAdmission(OPTIONS);
      const first = await admission.enter('a');
      await admission.enter('a');
      const waiting = outcome(admission.enter('a'));
      first(429);
      await vi.advanceTimersByTimeAsync(0);
      const error = waiting.error as AdmissionRefusedError;
      expect(error).toBeInstanceOf(AdmissionRefusedError);
      expect(error.kind).toBe(ErrorKind.backpressure);
      expect(error.retryAfterSeconds).toBe(1);
      expect(error.message).toMatch(
        /^shard a: its buffer was full a moment ago; nothing was stored; retry after 1s$/,
      );
      await expect(admission.enter('a')).rejects.toBeInstanceOf(AdmissionRefusedError);
      await vi.advanceTimersByTimeAsync(1_000);
      expect(await admission.enter('a')).toBeTypeOf('function');
    });

    it('refuses the next put for fullForMs after a lone put got a 429, with nothing else in flight (P2)', async () => {
      const admission = new PutAdmission(OPTIONS);
      const only = await admission.enter('a');
      only(429);
      await expect(admission.enter('a')).rejects.toBeInstanceOf(AdmissionRefusedError);
      await vi.advanceTimersByTimeAsync(999);
      await expect(admission.enter('a')).rejects.toBeInstanceOf(AdmissionRefusedError);
      await vi.advanceTimersByTimeAsync(1);
      expect(await admission.enter('a')).toBeTypeOf('function');
    });

    it('frees a place once whatever the answer, however often leave is called', async () => {
      const admission = new PutAdmission(OPTIONS);
      const first = await admission.enter('a');
      await admission.enter('a');
      first(500);
      first(500);
      await admission.enter('a');
      const fourth = outcome(admission.enter('a'));
      await vi.advanceTimersByTimeAsync(0);
      expect(fourth).toEqual({}); // two in flight: the double leave freed one place, not two
    });
  });
});
