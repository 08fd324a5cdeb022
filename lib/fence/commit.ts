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
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
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
}

/** Commits a WAL append and releases the lease; the new record, or undefined when fenced. */
export async function commitFlush(
  table: Table,
  input: CommitInput,
): Promise<ShardRecord | undefined> {
  const values: Record<string, AttributeValue> = {
    ':lastSeq': { N: String(input.lastSeq) },
    ':nextPos': { N: String(input.position + 1) },
    ':nextRow': { N: String(input.nextRowOffset) },
    ':epoch': { N: String(input.epoch) },
    ':pos': { N: String(input.position) },
  };
  let release = '';
  if (input.releasedThrough !== undefined) {
    // Server-side arithmetic: bufferedBytes = chargedBytes - releasedBytes, exactly (A2).
    release =
      ', releasedBytes = :released, bufferedBytes = if_not_exists(chargedBytes, :zero) - :released';
    values[':released'] = { N: String(input.releasedThrough) };
    values[':zero'] = { N: '0' };
  }
  if (input.pendingSinceMs !== undefined) {
    // Every batch still pending was allocated after the covered ones: a tighter bound.
    release += ', pendingSinceMs = :pendingSince';
    values[':pendingSince'] = { N: String(input.pendingSinceMs) };
  }
  const out = await updateShardRecord(
    table,
    input.shard,
    {
      update: `SET durableSeq = :lastSeq, walNextPos = :nextPos, nextRowOffset = :nextRow${release} REMOVE leaseOwner, leaseExpiresAtMs`,
      condition:
        input.position === 0
          ? 'epoch = :epoch AND (attribute_not_exists(walNextPos) OR walNextPos = :pos)'
          : 'epoch = :epoch AND walNextPos = :pos',
      values,
    },
    'UpdateItem commit flush',
  );
  return out;
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
    condition +=
      holder.position === 0
        ? ' AND epoch = :epoch AND (attribute_not_exists(walNextPos) OR walNextPos = :pos)'
        : ' AND epoch = :epoch AND walNextPos = :pos';
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
