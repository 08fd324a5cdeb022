/**
 * The one liveness bound — how long a put can still write — and everything
 * derived from it. Each time bound that protects a put in flight is stated
 * here once, next to why it is long enough.
 *
 * L1. A put writes its batch within `putDeadlineMs` of its start, or never:
 *     the put path checks its deadline before every batch write and gives up
 *     (sealing its own seq) once it has passed (`lib/put/put-deadline.ts`). In
 *     Lambda the deadline is also capped by the invocation's remaining time.
 * L2. The gap seal is at least the deadline plus the clock skew: a flusher
 *     seals an allocated seq only once the put that allocated it can no
 *     longer write it, by the put's own clock (`lib/config.ts` refuses less).
 * L3. The idempotency reservation lease is at least the deadline plus the
 *     clock skew: a retry takes over a reservation only once its put can no
 *     longer write.
 * L4. A void is a tombstone for `voidLifetimeMs`: longer than any put that
 *     could still write its seq (deadline + gap seal + skew), and longer than
 *     any idempotency record that could still ask what its seq holds (the
 *     idempotency window + the reservation lease + the gap seal + skew). A
 *     takeover reads "no item at a seq at or below `durableSeq`" as "the
 *     batch landed and was flushed", which holds only while voids persist:
 *     so a reservation names only a seq its put allocated within its
 *     deadline, and the takeover's read counts only within the key's window
 *     (`lib/put/claim-key.ts`, `settle-seq.ts`).
 *     Nothing (flush, verify, rebuild) removes a void any earlier.
 * L5. Batch items expire (DynamoDB TTL, free) `batchExpiryMs` after they were
 *     written, never deleted by a request (a delete is billed like a write).
 *     The flusher reads only above `durableSeq`, and a takeover reads an
 *     empty seq at or below it as flushed (L4), so an expired item is never
 *     missed. A pending batch must never expire: a shard whose oldest pending
 *     batch is older than half the expiry refuses new puts
 *     (`stallRefusalMs`, checked by the allocation), and the scheduled
 *     verify extends the expiry of pending items that near it.
 * L6. A rebuild killed after its fence no longer holds its shard closed once
 *     `rebuildTakeoverMs` has passed since it last renewed its lease: the
 *     lease lapses `leaseMs` after that renewal, a taker waits the clock skew
 *     more (the lease was dated by the rebuild's clock), and the next tick
 *     (`flushIntervalMs`) finds the fenced shard in the pending index and
 *     takes the rebuild over, which then runs for as long as a rebuild of
 *     that shard runs (`lib/recovery/takeover.ts`). With the ticker off the
 *     next verify or recover does it.
 * Correctness never rests on these clocks alone: a void seal and a batch
 * write are both conditional on the seq being empty, so exactly one of them
 * defines what a seq holds. The bounds decide who gets an error, never what
 * is stored.
 */
import type { ShardwalConfig } from './config.js';

/** The settings the derived bounds depend on. */
export type LivenessSettings = Pick<
  ShardwalConfig,
  'putDeadlineMs' | 'clockSkewMs' | 'gapSealMs' | 'reservationLeaseMs' | 'idempotencyTtlMs'
>;

/** How long a void tombstone must outlive its seal (L4). */
export function voidLifetimeMs(settings: LivenessSettings): number {
  const putAlive = settings.putDeadlineMs + settings.gapSealMs + settings.clockSkewMs;
  const askable =
    settings.idempotencyTtlMs +
    settings.reservationLeaseMs +
    settings.gapSealMs +
    settings.clockSkewMs;
  return Math.max(putAlive, askable);
}

/** How long a batch item lives after it was written (L5): as long as a void. */
export function batchExpiryMs(settings: LivenessSettings): number {
  return voidLifetimeMs(settings);
}

/** Pending this long, a shard refuses new puts (L5): half the expiry, far before any loss. */
export function stallRefusalMs(settings: LivenessSettings): number {
  return Math.floor(batchExpiryMs(settings) / 2);
}

/** How long the memtable's items live (L4, L5). */
export interface ItemLifetimes {
  voidMs: number;
  batchMs: number;
}

/** The item lifetimes of `settings`. */
export function itemLifetimes(settings: LivenessSettings): ItemLifetimes {
  return { voidMs: voidLifetimeMs(settings), batchMs: batchExpiryMs(settings) };
}

/** The settings the takeover bound depends on (L6). */
export type TakeoverSettings = Pick<ShardwalConfig, 'leaseMs' | 'clockSkewMs' | 'flushIntervalMs'>;

/**
 * How long after a rebuild's last lease renewal a tick has taken its
 * abandoned rebuild over (L6), the takeover's own run not counted:
 * lease + clock skew + one flush interval (7 s with the defaults). With the
 * ticker off, lease + skew: then the next verify or recover is the taker.
 */
export function rebuildTakeoverMs(settings: TakeoverSettings): number {
  return settings.leaseMs + settings.clockSkewMs + (settings.flushIntervalMs ?? 0);
}

/**
 * Seconds a put refused by a rebuild's fence is told to wait (`Retry-After`):
 * until the takeover bound of the fence as it stands (L6), the lease's
 * remaining time + clock skew + one flush interval, at least 1.
 */
export function rebuildRetryAfterSeconds(
  leaseExpiresAtMs: number | undefined,
  nowMs: number,
  settings: TakeoverSettings,
): number {
  const leaseLeftMs = Math.max(0, (leaseExpiresAtMs ?? nowMs) - nowMs);
  const afterLapseMs = rebuildTakeoverMs(settings) - settings.leaseMs;
  return Math.max(1, Math.ceil((leaseLeftMs + afterLapseMs) / 1000));
}
