import type { Context } from 'aws-lambda';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { validateSettings } from '../../lib/config.js';
import { InvalidInputError } from '../../lib/errors.js';
import type { Service } from '../../lib/runtime/service.js';
import { claimLeadMs } from '../../lib/ticker/claim-lead.js';
import {
  runScheduledTicks,
  TICKER_SCHEDULED_TIME_FIELD,
  tickWindow,
} from '../../lib/ticker/scheduled-tick.js';
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

/** The event the schedule sends for the minute starting at `ms`. */
function scheduledAt(ms: number) {
  return { [TICKER_SCHEDULED_TIME_FIELD]: new Date(ms).toISOString() };
}

/**
 * Runs one invocation to completion on fake time, starting at `startAt`;
 * returns tick start times relative to `scheduledFor`.
 */
async function invoke(
  flushIntervalMs: number | 'off',
  options: {
    tickMs?: number;
    timeoutMs?: number;
    startAt?: number;
    event?: unknown;
  } = {},
) {
  const startAt = options.startAt ?? 0;
  vi.setSystemTime(startAt);
  const starts: number[] = [];
  const began: number[] = [];
  vi.mocked(runTick).mockImplementation(async (deps) => {
    // The slot a tick stands for; a tick that claims ahead begins before it (K1).
    starts.push(deps.slot?.atMs ?? Date.now());
    began.push(Date.now());
    if (options.tickMs) await new Promise((resolve) => setTimeout(resolve, options.tickMs));
    return {
      activeShards: 0,
      fannedOut: 0,
      outcomes: [],
      failed: 0,
      plan: {
        concurrency: 1,
        here: 0,
        flushBytes: 1,
        budgetMs: undefined,
        perMessage: 1,
        workers: 40,
      },
      oldestPendingAgeMs: 0,
    };
  });
  const context: Context = lambdaContext({ timeoutMs: options.timeoutMs ?? 15 * MINUTE });
  const running = runScheduledTicks(
    serviceWith(flushIntervalMs),
    context,
    options.event ?? scheduledAt(0),
  );
  await vi.advanceTimersByTimeAsync(15 * MINUTE);
  const result = await running;
  return { ...result, starts, began };
}

describe('runScheduledTicks', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: 0 });
    vi.mocked(runTick).mockReset();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('runs a 10 s interval as the six grid ticks of its minute', async () => {
    const { ticks, starts } = await invoke(10_000);
    expect(ticks).toBe(6);
    expect(starts).toEqual([0, 10_000, 20_000, 30_000, 40_000, 50_000]);
  });

  it('starts each sub-minute tick its claim lead before its slot, standing for the slot', async () => {
    const { starts, began } = await invoke(10_000);
    const lead = claimLeadMs(10_000);
    expect(lead).toBeGreaterThan(0);
    // The first slot is the invocation's own start: no time to lead it.
    expect(began).toEqual(starts.map((slot, i) => (i === 0 ? slot : slot - lead)));
  });

  it('keeps slow ticks on the grid while they fit the interval', async () => {
    const { ticks, starts } = await invoke(10_000, { tickMs: 3_000 });
    expect(starts).toEqual([0, 10_000, 20_000, 30_000, 40_000, 50_000]);
    expect(ticks).toBe(6);
  });

  it('ticks at once for the slot a late invocation missed, then on the grid, never past its minute', async () => {
    const { starts, began } = await invoke(10_000, { startAt: 23_456 });
    expect(starts).toEqual([20_000, 30_000, 40_000, 50_000]);
    expect(began[0]).toBe(23_456);
  });

  it('runs nothing when it arrives after its minute (a late retry never runs beside the next one)', async () => {
    const { ticks } = await invoke(10_000, { startAt: MINUTE + 5 });
    expect(ticks).toBe(0);
    expect(runTick).not.toHaveBeenCalled();
  });

  it('ticks exactly once for a 60 s interval', async () => {
    const { ticks, starts } = await invoke(60_000);
    expect(ticks).toBe(1);
    expect(starts).toEqual([0]);
  });

  it('ticks exactly once, at once, for a 5-minute interval (the schedule rate carries it)', async () => {
    const { ticks, starts } = await invoke(300_000, { startAt: 700 });
    expect(ticks).toBe(1);
    expect(starts).toEqual([700]);
  });

  it('starts no tick with less than the reserve left before the function timeout', async () => {
    const { ticks, starts } = await invoke(10_000, { timeoutMs: 30_000 });
    // Deadline: 30 s - 5 s reserve = 25 s.
    expect(starts).toEqual([0, 10_000, 20_000]);
    expect(ticks).toBe(3);
  });

  it('ticks the rest of the current minute for an event without a scheduled time', async () => {
    const event = loadEvent<{ time: string }>(EventFile.scheduledTick);
    const { starts, began } = await invoke(20_000, { event, startAt: 5 * MINUTE + 25_000 });
    expect(starts).toEqual([5 * MINUTE + 20_000, 5 * MINUTE + 40_000]);
    expect(began[0]).toBe(5 * MINUTE + 25_000);
  });

  it('does nothing with the ticker off', async () => {
    const { ticks } = await invoke('off');
    expect(ticks).toBe(0);
    expect(runTick).not.toHaveBeenCalled();
  });
});

describe('tickWindow', () => {
  it('spans one schedule period from the scheduled time', () => {
    expect(tickWindow(scheduledAt(120_000), 1, 130_000)).toEqual({
      fromMs: 120_000,
      untilMs: 180_000,
      source: 'event',
    });
    expect(tickWindow(scheduledAt(0), 5, 1)).toMatchObject({ untilMs: 300_000 });
  });

  it("ignores an EventBridge rule's `time`: only the schedule's field names the window", () => {
    const event = { ...scheduledAt(60_000), time: new Date(0).toISOString() };
    expect(tickWindow(event, 1, 61_000).fromMs).toBe(60_000);
    expect(tickWindow({ time: new Date(0).toISOString() }, 1, 61_000).source).toBe('clock');
  });

  it('falls back to the period holding the current time when the event has no time', () => {
    expect(tickWindow({}, 1, 90_500)).toEqual({
      fromMs: 60_000,
      untilMs: 120_000,
      source: 'clock',
    });
    expect(tickWindow(undefined, 1, 90_500).source).toBe('clock');
  });

  it.each([['yesterday'], [42], ['']])(
    'rejects a scheduled time of %j, naming the field',
    (raw) => {
      const attempt = () => tickWindow({ [TICKER_SCHEDULED_TIME_FIELD]: raw }, 1, 0);
      expect(attempt).toThrow(InvalidInputError);
      expect(attempt).toThrow(`${TICKER_SCHEDULED_TIME_FIELD}: expected an ISO 8601 time`);
    },
  );
});
