/**
 * Maps the one configured flush interval onto EventBridge, whose finest rate
 * is one minute: intervals under a minute run as ticks inside one scheduled
 * invocation per minute; intervals of whole minutes map to the schedule rate.
 */

import { SETTINGS } from '../config.js';
import { ConfigError } from '../errors.js';

/** EventBridge's finest schedule rate. */
export const MINUTE_MS = 60_000;

/** How a flush interval is realised on a minute-granular scheduler. */
export interface SchedulePlan {
  /** Schedule rate in whole minutes. */
  rateMinutes: number;
  /** Ticks one invocation runs, `tickIntervalMs` apart (the first at once). */
  ticksPerInvocation: number;
  /** Time between ticks inside an invocation. */
  tickIntervalMs: number;
}

/** Plans the schedule for `intervalMs`; rejects what the config rules reject. */
export function planSchedule(intervalMs: number): SchedulePlan {
  const env = SETTINGS.flushIntervalMs.env;
  if (!Number.isInteger(intervalMs) || intervalMs <= 0) {
    throw new ConfigError(env, intervalMs, 'expected a whole number of at least 1');
  }
  if (intervalMs < MINUTE_MS) {
    return {
      rateMinutes: 1,
      ticksPerInvocation: Math.floor(MINUTE_MS / intervalMs),
      tickIntervalMs: intervalMs,
    };
  }
  if (intervalMs % MINUTE_MS !== 0) {
    throw new ConfigError(env, intervalMs, 'intervals of a minute or more must be whole minutes');
  }
  return { rateMinutes: intervalMs / MINUTE_MS, ticksPerInvocation: 1, tickIntervalMs: intervalMs };
}
