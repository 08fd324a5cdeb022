/**
 * The tick grid: ticks fall on multiples of the flush interval since the Unix
 * epoch, so any process (a durable waiter, a second ticker, an operator) can
 * predict the next commit moment from the interval and a clock alone.
 *
 * G1. A tick stands for one grid slot; the next is due at the following slot.
 * G2. Missed slots are delayed, not burst: a tick that overruns its interval
 *     makes the next one fire as soon as it ends, standing for the latest slot
 *     it passed (the earlier missed ones collapse into it), and ticks return
 *     to the grid after it. Ticks are never queued up back to back.
 */

/** The first grid instant strictly after `nowMs`. */
export function nextGridTick(nowMs: number, intervalMs: number): number {
  return (Math.floor(nowMs / intervalMs) + 1) * intervalMs;
}

/** The first grid instant at or after `nowMs`. */
export function gridCeil(nowMs: number, intervalMs: number): number {
  return Math.ceil(nowMs / intervalMs) * intervalMs;
}

/** The latest grid instant at or before `nowMs`. */
export function gridFloor(nowMs: number, intervalMs: number): number {
  return Math.floor(nowMs / intervalMs) * intervalMs;
}

/**
 * The slot a tick due at `dueSlotMs` stands for when it starts at
 * `startedAtMs` (G2): its due slot, or the latest slot it passed when it
 * starts late. A timer that fires a hair early still stands for its slot.
 */
export function slotOf(dueSlotMs: number, startedAtMs: number, intervalMs: number): number {
  return Math.max(dueSlotMs, gridFloor(startedAtMs, intervalMs));
}

/** When the tick after one that stood for `slotMs` and ended at `endedAtMs` fires (G1, G2). */
export function nextTickAt(
  slotMs: number,
  endedAtMs: number,
  intervalMs: number,
): { slotMs: number; atMs: number } {
  const next = slotMs + intervalMs;
  return { slotMs: next, atMs: Math.max(next, endedAtMs) };
}
