/**
 * The flush protocol for one shard. Read this file top to bottom: each step
 * is numbered where its code runs (`claimShard`, then `flushClaimed`).
 *
 *   1. Read the shard record, and
 *   2. claim the flush, in one update: bump `epoch` conditionally (lease free
 *      or expired, not poisoned) → E; the update returns the record, so the
 *      claim is the read (F1, F2 in `lib/fence/claim.ts`). A refused claim
 *      reads the record once to say why (poisoned, busy, none), and takes the
 *      claim after all when the lease there is the one it just wrote (its
 *      response was lost: F5 in `lib/fence/claim.ts`). The lease is short and
 *      renewed while the flush runs (F4 in `lib/fence/lease-keeper.ts`), so a
 *      crashed flusher blocks its shard one lease. Nothing pending → give the
 *      lease back, no S3 call at all.
 *      Before acting on the record, prove it is not behind S3: no export
 *      covers P = `walNextPos` (B1-B2 in `record-behind.ts`; a listing only
 *      when the commit that set P is older than half the WAL retention).
 *      One does: the record was rolled back (restored from a backup):
 *      poison and stop.
 *   3. Resolve the oldest pending batches: `durableSeq+1` upward, contiguous,
 *      up to the size cap; seal gaps that stayed empty past the timeout, only
 *      while this flusher still holds the shard (I7 in `resolve-pending.ts`).
 *   4. Encode the WAL object for P = `walNextPos`; write it create-if-absent.
 *   5. If it already exists, read it: an object for this shard and position
 *      that starts at `durableSeq+1` and the expected row offset, holding what
 *      the memtable holds for its seqs, is a valid append by a crashed or
 *      zombie flusher (or our own lost ack): adopt it. Anything else means the
 *      record and S3 diverged: poison and stop, unless a newer flusher took
 *      over meanwhile (then we are a zombie reading a stale record: stop as
 *      fenced, C4 in `lib/fence/commit.ts`).
 *   6. Commit the cursors, conditional on `epoch = E` and `walNextPos = P`
 *      (C1, C2 in `lib/fence/commit.ts`). A failed condition means a newer
 *      flusher took over: stop, nothing lost.
 *   7. Clear the pending marker only if no put arrived since (condition on
 *      `nextSeq`), in the commit's own update (C5 in `lib/fence/commit.ts`). A
 *      put that allocated meanwhile keeps the marker: its batch is pending. A
 *      marker with nothing pending behind it (left by an earlier version of
 *      this protocol) is cleared by the next claim, which finds nothing to
 *      flush. The covered batch items are left to expire (H2 in
 *      `lib/memtable/batch-item.ts`).
 *
 * The lease is given back in one place, at the end of `flushClaimed`, when
 * the flush stops short of a verdict: nothing pending, fenced while
 * resolving, a young gap to wait on, or the object store failing at step 4 or
 * 5 (the next tick retries from step 1). A commit removes the lease itself
 * (C1), a poisoned shard takes no claim (C3), and a crash or a failed
 * DynamoDB request leaves it to lapse.
 *
 * Invariants kept here (step 3's I7 is kept in `resolve-pending.ts`):
 * I1. WAL position P holds exactly the batches durableSeq+1..lastSeq as the
 *     record stood when P was next, in seq order: no batch is lost, written
 *     twice, or reordered (steps 3-6). What a seq holds never changes once
 *     written or sealed (H1 in `lib/memtable/batch-item.ts`), so adopting
 *     another flusher's object never changes it either (step 5).
 * I2. Positions are contiguous: P is taken from the record (step 4) and
 *     committed as P+1 only by a commit conditional on `walNextPos = P` (C1).
 * I4. A slot is never skipped: a 412 at P (zombie, or our own lost ack) is
 *     adopted, never "retried at P+1" (step 5).
 * I6. Divergence and terminal append failures poison the shard (steps 4-5);
 *     poison stops puts and claims and wakes durable waiters with the reason
 *     (C3). Only the current holder of the shard at P can poison it (C4): a
 *     fenced zombie never does.
 * I8. A flusher never writes a position an export covers (B1 in
 *     `record-behind.ts`): such a slot may be one retention deleted, so a
 *     create-if-absent there succeeds where step 5 would have caught the
 *     divergence, and rows written there are below every reader's start.
 * I9. A commit never leaves `durableSeq` at or past `nextSeq` (C6 in
 *     `lib/fence/commit.ts`): a record rolled back behind the batches (or the
 *     adopted object) it would commit is poisoned instead, or the next put
 *     would take a seq below `durableSeq` that no flush reads.
 * I10. A flusher never writes or commits a batch at a seq its claim had not
 *     seen allocated when that batch is older than the claim (B3 in
 *     `record-behind.ts`): it is an earlier timeline's, left behind a record
 *     restored from a backup, and a put of this record may be writing that
 *     seq anew once the old item expires. It poisons the shard instead.
 */
