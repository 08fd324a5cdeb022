/**
 * The flush protocol for one shard. Read this file top to bottom.
 *
 *   1. Read the shard record, and
 *   2. claim the flush, in one update: bump `epoch` conditionally (lease free
 *      or expired, not poisoned) → E; the update returns the record, so the
 *      claim is the read. Nothing pending → release, no S3 call at all. A
 *      refused claim reads the record once to say why (poisoned, busy, none),
 *      and takes the claim after all when the lease there is the one it just
 *      wrote (its response was lost: F5 in `claim.ts`).
 *      The lease is short and renewed while the flush runs (F4 in
 *      `lease-keeper.ts`), so a crashed flusher blocks its shard one lease.
 *      Before acting on the record, prove it is not behind S3: no export
 *      covers P = `walNextPos` (B1-B2 in `record-behind.ts`; a listing only
 *      when the commit that set P is older than half the WAL retention).
 *      One does: the record was rolled back (restored from a backup):
 *      poison and stop.
 *   3. Resolve the oldest pending batches: `durableSeq+1` upward, contiguous,
 *      up to the size cap; seal gaps that stayed empty past the timeout.
 *   4. Encode the WAL object for P = `walNextPos`; write it create-if-absent.
 *   5. If it already exists, read it: an object for this shard and position
 *      that starts at `durableSeq+1` and the expected row offset is a valid
 *      append by a crashed or zombie flusher (or our own lost ack): adopt it.
 *      Anything else means the record and S3 diverged: poison and stop, unless
 *      a newer flusher took over meanwhile (then we are a zombie reading a
 *      stale record: stop as fenced, C4 in commit.ts).
 *   6. Commit the cursors, conditional on `epoch = E` and `walNextPos = P`.
 *      A failed condition means a newer flusher took over: stop, nothing lost.
 *   7. Clear the pending marker only if no put arrived since (condition on
 *      `nextSeq`), in the commit's own update (C5 in commit.ts). A put that
 *      allocated meanwhile keeps the marker: its batch is pending. A marker
 *      with nothing pending behind it (left by an earlier version of this
 *      protocol) is cleared by the next claim, which finds nothing to flush.
 *      The covered batch items are left to expire (I5).
 *
 * Invariants:
 * I1. WAL position P holds exactly the batches durableSeq+1..lastSeq as the
 *     record stood when P was next, in seq order: no batch is lost, written
 *     twice, or reordered (steps 3-6).
 * I2. Positions are contiguous: P is taken from the record and committed as
 *     P+1 only by a commit conditional on `walNextPos = P` (C1 in commit.ts).
 * I3. Batch contents are immutable once written or sealed, so any flusher
 *     resolving from the same `durableSeq` encodes a prefix of the same rows;
 *     adopting another flusher's object never changes what a seq holds.
 * I4. A slot is never skipped: a 412 at P (zombie, or our own lost ack) is
 *     adopted, never "retried at P+1".
 * I5. No batch item is deleted: each expires by TTL (L5 in `lib/liveness.ts`),
 *     long after the commit that covers it, and a void only after every put
 *     that could still write its seq is gone (L4): it is what makes a late
 *     writer of a sealed seq fail its condition (GapSealedError) instead of
 *     landing rows below `durableSeq` that no flush will ever read.
 * I7. A gap is sealed only after a fresh read shows this flusher still holds
 *     the shard and the seq is still above `durableSeq`: a zombie resolving
 *     from a stale record sees covered (tidied) batches as gaps, and sealing
 *     them would only leave garbage below `durableSeq` (step 3).
 * I8. A flusher never writes a position an export covers (B1 in
 *     `record-behind.ts`): such a slot may be one retention deleted, so a
 *     create-if-absent there succeeds where step 5 would have caught the
 *     divergence, and rows written there are below every reader's start.
 * I9. A commit never leaves `durableSeq` at or past `nextSeq` (C6 in
 *     commit.ts): a record rolled back behind the batches (or the adopted
 *     object) it would commit is poisoned instead, or the next put would take
 *     a seq below `durableSeq` that no flush reads.
 * I6. Divergence and terminal append failures poison the shard; poison stops
 *     puts and claims and wakes durable waiters with the reason (C3). Only the
 *     current holder of the shard at P can poison it (C4): a fenced zombie
 *     never does.
 */
import { CorruptDataError, UnavailableError } from '../errors.js';
import { releaseLease, tryClaimFlush } from '../fence/claim.js';
import { commitFlush, poisonShard } from '../fence/commit.js';
import { keepLease, type LeaseTimers } from '../fence/lease-keeper.js';
import { readBatches, type StoredBatch } from '../memtable/batches.js';
import { clearPending } from '../memtable/pending-index.js';
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
import type { WalHeader, WalObject } from '../wal/format.js';
import { buildWalObject, contentMismatch } from './build-wal-object.js';
import { type FaultHook, FaultPoint } from './fault-points.js';
import { exportCovering, mustProveSlot } from './record-behind.js';
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
  const attempt = await tryClaimFlush(table, shard, deps.owner, deps.now(), deps.leaseMs);
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
  return { status: 'claimed', shard, epoch, record, stopKeeper: () => keeper.stop() };
}

