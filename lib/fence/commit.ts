/**
 * Step 6 of the flush protocol, and poisoning.
 *
 * Invariants kept here:
 * C1. The cursors move only by a commit conditional on `epoch = E` and
 *     `walNextPos = P`: a flusher fenced by a newer claim, or racing a commit
 *     of the same position, changes nothing.
 * C2. `durableSeq`, `walNextPos` and `nextRowOffset` move together in one
 *     update, so they always describe the same WAL prefix.
 * C3. Poison is sticky: only recovery clears it, and a poisoned shard admits
 *     no put and no flush claim.
 * C4. A flusher poisons only while it still holds the shard at P (same
 *     condition as C1): a fenced zombie resolves from a stale record, so its
 *     "divergence" at a slot a newer flusher already committed is not one.
 * C5. A commit that covers every batch allocated so far also does step 7 in
 *     the same update (`drain`): it clears the pending marker and zeroes the
 *     buffered bytes, conditional on `nextSeq = lastSeq + 1` besides C1. A put
 *     that allocated meanwhile fails that condition, and the commit is sent
 *     again without the drain, so its batch keeps the marker. DynamoDB (and
 *     the emulator) do not say which part of a condition failed, so the
 *     second try also settles whether the flusher was fenced.
 * C6. A commit never moves `durableSeq` to or past `nextSeq`: every batch it
 *     covers was allocated, so `nextSeq > lastSeq` holds unless the record
 *     was rolled back (restored from a backup) behind batch items or a WAL
 *     object it adopted. The commit is conditional on it; the flusher reads
 *     the refusal and poisons the shard (I9 in `lib/flush/flush-shard.ts`),
 *     since the next put would take a seq at or below `durableSeq`, which no
 *     flush ever reads.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { DRAIN_SET, PENDING_MARKER } from '../memtable/pending-index.js';
import { type ShardRecord, updateShardRecord } from '../memtable/shard-record.js';
import type { Table } from '../memtable/table.js';

/** The cursor movement of one committed WAL object. */
export interface CommitInput {
  shard: string;
  epoch: number;
  /** Position of the WAL object being committed. */
  position: number;
  lastSeq: number;
  nextRowOffset: number;
  /**
   * Cumulative charge through the last covered batch that records one (A2 in
   * `allocate.ts`); undefined when none does (voids sealed by a flusher), in
   * which case the charges stay buffered until a later commit releases them.
   */
  releasedThrough: number | undefined;
  /** The newest allocation time of the covered batches (L5 in `lib/liveness.ts`), when recorded. */
  pendingSinceMs?: number | undefined;
  /** No batch the claim saw allocated lies past `lastSeq`: try to drain the shard too (C5). */
  drain?: boolean;
  /** The committer's clock, recorded as `walNextPosAtMs` (B2 in `lib/flush/record-behind.ts`). */
  nowMs?: number;
}

/** A committed WAL append. */
export interface Committed {
  record: ShardRecord;
  /** The same update cleared the pending marker (C5). */
  drained: boolean;
}

/** The fence of C1: the holder of the epoch, at the position it appended. */
const FENCE = 'epoch = :epoch AND walNextPos = :pos';
/** C1 at position 0, where a fresh record has no `walNextPos` yet. */
const FENCE_AT_ZERO = 'epoch = :epoch AND (attribute_not_exists(walNextPos) OR walNextPos = :pos)';

/** Commits a WAL append and releases the lease; undefined when fenced. */
export async function commitFlush(
  table: Table,
  input: CommitInput,
): Promise<Committed | undefined> {
  if (input.drain) {
    const record = await sendCommit(table, input, true);
    if (record) return { record, drained: true };
  }
  const record = await sendCommit(table, input, false);
  return record && { record, drained: false };
}

/** One commit update: the plain one, or the one that also drains the shard (C5). */
function sendCommit(
  table: Table,
  input: CommitInput,
  drain: boolean,
): Promise<ShardRecord | undefined> {
  const values: Record<string, AttributeValue> = {
    ':lastSeq': { N: String(input.lastSeq) },
    ':nextPos': { N: String(input.position + 1) },
    ':nextRow': { N: String(input.nextRowOffset) },
    ':epoch': { N: String(input.epoch) },
    ':pos': { N: String(input.position) },
  };
  let set = '';
  let remove = '';
  let condition = input.position === 0 ? FENCE_AT_ZERO : FENCE;
  if (input.nowMs !== undefined) {
    set = ', walNextPosAtMs = :committedAt';
    values[':committedAt'] = { N: String(input.nowMs) };
  }
  if (drain) {
    // Step 7 in the same update: every charge released, the marker gone.
    set += `, ${DRAIN_SET}`;
    remove = `, ${PENDING_MARKER.join(', ')}`;
    values[':zero'] = { N: '0' };
    values[':next'] = { N: String(input.lastSeq + 1) };
    condition += ' AND nextSeq = :next';
  } else {
    condition += ' AND nextSeq > :lastSeq'; // C6
    if (input.releasedThrough !== undefined) {
      // Server-side arithmetic: bufferedBytes = chargedBytes - releasedBytes, exactly (A2).
      set +=
        ', releasedBytes = :released, bufferedBytes = if_not_exists(chargedBytes, :zero) - :released';
      values[':released'] = { N: String(input.releasedThrough) };
      values[':zero'] = { N: '0' };
    }
    if (input.pendingSinceMs !== undefined) {
      // Every batch still pending was allocated after the covered ones: a tighter bound.
      set += ', pendingSinceMs = :pendingSince';
      values[':pendingSince'] = { N: String(input.pendingSinceMs) };
    }
  }
  return updateShardRecord(
    table,
    input.shard,
    {
      update: `SET durableSeq = :lastSeq, walNextPos = :nextPos, nextRowOffset = :nextRow${set} REMOVE leaseOwner, leaseExpiresAtMs${remove}`,
      condition,
      values,
    },
    drain ? 'UpdateItem commit and drain' : 'UpdateItem commit flush',
  );
}

/** The flusher a poison verdict comes from: its epoch and the position it was appending. */
export interface PoisonHolder {
  epoch: number;
  position: number;
}

/**
 * Poisons the shard with `reason` (first reason wins). With `holder`, only
 * while that flusher still holds the shard at that position (C4). True when
 * this call set the poison.
 */
export async function poisonShard(
  table: Table,
  shard: string,
  reason: string,
  nowMs: number,
  holder?: PoisonHolder,
): Promise<boolean> {
  const values: Record<string, AttributeValue> = {
    ':reason': { S: reason },
    ':now': { N: String(nowMs) },
  };
  let condition = 'attribute_not_exists(poison)';
  if (holder) {
    values[':epoch'] = { N: String(holder.epoch) };
    values[':pos'] = { N: String(holder.position) };
    condition += ` AND ${holder.position === 0 ? FENCE_AT_ZERO : FENCE}`;
  }
  const out = await updateShardRecord(
    table,
    shard,
    {
      update: 'SET poison = :reason, poisonedAtMs = :now',
      condition: condition,
      values: values,
    },
    'UpdateItem poison shard',
  );
  return out !== undefined;
}