import { CorruptDataError, UnavailableError } from '../errors.js';
import { releaseLease, tryClaimFlush } from '../fence/claim.js';
import { commitFlush, poisonShard } from '../fence/commit.js';
import { keepLease, type LeaseTimers } from '../fence/lease-keeper.js';
import { clearPending } from '../memtable/pending-index.js';
import { readBatches, type StoredBatch } from '../memtable/read-batches.js';
import {
  hasPendingBatches,
  type RebuildFence,
  readShardRecord,
  rebuildFenceOf,
  type ShardRecord,
} from '../memtable/shard-record.js';
import type { Table } from '../memtable/table.js';
import { walKey } from '../paths.js';
import type { ObjectStore } from '../store/object-store.js';
import { decodeWal } from '../wal/decode.js';
import type { WalObject } from '../wal/format.js';
import { buildWalObject, contentMismatch } from './build-wal-object.js';
import { type FaultHook, FaultPoint } from './fault-points.js';
import { batchWrittenBeforeAllocation, exportCovering, mustProveSlot } from './record-behind.js';
import { resolveOldestPending } from './resolve-pending.js';

/** What the flusher needs. */
export interface FlushDeps {
  table: Table;
  store: ObjectStore;
  /** Identifies this flusher in the lease (e.g. a request id). */
  owner: string;
  maxWalObjectBytes: number;
  gapSealMs: number;
  leaseMs: number;
  /** `SHARDWAL_WAL_RETENTION_MS` and `SHARDWAL_CLOCK_SKEW_MS`: when P's slot needs a proof (B2 in `record-behind.ts`). */
  walRetentionMs: number;
  clockSkewMs: number;
  now: () => number;
  faults?: FaultHook;
  /** Timers of the lease keeper (F4 in `lease-keeper.ts`); real ones by default. */
  timers?: LeaseTimers;
}

/** The flusher's settings (a `ShardwalConfig` is one). */
export type FlushSettings = Pick<
  FlushDeps,
  'maxWalObjectBytes' | 'gapSealMs' | 'leaseMs' | 'walRetentionMs' | 'clockSkewMs'
>;

/** The flusher's settings picked from `config`: every builder of `FlushDeps` takes them here. */
export function flushSettings(config: FlushSettings): FlushSettings {
  const { maxWalObjectBytes, gapSealMs, leaseMs, walRetentionMs, clockSkewMs } = config;
  return { maxWalObjectBytes, gapSealMs, leaseMs, walRetentionMs, clockSkewMs };
}