/** Steps 3-7 under `held`; the lease keeper stops when they end. */
export async function flushHeld(deps: FlushDeps, held: HeldClaim): Promise<FlushOutcome> {
  try {
    return await flushClaimed(deps, held.shard, held.epoch, held.record);
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

/** Steps 3-7, under the claim of `epoch` (`record` as the claim left it). */
async function flushClaimed(
  deps: FlushDeps,
  shard: string,
  epoch: number,
  record: ShardRecord,
): Promise<FlushOutcome> {
  const { table, store, faults } = deps;
  const hit = async (point: FaultPoint) => faults?.(point, shard);
  if (!hasPendingBatches(record)) {
    // Nothing to flush (another flusher drained the shard since it was listed).
    const held = await releaseLease(table, shard, epoch);
    if (held && record.pending) {
      await hit(FaultPoint.beforeClearPending);
      await clearPending(table, shard, record.nextSeq);
    }
    return { status: 'idle', shard };
  }
  await hit(FaultPoint.afterClaim);
  const behind = await recordBehindS3(deps, record).catch(async (error: unknown) => {
    await releaseLease(table, shard, epoch); // a transient listing failure: the next tick retries
    throw error;
  });
  if (behind) return poison(deps, shard, behind, epoch, record.walNextPos);

  // 3. Resolve the oldest pending batches, as they stand now.
  const resolved = await resolveOldestPending(table, {
    record,
    epoch,
    maxBytes: deps.maxWalObjectBytes,
    gapSealMs: deps.gapSealMs,
    nowMs: deps.now(),
  });
  if (resolved.fenced) {
    // A zombie resolving from a stale record: a newer flusher covered these seqs (I7).
    await releaseLease(table, shard, epoch);
    return { status: 'fenced', shard, epoch, position: record.walNextPos };
  }
  if (resolved.batches.length === 0) {
    const held = await releaseLease(table, shard, epoch);
    if (!held) return { status: 'fenced', shard, epoch, position: record.walNextPos };
    return { status: 'waiting-on-gap', shard, seq: resolved.waitingOnSeq ?? record.durableSeq + 1 };
  }
  await hit(FaultPoint.afterResolve);

  // 4. Write create-if-absent at P.
  const position = record.walNextPos;
  const key = walKey(shard, position);
  const { header, body } = buildWalObject(record, epoch, resolved.batches, deps.now());
  let written: WalHeader = header;
  let adopted = false;
  let result: 'created' | 'exists';
  try {
    result = await store.putIfAbsent(key, body);
  } catch (error) {
    if (error instanceof UnavailableError) {
      await releaseLease(table, shard, epoch);
      throw error; // transient: the next tick retries from step 1
    }
    return poison(
      deps,
      shard,
      `WAL append at ${key} failed terminally: ${(error as Error).message}`,
      epoch,
      position,
    );
  }
  await hit(FaultPoint.afterWalWrite);

  // 5. Adopt or poison.
  let existing: WalObject | undefined;
  if (result === 'exists') {
    const verdict = await inspectExisting(
      store,
      key,
      record.durableSeq + 1,
      record.nextRowOffset,
      shard,
      position,
    ).catch(async (error: unknown) => {
      // A transient read failure: free the shard for the next tick rather than a whole lease.
      await releaseLease(table, shard, epoch);
      throw error;
    });
    if (typeof verdict === 'string') return poison(deps, shard, verdict, epoch, position);
    existing = verdict;
    written = verdict.header;
    adopted = true;
  }
  const covered = await coveredBatches(table, shard, resolved.batches, written.lastSeq);
  const mismatch = existing && contentMismatch(existing, covered);
  if (mismatch) {
    const reason = `shard record and S3 diverged at ${key}: ${mismatch}`;
    return poison(deps, shard, reason, epoch, position);
  }

  // 6-7. Commit, fenced by epoch and position, and drain the shard if no put allocated past the
  // object (C5). An adopted object may reach past what the claim saw allocated: the condition decides.
  const committed = await commitFlush(table, {
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
  if (!committed) return fencedOrBehind(deps, shard, epoch, position, written.lastSeq);
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
    adopted,
    sealed: resolved.sealed,
    lagMs: deps.now() - Math.min(...covered.map((batch) => batch.createdAtMs)),
    more,
  };
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
  shard: string,
  epoch: number,
  position: number,
  lastSeq: number,
): Promise<FlushOutcome> {
  const now = await readShardRecord(deps.table, shard);
  if (now?.epoch === epoch && now.walNextPos === position && now.nextSeq <= lastSeq) {
    const reason = `shard record is behind its batches: WAL position ${position} holds seqs through ${lastSeq}, the record's nextSeq is ${now.nextSeq} (a record restored from a backup?); \`shardwal recover ${shard}\` rebuilds it`;
    return poison(deps, shard, reason, epoch, position);
  }
  return { status: 'fenced', shard, epoch, position };
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

/** Poisons the shard as the holder of epoch E at P; a flusher fenced meanwhile stops as fenced (C4). */
async function poison(
  deps: FlushDeps,
  shard: string,
  reason: string,
  epoch: number,
  position: number,
): Promise<FlushOutcome> {
  if (await poisonShard(deps.table, shard, reason, deps.now(), { epoch, position })) {
    return { status: 'poisoned', shard, reason, detected: true };
  }
  const record = await readShardRecord(deps.table, shard);
  if (record?.poison) return { status: 'poisoned', shard, reason: record.poison, detected: false };
  return { status: 'fenced', shard, epoch, position };
}
