/**
 * Keeps a flush lease alive while the flush runs, so the lease itself can be
 * short: after a crash the shard is free again within one lease, not within
 * the longest flush anyone might run.
 *
 * F4. A running flusher renews its lease every third of the lease, each
 *     renewal conditional on its epoch and owner, so a renewal never extends
 *     a lease someone else now holds. Renewal is liveness only: correctness
 *     still comes from the conditional commit (F3 in `claim.ts`).
 */
import type { Table } from '../memtable/table.js';
import { renewLease } from './claim.js';

/** The timer a keeper uses; the simulation passes virtual time. */
export interface LeaseTimers {
  setTimeout: (fn: () => void, ms: number) => unknown;
  clearTimeout: (handle: unknown) => void;
}

/** Real timers that never keep the process alive on their own. */
const REAL_TIMERS: LeaseTimers = {
  setTimeout: (fn, ms) => {
    const handle = setTimeout(fn, ms);
    handle.unref?.();
    return handle;
  },
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/** Input of `keepLease`. */
export interface KeepLeaseInput {
  table: Table;
  shard: string;
  epoch: number;
  owner: string;
  leaseMs: number;
  now: () => number;
  timers?: LeaseTimers;
}

/** A running keeper. */
export interface LeaseKeeper {
  /** Stops renewing (the commit or release ends the lease itself). */
  stop: () => void;
  /** True once a renewal found the lease taken: the flush will be fenced at commit. */
  readonly lost: boolean;
}

/** Starts renewing (F4). */
export function keepLease(input: KeepLeaseInput): LeaseKeeper {
  const timers = input.timers ?? REAL_TIMERS;
  const periodMs = Math.max(1, Math.floor(input.leaseMs / 3));
  let handle: unknown;
  let stopped = false;
  let lost = false;
  const renew = async () => {
    if (stopped) return;
    try {
      const held = await renewLease(
        input.table,
        input.shard,
        { epoch: input.epoch, owner: input.owner },
        input.now(),
        input.leaseMs,
      );
      if (!held) {
        lost = true;
        stopped = true;
        return;
      }
    } catch {
      // A failed renewal is retried next period; the lease may lapse, which only costs liveness.
    }
    schedule();
  };
  const schedule = () => {
    if (!stopped) handle = timers.setTimeout(() => void renew(), periodMs);
  };
  schedule();
  return {
    stop: () => {
      stopped = true;
      if (handle !== undefined) timers.clearTimeout(handle);
    },
    get lost() {
      return lost;
    },
  };
}