/** How one flush attempt ended. */
export type FlushOutcome =
  | { status: 'idle'; shard: string }
  | { status: 'busy'; shard: string }
  | { status: 'waiting-on-gap'; shard: string; seq: number }
  | { status: 'fenced'; shard: string; epoch: number; position: number }
  | {
      status: 'poisoned';
      shard: string;
      reason: string /** This flush detected it. */;
      detected: boolean;
      /** The rebuild fence the shard is under, when the poison is a rebuild's. */
      rebuild?: RebuildFence | undefined;
    }
  | {
      status: 'flushed';
      shard: string;
      epoch: number;
      position: number;
      firstSeq: number;
      lastSeq: number;
      rows: number;
      walBytes: number;
      adopted: boolean;
      sealed: number[];
      /** Age of the oldest batch flushed, at flush time. */
      lagMs: number;
      /** Batches remain pending beyond this object (size cap or a young gap). */
      more: boolean;
    };

/** A claim held on a shard (steps 1-2), its lease kept alive until `flushHeld` ends. */
export interface HeldClaim {
  status: 'claimed';
  shard: string;
  epoch: number;
  /** The shard record as the claim left it. */
  record: ShardRecord;
  /** The claimer's clock just before the claim read the record (B3 in `record-behind.ts`). */
  claimedAtMs: number;
  /** Stops renewing the lease (F4 in `lease-keeper.ts`). */
  stopKeeper: () => void;
}

/** Runs the flush protocol once for `shard`. */
export async function flushShard(deps: FlushDeps, shard: string): Promise<FlushOutcome> {
  const held = await claimShard(deps, shard);
  return held.status === 'claimed' ? flushHeld(deps, held) : held;
}

/**
 * Steps 1-2: claims `shard`, reading the record in the same update, and
 * starts renewing the lease. A refused claim is the flush's outcome. A tick
 * may claim ahead of its grid slot and run `flushHeld` at the slot
 * (K1 in `lib/ticker/claim-lead.ts`): step 3 resolves as the batches stand
 * then, not as the claim saw them.
 */
export async function claimShard(
  deps: FlushDeps,
  shard: string,
): Promise<HeldClaim | FlushOutcome> {
  const { table } = deps;
  const claimedAtMs = deps.now();
  const attempt = await tryClaimFlush(table, shard, deps.owner, claimedAtMs, deps.leaseMs);
  if (!('claim' in attempt)) return refused(shard, attempt.refusedBy);
  const { epoch, record } = attempt.claim;
  const keeper = keepLease({
    table,
    shard,
    epoch,
    owner: deps.owner,
    leaseMs: deps.leaseMs,
    now: deps.now,
    timers: deps.timers,
  });
  return {
    status: 'claimed',
    shard,
    epoch,
    record,
    claimedAtMs,
    stopKeeper: () => keeper.stop(),
  };
}

/** Steps 3-7 under `held`; the lease keeper stops when they end. */
export async function flushHeld(deps: FlushDeps, held: HeldClaim): Promise<FlushOutcome> {
  try {
    return await flushClaimed(deps, held);
  } finally {
    held.stopKeeper();
  }
}

/** Why a claim was refused (`record` as the refusal read it): no such shard, poison, or another flusher's live lease. */
function refused(shard: string, record: ShardRecord | undefined): FlushOutcome {
  if (!record) return { status: 'idle', shard };
  if (record.poison) {
    // A rebuild's fence rides along: a tick takes it over once lapsed (T6 in lib/recovery/takeover.ts).
    const rebuild = rebuildFenceOf(record);
    return { status: 'poisoned', shard, reason: record.poison, detected: false, rebuild };
  }
  return { status: 'busy', shard };
}

/**
 * The flush stops short of a verdict: thrown inside `flushClaimed`'s steps,
 * caught at their end, where the lease goes back.
 */
class ShortStop {
  constructor(
    readonly why: 'idle' | 'fenced' | 'waiting-on-gap' | 'store-failed',
    /** The gap waited on, or the store's error. */
    readonly detail?: unknown,
  ) {}
}

/**
 * Steps 3-7 under `claim` (its record as the claim left it), in order. A
 * verdict (flushed, poisoned, or fenced at the commit) keeps the lease where
 * it is: the commit removed it (C1), a poisoned shard takes no claim (C3). A
 * short stop gives it back, in the one place at the end; a crash or a failed
 * DynamoDB request leaves it to lapse.
 */
