/**
 * Rebuild's writes to the shard record: the fence, the cursor reset, and the
 * release of a fence whose rebuild stopped.
 *
 * Invariants kept here:
 * R1. The fence bumps `epoch` unconditionally: a live flusher's commit, which
 *     is conditional on its own epoch, fails from then on (C1 in commit.ts).
 * R2. While fenced the shard carries a poison naming the rebuild, so no put
 *     allocates a seq and no flusher claims; the cursors cannot move under it.
 * R3. The reset is conditional on the fence's epoch: of two rebuilds the
 *     later fence wins, and the earlier one changes nothing.
 * R4. The reset moves every cursor in one update, bumps `generation` (durable
 *     waiters learn the cursors were reset) and clears poison and lease.
 * R5. The reset applies once. It is also conditional on the fenced
 *     `generation`, which it bumps: an SDK retry of a reset whose response was
 *     lost fails its condition instead of applying again, since the first
 *     attempt lifted the fence and a put may have allocated since (applied
 *     twice, it would hand that seq out again and undo its charge). A failed
 *     condition is then told apart by reading the record: our epoch with the
 *     next generation is our own reset.
 * R6. A reset that leaves nothing pending leaves nothing buffered: the
 *     shard leaves the pending index, so no commit or pending-marker clear
 *     would ever release a charge it kept (a void sealed by a flusher records
 *     none of its own). No put allocates under the fence (R2), so every
 *     charge is one of the seqs the reset declares durable or void.
 * R7. The fence marks the record (`rebuildEpoch` = the fence's epoch) and
 *     puts it in the pending index, so a tick meets a fenced shard among the
 *     shards it already lists; the reset and the release remove the mark.
 *     A takeover fences only while the mark names the current epoch and the
 *     lease has lapsed (`takeOverRebuildFence`, T2 in
 *     `lib/recovery/takeover.ts`). The pending marker the fence adds stays
 *     only while batches are pending: the reset (R6) and the release both
 *     drop it, drained, when none is.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { InternalError } from '../errors.js';
import { DRAIN_SET, PENDING_MARKER } from './pending-index.js';
import { registryEntry } from './registry.js';
import {
  hasPendingBatches,
  type RecordUpdate,
  readShardRecord,
  type ShardRecord,
  updateShardRecord,
} from './shard-record.js';
import { PENDING_PK, type Table } from './table.js';

/** Input of `fenceForRebuild`. */
export interface RebuildFenceInput {
  owner: string;
  nowMs: number;
  leaseMs: number;
  /** The poison reason puts and flushers see while the rebuild runs. */
  reason: string;
}

/** Fences the shard for a rebuild (R1, R2, R7); resolves to the record as fenced. */
export async function fenceForRebuild(
  table: Table,
  shard: string,
  input: RebuildFenceInput,
): Promise<ShardRecord> {
  const out = await updateShardRecord(
    table,
    shard,
    fenceUpdate(shard, input),
    'UpdateItem fence for rebuild',
  );
  // Unconditional: only a condition can leave it unapplied.
  if (!out) throw new InternalError(`shard ${shard}: fence for rebuild was not applied`);
  return out;
}

/**
 * Fences the shard for the takeover of an abandoned rebuild (R7): applied
 * only while the record is under a rebuild fence (its mark names the current
 * epoch) whose lease expired before `lapsedBeforeMs`. Undefined when the
 * rebuild is still live, finished, or another taker won.
 */
export function takeOverRebuildFence(
  table: Table,
  shard: string,
  input: RebuildFenceInput & { lapsedBeforeMs: number },
): Promise<ShardRecord | undefined> {
  const change = fenceUpdate(shard, input);
  change.condition =
    'rebuildEpoch = epoch AND (attribute_not_exists(leaseExpiresAtMs) OR leaseExpiresAtMs < :lapsed)';
  change.values = { ...change.values, ':lapsed': { N: String(input.lapsedBeforeMs) } };
  return updateShardRecord(table, shard, change, 'UpdateItem take over rebuild fence');
}

/** The fence's update (R1, R2, R7), unconditional. */
function fenceUpdate(shard: string, input: RebuildFenceInput): RecordUpdate {
  return {
    update:
      'SET epoch = if_not_exists(epoch, :zero) + :one, rebuildEpoch = if_not_exists(epoch, :zero) + :one, leaseOwner = :owner, leaseExpiresAtMs = :expires, poison = :reason, poisonedAtMs = :now, registryPk = :registryPk, registryShard = :registryShard, pendingPk = :pendingPk, pendingShard = :registryShard',
    values: {
      // A rebuild after a table loss creates the record: register it too (G1 in registry.ts).
      ...registryEntry(shard).values,
      ':zero': { N: '0' },
      ':one': { N: '1' },
      ':owner': { S: input.owner },
      ':expires': { N: String(input.nowMs + input.leaseMs) },
      ':reason': { S: input.reason },
      ':now': { N: String(input.nowMs) },
      ':pendingPk': { S: PENDING_PK },
    },
  };
}

