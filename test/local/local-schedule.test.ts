import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../lib/errors.js';
import { LocalSchedule } from '../../lib/local/local-schedule.js';
import { eventually } from './http-client.js';

const SETTING = 'SHARDWAL_LOCAL_EXPORT_EVERY_MS';

/** A promise and the function that resolves it. */
function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve = () => {};
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

describe('LocalSchedule', () => {
  describe('constructor', () => {
    it.each([0, -1, 1.5])('rejects a period of %s naming the setting', (everyMs) => {
      const create = () =>
        new LocalSchedule({ name: 'export', setting: SETTING, everyMs, run: async () => {} });
      expect(create).toThrow(ConfigError);
      expect(create).toThrow(`${SETTING}=${everyMs}: expected a whole number of at least 1`);
    });
  });

  describe('start', () => {
    it('runs one period after start, never overlapping, the next one period after the previous ended', async () => {
      const runs: Array<{ start: number; end: number }> = [];
      const started = Date.now();
      const schedule = new LocalSchedule({
        name: 'export',
        setting: SETTING,
        everyMs: 30,
        run: async () => {
          const start = Date.now();
          await sleep(60); // longer than the period: a burst would overlap
          runs.push({ start, end: Date.now() });
        },
      });
      schedule.start();
      await eventually(async () => (runs.length >= 3 ? true : undefined), 5_000, 'three runs');
      await schedule.stop();
      expect(runs[0]!.start - started).toBeGreaterThanOrEqual(25);
      for (let i = 1; i < runs.length; i++) {
        // Timers may fire a millisecond early; never before the previous run ended.
        expect(runs[i]!.start - runs[i - 1]!.end).toBeGreaterThanOrEqual(25);
      }
      expect(schedule.status()).toMatchObject({ runs: runs.length, failures: 0, running: false });
    });

    it('reports a failed run and goes on', async () => {
      const errors: unknown[] = [];
      let calls = 0;
      const schedule = new LocalSchedule({
        name: 'verify',
        setting: SETTING,
        everyMs: 10,
        run: async () => {
          calls += 1;
          if (calls === 1) throw new Error('emulator hiccup');
          return { findings: 0 };
        },
        onError: (error) => errors.push(error),
      });
      schedule.start();
      await eventually(async () => (calls >= 2 ? true : undefined), 5_000, 'a second run');
      await schedule.stop();
      expect(errors).toHaveLength(1);
      expect(schedule.status()).toMatchObject({ failures: 1, lastResult: { findings: 0 } });
    });
  });

  describe('stop', () => {
    it('waits for a running job, tells it to wrap up, and runs nothing after', async () => {
      const release = deferred();
      const seenCutShort: boolean[] = [];
      let calls = 0;
      const schedule = new LocalSchedule({
        name: 'export',
        setting: SETTING,
        everyMs: 10,
        run: async (cutShort) => {
          calls += 1;
          seenCutShort.push(cutShort());
          await release.promise;
          seenCutShort.push(cutShort());
        },
      });
      schedule.start();
      await eventually(async () => (schedule.status().running ? true : undefined), 5_000, 'a run');
      let stopped = false;
      const stopping = schedule.stop().then(() => {
        stopped = true;
      });
      await sleep(50);
      expect(stopped).toBe(false);
      release.resolve();
      await stopping;
      expect(seenCutShort).toEqual([false, true]);
      await sleep(50);
      expect(calls).toBe(1);
      expect(schedule.status()).toMatchObject({ runs: 1, running: false });
    });

    it('is immediate when no run is in progress', async () => {
      const schedule = new LocalSchedule({
        name: 'verify',
        setting: SETTING,
        everyMs: 60_000,
        run: async () => {},
      });
      schedule.start();
      await schedule.stop();
      await schedule.stop();
      expect(schedule.status()).toMatchObject({ runs: 0, running: false });
    });
  });
});