async function flushClaimed(deps: FlushDeps, claim: HeldClaim): Promise<FlushOutcome> {
  const { shard, epoch, record } = claim;
  const hit = async (point: FaultPoint) => deps.faults?.(point, shard);
  try {
    // Nothing to flush (another flusher drained the shard since it was listed).
    if (!hasPendingBatches(record)) throw new ShortStop('idle');
    await hit(FaultPoint.afterClaim);
    // I8: a record rolled back behind S3 (restored from a backup) is poisoned, never acted on.
    const behind = await recordBehindS3(deps, record).catch((error: unknown) => {
      throw new ShortStop('store-failed', error); // a transient listing failure: the next tick retries
    });
    if (behind) return poison(deps, claim, behind);

    // 3. Resolve the oldest pending batches, as they stand now.
    const resolved = await resolveOldestPending(deps.table, {
      record,
      epoch,
      maxBytes: deps.maxWalObjectBytes,
      gapSealMs: deps.gapSealMs,
      nowMs: deps.now(),
    });
    // A zombie resolving from a stale record: a newer flusher covered these seqs
    // (I7 in resolve-pending.ts).
    if (resolved.fenced) throw new ShortStop('fenced');
    if (resolved.batches.length === 0) {
      throw new ShortStop('waiting-on-gap', resolved.waitingOnSeq ?? record.durableSeq + 1);
    }
    // I10: a batch the claim had not seen allocated, yet older than the claim: a rolled-back record.
    const unallocated = batchesBehind(deps, claim, resolved.batches);
    if (unallocated) return poison(deps, claim, unallocated);
    await hit(FaultPoint.afterResolve);

    // 4. Encode the WAL object for P = walNextPos (I2); write it create-if-absent.
    const position = record.walNextPos;
    const key = walKey(shard, position);
    const { header, body } = buildWalObject(record, epoch, resolved.batches, deps.now());
    let result: 'created' | 'exists';
    try {
      result = await deps.store.putIfAbsent(key, body);
    } catch (error) {
      // Transient: the next tick retries from step 1. Anything else is final (I6).
      if (error instanceof UnavailableError) throw new ShortStop('store-failed', error);
      return poison(
        deps,
        claim,
        `WAL append at ${key} failed terminally: ${(error as Error).message}`,
      );
    }
    await hit(FaultPoint.afterWalWrite);

    // 5. An object already at P: adopt it if it is this append (I4), else poison (I6).
    const existing = result === 'exists' ? await adoptable(deps, claim, key) : undefined;
    if (typeof existing === 'string') return poison(deps, claim, existing);
    const written = existing?.header ?? header;
    const covered = await coveredBatches(deps.table, shard, resolved.batches, written.lastSeq);
    const mismatch = existing && contentMismatch(existing, covered);
    if (mismatch) {
      return poison(deps, claim, `shard record and S3 diverged at ${key}: ${mismatch}`);
    }
    // I10 for the batches an adopted object reaches past what we resolved.
    const adoptedBehind = batchesBehind(deps, claim, covered);
    if (adoptedBehind) return poison(deps, claim, adoptedBehind);

    // 6-7. Commit, fenced by epoch and position, and drain the shard if no put allocated past the
    // object (C5). An adopted object may reach past what the claim saw allocated: the condition decides.
    const committed = await commitFlush(deps.table, {
      shard,
      epoch,
      position,
      lastSeq: written.lastSeq,
      nextRowOffset: written.firstRowOffset + written.rowCount,
      releasedThrough: releasedThrough(covered),
      pendingSinceMs: newestAllocation(covered),
      nowMs: deps.now(),
      drain: written.lastSeq >= record.nextSeq - 1,
    });
    if (!committed) return fencedOrBehind(deps, claim, written.lastSeq);
    await hit(FaultPoint.afterCommit);

    const more = hasPendingBatches(committed.record);
    return {
      status: 'flushed',
      shard,
      epoch,
      position,
      firstSeq: written.firstSeq,
      lastSeq: written.lastSeq,
      rows: written.rowCount,
      walBytes: body.length,
      adopted: existing !== undefined,
      sealed: resolved.sealed,
      lagMs: deps.now() - Math.min(...covered.map((batch) => batch.createdAtMs)),
      more,
    };
  } catch (error) {
    if (!(error instanceof ShortStop)) throw error;
    // The lease goes back; a gap waiter or an idle claim that finds it no longer its own was
    // fenced meanwhile (and leaves the pending marker to the newer holder).
    const held = await releaseLease(deps.table, shard, epoch);
    if (error.why === 'idle' && held && record.pending) {
      // Step 7 for a marker with nothing pending behind it.
      await hit(FaultPoint.beforeClearPending);
      await clearPending(deps.table, shard, record.nextSeq);
    }
    return shortStopOutcome(claim, error, held);
  }
}