/** The cursors a rebuild proved from S3. */
export interface CursorReset {
  epoch: number;
  durableSeq: number;
  walNextPos: number;
  nextRowOffset: number;
  nextSeq: number;
  /** Cumulative charge released through `durableSeq` (A2 in `allocate.ts`). */
  releasedBytes: number;
  /** The fenced record's `generation`, which the reset bumps (R5). */
  generation: number;
  aofWatermark: number;
  nowMs: number;
}

/** Resets the cursors under the fence (R3-R5); the new record, or undefined when a later fence won. */
export async function resetCursors(
  table: Table,
  shard: string,
  reset: CursorReset,
): Promise<ShardRecord | undefined> {
  const pending = reset.nextSeq > reset.durableSeq + 1;
  const set = [
    'durableSeq = :durable',
    'walNextPos = :pos',
    'nextRowOffset = :row',
    'nextSeq = :next',
    // Nothing left pending: every charge is released, a trailing void's too (R6).
    ...(pending
      ? [
          'releasedBytes = :released',
          'bufferedBytes = if_not_exists(chargedBytes, :zeroBytes) - :released',
        ]
      : ['releasedBytes = if_not_exists(chargedBytes, :zeroBytes)', 'bufferedBytes = :zeroBytes']),
    'aofWatermark = :watermark',
    'rebuiltAtMs = :now',
    // The reset proved walNextPos from S3 just now (B2 in `lib/flush/record-behind.ts`).
    'walNextPosAtMs = :now',
    ...(pending
      ? [
          'pendingPk = :pending',
          'pendingShard = :shard',
          'pendingSinceMs = if_not_exists(pendingSinceMs, :now)',
        ]
      : []),
  ];
  const remove = [
    'poison',
    'poisonedAtMs',
    'rebuildEpoch',
    'leaseOwner',
    'leaseExpiresAtMs',
    ...(pending ? [] : PENDING_MARKER),
  ];
  const values: Record<string, AttributeValue> = {
    ':durable': { N: String(reset.durableSeq) },
    ':pos': { N: String(reset.walNextPos) },
    ':row': { N: String(reset.nextRowOffset) },
    ':next': { N: String(reset.nextSeq) },
    ':zeroBytes': { N: '0' },
    ':watermark': { N: String(reset.aofWatermark) },
    ':now': { N: String(reset.nowMs) },
    ':one': { N: '1' },
    ':epoch': { N: String(reset.epoch) },
  };
  if (reset.generation !== 0) values[':generation'] = { N: String(reset.generation) };
  if (pending) {
    values[':released'] = { N: String(reset.releasedBytes) };
    values[':pending'] = { S: PENDING_PK };
    values[':shard'] = { S: shard };
  }
  const out = await updateShardRecord(
    table,
    shard,
    {
      update: `SET ${set.join(', ')} REMOVE ${remove.join(', ')} ADD generation :one`,
      // A record never rebuilt has no generation attribute (it reads as 0).
      condition: `epoch = :epoch AND ${reset.generation === 0 ? 'attribute_not_exists(generation)' : 'generation = :generation'}`,
      values: values,
    },
    'UpdateItem reset cursors',
  );
  if (out) return out;
  // R5: our own reset, re-sent after its response was lost, or a later fence.
  const now = await readShardRecord(table, shard);
  return now?.epoch === reset.epoch && now.generation === reset.generation + 1 ? now : undefined;
}

/**
 * Lifts the fence of a rebuild that stopped without resetting anything: the
 * poison becomes `poisonAfter` (what it was before the rebuild, a reason
 * naming the stop, or none), the lease is released and the rebuild mark
 * removed. With nothing pending under the fence (no put allocates under it,
 * R2) the shard also leaves the pending index the fence put it in (R7),
 * drained as step 7 of the flush protocol drains it. A later fence makes
 * this a no-op (false).
 */
export async function releaseRebuildFence(
  table: Table,
  shard: string,
  fenced: ShardRecord,
  poisonAfter: string | undefined,
): Promise<boolean> {
  const values: Record<string, AttributeValue> = { ':epoch': { N: String(fenced.epoch) } };
  const set: string[] = [];
  const remove = ['leaseOwner', 'leaseExpiresAtMs', 'rebuildEpoch'];
  if (poisonAfter === undefined) remove.push('poison', 'poisonedAtMs');
  else {
    set.push('poison = :poison');
    values[':poison'] = { S: poisonAfter };
  }
  if (!hasPendingBatches(fenced)) {
    remove.push(...PENDING_MARKER);
    set.push(DRAIN_SET);
    values[':zero'] = { N: '0' };
  }
  const out = await updateShardRecord(
    table,
    shard,
    {
      update: `${set.length > 0 ? `SET ${set.join(', ')} ` : ''}REMOVE ${remove.join(', ')}`,
      condition: 'epoch = :epoch',
      values: values,
    },
    'UpdateItem release rebuild fence',
  );
  return out !== undefined;
}
