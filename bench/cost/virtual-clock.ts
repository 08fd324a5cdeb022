/**
 * Virtual time for the cost benchmark. Capacity units do not depend on how
 * fast the machine is, so a workload of "100 puts/s" runs its puts and
 * ticks in order as fast as the machine goes, each stamped with the virtual
 * instant it stands for. The real ticker loop (`runTicksUntil`) sleeps on
 * this clock; its sleeps are where the puts of the interval happen.
 */

/** Work scheduled at a virtual instant. */
export type Due = { atMs: number; run: () => Promise<void> };

/** A clock that moves only when told, and a queue of work due at virtual instants. */
export class VirtualClock {
  #nowMs: number;
  #queue: Due[] = [];

  constructor(startMs: number) {
    this.#nowMs = startMs;
  }

  /** The current virtual time; bound, so it can be passed as `now`. */
  readonly now = (): number => this.#nowMs;

  /** Queues `run` at `atMs` (kept in time order; equal instants keep their order). */
  schedule(atMs: number, run: () => Promise<void>): void {
    let at = this.#queue.length;
    while (at > 0 && this.#queue[at - 1]!.atMs > atMs) at--;
    this.#queue.splice(at, 0, { atMs, run });
  }

  /** Work still queued. */
  get pending(): number {
    return this.#queue.length;
  }

  /**
   * Sleeps `ms` of virtual time: runs, in order and one at a time, the work
   * due before the wake-up (the clock set to each one's instant), then sets
   * the clock to the wake-up. Bound, so it can be passed as `sleep`.
   */
  readonly sleep = async (ms: number): Promise<void> => {
    await this.runUntil(this.#nowMs + Math.max(0, ms));
  };

  /** Runs the work due before `untilMs`, then sets the clock to `untilMs` (never backwards). */
  async runUntil(untilMs: number): Promise<void> {
    while (this.#queue.length > 0 && this.#queue[0]!.atMs < untilMs) {
      const due = this.#queue.shift()!;
      this.#nowMs = Math.max(this.#nowMs, due.atMs);
      await due.run();
    }
    this.#nowMs = Math.max(this.#nowMs, untilMs);
  }
}
