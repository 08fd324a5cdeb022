/**
 * Claims lead the slot: a tick lists its shards and claims its first wave a
 * little before its grid slot, and resolves their batches at the slot, so a
 * durable put's commit lands one resolve, one S3 PUT and one commit after
 * the slot instead of a listing and a claim later as well.
 *
 * K1. A tick for slot T starts `lead` before T: it lists the pending shards
 *     and claims the first wave (as many as it flushes at once). At T each
 *     claimed shard resolves its batches as they stand then, including those
 *     allocated after the claim (`resolve-pending.ts`). Nothing is resolved
 *     before T, so "the oldest pending batches at the tick" keeps its meaning.
 * K2. At T the tick lists again. A shard that turned pending during the
 *     lead, or whose early claim was refused or found nothing to flush (that
 *     claim is released first), is claimed at T like any other. A failed
 *     second listing costs those shards one tick, never the shards already
 *     claimed.
 * K3. A claim held through the lead is an ordinary claim: its keeper renews
 *     the lease (F4) and its commit is fenced by its epoch (F3). A flush
 *     request for that shard meanwhile finds it busy; the tick flushes it at T.
 * K4. The lead is learned per process (`ClaimLead`): a wave ready after its
 *     slot lengthens it by a fifth, one ready in time shortens it by 3 %, so
 *     about one tick in seven resolves a little after its slot. It stays
 *     within [1 ms, a quarter of the interval].
 * K5. Only a busy process leads: a tick claims ahead when the tick before it
 *     found pending shards. Otherwise it waits for its slot and lists once,
 *     as an idle service's ticks always have (the second listing of K2 is a
 *     read per tick, paid only while there is data to flush).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import {
  claimShard,
  type FlushDeps,
  type FlushOutcome,
  flushHeld,
  type HeldClaim,
} from '../flush/flush-shard.js';
import { reportFlush, reportFlushError, runReported, type TimedOutcome } from '../flush/report.js';
import { listPendingShards } from '../memtable/pending-index.js';
import { hasPendingBatches } from '../memtable/shard-record.js';
import { logger } from '../observability/telemetry.js';

/** Tunables of the lead (K4). */
export const CLAIM_LEAD = {
  /** Lead before any tick was measured: a listing and a claim, with room. */
  initialMs: 25,
  /** Growth after a wave that was ready late. */
  lateFactor: 1.2,
  /** Shrink after a wave that was ready in time. */
  earlyFactor: 0.97,
  /** Largest lead, as a share of the interval. */
  maxShare: 0.25,
} as const;

/** How long before its slot a tick starts claiming, learned from earlier ticks (K4). */
export class ClaimLead {
  #ms: number;
  #busy = false;

  constructor(initialMs: number = CLAIM_LEAD.initialMs) {
    this.#ms = Math.max(1, initialMs);
  }