/** How a flush that stopped short ended, once its lease went back (`held`: it was still ours). */
function shortStopOutcome(claim: HeldClaim, stop: ShortStop, held: boolean): FlushOutcome {
  const { shard, epoch } = claim;
  const fenced = { status: 'fenced', shard, epoch, position: claim.record.walNextPos } as const;
  switch (stop.why) {
    case 'idle':
      return { status: 'idle', shard };
    case 'fenced':
      return fenced;
    case 'waiting-on-gap':
      return held ? { status: 'waiting-on-gap', shard, seq: stop.detail as number } : fenced;
    case 'store-failed':
      throw stop.detail; // transient: the next tick retries from step 1
  }
}

/**
 * Step 5: the object already at `key` if it is the append this record calls
 * for (I4), or why not (I6). A failure to read it stops short: the next tick
 * tries again, rather than the shard waiting out a lease.
 */
function adoptable(deps: FlushDeps, claim: HeldClaim, key: string): Promise<WalObject | string> {
  const { shard, record } = claim;
  return inspectExisting(
    deps.store,
    key,
    record.durableSeq + 1,
    record.nextRowOffset,
    shard,
    record.walNextPos,
  ).catch((error: unknown) => {
    throw new ShortStop('store-failed', error);
  });
}

/**
 * The newest allocation time among the covered batches: every batch still
 * pending after them was allocated later, so this bounds the age of the
 * shard's oldest pending data from above (L5 in `lib/liveness.ts`).
 */
function newestAllocation(covered: readonly StoredBatch[]): number | undefined {
  let newest: number | undefined;
  for (const batch of covered) {
    if (batch.allocatedAtMs !== undefined) newest = Math.max(newest ?? 0, batch.allocatedAtMs);
  }
  return newest;
}

/**
 * A refused commit (step 6): fenced by a newer flusher, or, still holding the
 * shard at P, refused by C6 because the record's `nextSeq` is not past the
 * object's last seq: the record was rolled back behind its batches (I9).
 */
async function fencedOrBehind(
  deps: FlushDeps,
  claim: HeldClaim,
  lastSeq: number,
): Promise<FlushOutcome> {
  const { shard, epoch } = claim;
  const position = claim.record.walNextPos;
  const now = await readShardRecord(deps.table, shard);
  if (now?.epoch === epoch && now.walNextPos === position && now.nextSeq <= lastSeq) {
    const reason = `shard record is behind its batches: WAL position ${position} holds seqs through ${lastSeq}, the record's nextSeq is ${now.nextSeq} (a record restored from a backup?); \`shardwal recover ${shard}\` rebuilds it`;
    return poison(deps, claim, reason);
  }
  return { status: 'fenced', shard, epoch, position };
}

