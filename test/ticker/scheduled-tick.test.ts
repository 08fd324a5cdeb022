import type { Context } from 'aws-lambda';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { validateSettings } from '../../lib/config.js';
import type { Service } from '../../lib/runtime/service.js';
import { runScheduledTicks, TICK_RESERVE_MS } from '../../lib/ticker/scheduled-tick.js';
import { runTick, type TickDeps } from '../../lib/ticker/tick.js';
import { EventFile, loadEvent } from '../support/events.js';
import { lambdaContext } from '../support/lambda-context.js';

// The invocation sleeps with node:timers/promises, which fake timers do not
// reach; route it through the (faked) global setTimeout.
vi.mock('node:timers/promises', () => ({
  setTimeout: (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)),
}));
// What a tick does is tested in tick.test.ts; here only when ticks happen matters.
vi.mock('../../lib/ticker/tick.js', () => ({ runTick: vi.fn() }));

const MINUTE = 60_000;

/** A service with only what the scheduled invocation touches. */
function serviceWith(flushIntervalMs: number | 'off'): Service {
  const config =
    flushIntervalMs === 'off'
      ? validateSettings({ flushIntervalMs, durablePuts: 'off' })
      : validateSettings({ flushIntervalMs });
  return { config, tick: () => ({}) as TickDeps } as unknown as Service;
}

/** Runs one invocation to completion on fake time; returns tick start times (ms from start). */
async function invoke(
  flushIntervalMs: number | 'off',
  options: { tickMs?: number; timeoutMs?: number } = {},
) {
  const starts: number[] = [];
  vi.mocked(runTick).mockImplementation(async () => {
    starts.push(Date.now());
    if (options.tickMs) await new Promise((resolve) => setTimeout(resolve, options.tickMs));
    return { activeShards: 0, fannedOut: 0, outcomes: [], failed: 0 };
  });
  const context: Context = lambdaContext({ timeoutMs: options.timeoutMs ?? 15 * MINUTE });
  // The event's content is not read: the schedule is the trigger, the config the plan.
  expect(loadEvent(EventFile.scheduledTick)).toMatchObject({ 'detail-type': 'Scheduled Event' });
  const running = runScheduledTicks(serviceWith(flushIntervalMs), context);
  await vi.advanceTimersByTimeAsync(15 * MINUTE);
  const result = await running;
  return { ...result, starts, endedAt: Date.now() };
}

describe('runScheduledTicks', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: 0 });
    vi.mocked(runTick).mockReset();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('runs a 10 s interval as six ticks one interval apart inside the minute', async () => {
    const { ticks, starts } = await invoke(10_000);
    expect(ticks).toBe(6);
    expect(starts).toEqual([0, 10_000, 20_000, 30_000, 40_000, 50_000]);
    // The next invocation's first tick (at 60 s) is one interval after the last.
  });

  it('spaces slow ticks one interval after each ends and finishes before the next invocation', async () => {
    const { ticks, starts } = await invoke(10_000, { tickMs: 3_000 });
    expect(starts).toEqual([0, 13_000, 26_000, 39_000, 52_000]);
    expect(ticks).toBe(5);
    expect(starts.at(-1)! + TICK_RESERVE_MS).toBeLessThanOrEqual(MINUTE);
  });

  it('ticks exactly once for a 60 s interval', async () => {
    const { ticks, starts } = await invoke(60_000);
    expect(ticks).toBe(1);
    expect(starts).toEqual([0]);
  });

  it('ticks exactly once for a 5-minute interval (the schedule rate carries it)', async () => {
    const { ticks } = await invoke(300_000);
    expect(ticks).toBe(1);
  });

  it('stops early enough for a function timeout shorter than the minute', async () => {
    const { ticks, starts } = await invoke(10_000, { timeoutMs: 30_000 });
    // Deadline: 30 s - 5 s reserve = 25 s; a tick starts only with 5 s left before it.
    expect(starts).toEqual([0, 10_000, 20_000]);
    expect(ticks).toBe(3);
  });

  it('does nothing with the ticker off', async () => {
    const { ticks } = await invoke('off');
    expect(ticks).toBe(0);
    expect(runTick).not.toHaveBeenCalled();
  });
});