  /** The lead for `intervalMs`. */
  ms(intervalMs: number): number {
    const bound = Math.max(1, Math.floor(intervalMs * CLAIM_LEAD.maxShare));
    return Math.max(1, Math.min(Math.round(this.#ms), bound));
  }

  /** Whether the last tick found pending shards, so the next one claims ahead (K5). */
  get busy(): boolean {
    return this.#busy;
  }

  /** Records how many pending shards a tick found (K5). */
  sawShards(count: number): void {
    this.#busy = count > 0;
  }

  /** Folds in one wave: ready at `readyAtMs` for the slot at `slotMs`. */
  observe(readyAtMs: number, slotMs: number, intervalMs: number): void {
    const bound = Math.max(1, intervalMs * CLAIM_LEAD.maxShare);
    const next =
      readyAtMs > slotMs ? this.#ms * CLAIM_LEAD.lateFactor + 1 : this.#ms * CLAIM_LEAD.earlyFactor;
    this.#ms = Math.max(1, Math.min(next, bound));
  }
}

/** The lead ticks of this process use unless told otherwise. */
export const processClaimLead = new ClaimLead();

/** The lead of this process's ticks at `intervalMs` (what a ticker loop starts them by). */
export function claimLeadMs(intervalMs: number): number {
  return processClaimLead.ms(intervalMs);
}

/** The grid slot a tick stands for, when it can claim ahead of it (K1). */
export interface TickSlot {
  atMs: number;
  /** Waits `ms`; the real timer by default. */
  sleep?: (ms: number) => Promise<void>;
  intervalMs: number;
  /** Learned lead; the process's by default. */
  lead?: ClaimLead;
}

/** What `claimAhead` leaves the tick: every shard to handle, and the flushes already begun. */
export interface AheadOfSlot {
  /** The first listing's shards, then those the second one added. */
  shards: string[];
  /** Outcomes begun or settled before the tick's own flushes; a claim's time counts in. */
  flushes: Map<string, Promise<TimedOutcome>>;
}

/** The first wave of a tick that listed `listed` shards, and its flushes' byte cap (P1, P3). */
export type WavePlan = (listed: number) => { wave: number; flushBytes: number };

/**
 * K1-K2: lists, claims the first wave the plan gives, waits for the slot,
 * starts their flushes, then lists again.
 */
export async function claimAhead(
  flush: FlushDeps,
  slot: TickSlot,
  planWave: WavePlan,
): Promise<AheadOfSlot> {
  const listed = await listPendingShards(flush.table);
  const first = planWave(listed.length);
  const deps = { ...flush, maxWalObjectBytes: first.flushBytes };
  const wave = listed.slice(0, first.wave);
  const claims = await Promise.all(wave.map((shard) => claimTimed(deps, shard)));
  (slot.lead ?? processClaimLead).observe(deps.now(), slot.atMs, slot.intervalMs);
  await sleepUntil(slot, deps.now);
  const flushes = new Map<string, Promise<TimedOutcome>>();
  const unsettled: Array<{ shard: string; flush: Promise<TimedOutcome> }> = [];
  for (const [i, { held, claimMs }] of claims.entries()) {
    const shard = wave[i]!;
    if (held?.status === 'claimed') {
      const flush = runReported(shard, deps.now, () => flushHeld(deps, held), claimMs);
      // Nothing pending when claimed: it releases at once, so a put since can be flushed (K2).
      if (hasPendingBatches(held.record)) flushes.set(shard, flush);
      else unsettled.push({ shard, flush });
    } else {
      // Refused or failed (a failure was reported by the claim).
      if (held) reportFlush(held, claimMs);
      unsettled.push({ shard, flush: Promise.resolve({ outcome: held, ms: claimMs }) });
    }
  }
  await Promise.all(unsettled.map(({ flush }) => flush));
  const again = await listPendingShards(deps.table).catch((error: unknown) => {
    logger.warn('second listing of the tick failed; shards that turned pending wait a tick', {
      error: error as Error,
    });
    return undefined;
  });
  const known = new Set(listed);
  const added = (again ?? []).filter((shard) => !known.has(shard));
  const pendingNow = new Set(again ?? []);
  // An unsettled shard pending again is flushed at the slot like any other; else this was its tick.
  for (const { shard, flush } of unsettled) if (!pendingNow.has(shard)) flushes.set(shard, flush);
  return { shards: [...listed, ...added], flushes };
}

async function claimTimed(
  deps: FlushDeps,
  shard: string,
): Promise<{ held: HeldClaim | FlushOutcome | undefined; claimMs: number }> {
  const started = deps.now();
  try {
    const held = await claimShard(deps, shard);
    return { held, claimMs: deps.now() - started };
  } catch (error) {
    reportFlushError(shard, error);
    return { held: undefined, claimMs: deps.now() - started };
  }
}

/**
 * Sleeps until `slot`, if it is still ahead, for at most one interval: a wall
 * clock that stepped back since the slot was chosen cannot stall the tick
 * (T7 in `ticker.ts`).
 */
export async function sleepUntil(slot: TickSlot, now: () => number): Promise<void> {
  const wait = Math.min(slot.atMs - now(), slot.intervalMs);
  if (wait > 0) await (slot.sleep ?? sleep)(wait);
}