/** I10: why the claim's record is behind the batches about to be flushed (B3 in `record-behind.ts`), or undefined. */
function batchesBehind(
  deps: FlushDeps,
  claim: HeldClaim,
  batches: readonly StoredBatch[],
): string | undefined {
  const { record, claimedAtMs } = claim;
  const batch = batchWrittenBeforeAllocation(
    record.nextSeq,
    claimedAtMs,
    deps.clockSkewMs,
    batches,
  );
  if (!batch) return undefined;
  return `shard record is behind its batches: seq ${batch.seq} holds a batch written at ${batch.createdAtMs}, before the claim at ${claimedAtMs} read nextSeq ${record.nextSeq} (a record restored from a backup?); \`shardwal recover ${record.shard}\` rebuilds it`;
}

/** I8: why the record is behind S3 (an export covers its `walNextPos`), or undefined. */
async function recordBehindS3(deps: FlushDeps, record: ShardRecord): Promise<string | undefined> {
  const position = record.walNextPos;
  const atMs = record.walNextPosAtMs;
  if (!mustProveSlot(atMs, deps.now(), deps.walRetentionMs, deps.clockSkewMs)) return undefined;
  const key = await exportCovering(deps.store, record.shard, position);
  if (key === undefined) return undefined;
  return `shard record is behind S3: the export ${key} covers WAL position ${position}, the record's walNextPos (a record restored from a backup?); \`shardwal recover ${record.shard}\` rebuilds it`;
}

/** The cumulative charge through the last covered batch that records one (A2 in allocate.ts). */
function releasedThrough(covered: readonly StoredBatch[]): number | undefined {
  let through: number | undefined;
  for (const batch of covered) if (batch.chargeEnd !== undefined) through = batch.chargeEnd;
  return through;
}

/** Step 5: the existing object if its header is adoptable, or the divergence reason. */
async function inspectExisting(
  store: ObjectStore,
  key: string,
  firstSeq: number,
  firstRowOffset: number,
  shard: string,
  position: number,
): Promise<WalObject | string> {
  const bytes = await store.get(key);
  if (!bytes) return `WAL object ${key} reported existing but could not be read`;
  let object: WalObject;
  try {
    object = decodeWal(key, bytes);
  } catch (error) {
    if (error instanceof CorruptDataError)
      return `WAL object ${key} already exists and is unreadable: ${error.message}`;
    throw error;
  }
  const { header } = object;
  const expected = { shard, position, firstSeq, firstRowOffset };
  const actual = {
    shard: header.shard,
    position: header.position,
    firstSeq: header.firstSeq,
    firstRowOffset: header.firstRowOffset,
  };
  if (JSON.stringify(expected) !== JSON.stringify(actual)) {
    return `shard record and S3 diverged at ${key}: expected ${JSON.stringify(expected)}, found ${JSON.stringify(actual)}`;
  }
  return object;
}

/** The batches an adopted object covers (it may cover more or fewer than we resolved). */
async function coveredBatches(
  table: Table,
  shard: string,
  resolved: StoredBatch[],
  lastSeq: number,
): Promise<StoredBatch[]> {
  const mine = resolved.filter((batch) => batch.seq <= lastSeq);
  const ourLast = resolved.at(-1)?.seq ?? 0;
  if (lastSeq <= ourLast) return mine;
  const rest = await readBatches(table, {
    shard,
    fromSeq: ourLast + 1,
    toSeq: lastSeq,
    maxBytes: Number.MAX_SAFE_INTEGER,
  });
  return [...mine, ...rest];
}

/** Poisons the shard as the holder of epoch E at P (I6); a flusher fenced meanwhile stops as fenced (C4). */
async function poison(deps: FlushDeps, claim: HeldClaim, reason: string): Promise<FlushOutcome> {
  const { shard, epoch } = claim;
  const position = claim.record.walNextPos;
  if (await poisonShard(deps.table, shard, reason, deps.now(), { epoch, position })) {
    return { status: 'poisoned', shard, reason, detected: true };
  }
  const record = await readShardRecord(deps.table, shard);
  if (record?.poison) return { status: 'poisoned', shard, reason: record.poison, detected: false };
  return { status: 'fenced', shard, epoch, position };
}
