/**
 * The shard record: one item per shard holding its cursors, fence and flags.
 *
 * Cursor meanings (all integers):
 * - `nextSeq`: the next batch seq to allocate; seqs start at 1.
 * - `durableSeq`: every batch <= it is in a committed WAL object (0 = none).
 * - `walNextPos`: the position the next WAL object takes (positions start at 0).
 * - `nextRowOffset`: the shard-wide offset the next flushed row takes.
 * - `walNextPosAtMs`: when the commit or rebuild that set `walNextPos` ran,
 *   or the allocation that created the record (absent on records older than it): tells a flusher whether it must prove
 *   the slot free of exports (B2 in `lib/flush/record-behind.ts`).
 * - `epoch`: bumped by every flush claim and every recovery fence.
 * - `generation`: bumped only by recovery rebuilds; a durable waiter that sees
 *   it change knows the cursors were reset under it.
 * - `rebuildEpoch`: the epoch of a rebuild's fence, present from the fence to
 *   the cursor reset (or the fence's release); with the lease it tells a
 *   running rebuild from an abandoned one (`lib/recovery/takeover.ts`).
 * - `bufferedBytes = chargedBytes - releasedBytes`: allocations add to both
 *   `bufferedBytes` and `chargedBytes`; a commit sets `releasedBytes` to the
 *   cumulative charge through its last batch (A2 in `allocate.ts`).
 */
import { type AttributeValue, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { CONDITION_FAILED, getItem, send, shardRecordKey, type Table } from './table.js';

/** A shard record as the rest of lib sees it. */
export interface ShardRecord {
  shard: string;
  nextSeq: number;
  durableSeq: number;
  walNextPos: number;
  /** When `walNextPos` was last set (B2 in `lib/flush/record-behind.ts`); undefined on older records. */
  walNextPosAtMs: number | undefined;
  nextRowOffset: number;
  bufferedBytes: number;
  /** Cumulative bytes ever charged by allocations (A2 in `allocate.ts`). */
  chargedBytes: number;
  /** Cumulative charge released by commits: `bufferedBytes = chargedBytes - releasedBytes`. */
  releasedBytes: number;
  /** Token of the last allocation (A1 in `allocate.ts`). */
  lastAllocToken: string | undefined;
  epoch: number;
  generation: number;
  leaseOwner: string | undefined;
  leaseExpiresAtMs: number | undefined;
  poison: string | undefined;
  /** Epoch of the rebuild fence the shard is under; undefined when no rebuild holds it. */
  rebuildEpoch: number | undefined;
  pending: boolean;
  lastAllocAtMs: number | undefined;
  /** Bounds the age of the oldest pending batch from above; absent when nothing is pending (L5). */
  pendingSinceMs: number | undefined;
  /** WAL positions below this are covered by the AOF export of the same number (0 = none). */
  aofWatermark: number;
}

/** Reads a numeric attribute, defaulting when absent. */
export function num(item: Record<string, AttributeValue>, name: string, fallback: number): number {
  const value = item[name]?.N;
  return value === undefined ? fallback : Number(value);
}

/** Reads a string attribute. */
export function str(item: Record<string, AttributeValue>, name: string): string | undefined {
  return item[name]?.S;
}

/** Converts a raw item into a `ShardRecord`, filling defaults of a new shard. */
export function toShardRecord(shard: string, item: Record<string, AttributeValue>): ShardRecord {
  const leaseExpiresAtMs = item.leaseExpiresAtMs?.N;
  const lastAllocAtMs = item.lastAllocAtMs?.N;
  return {
    shard,
    nextSeq: num(item, 'nextSeq', 1),
    durableSeq: num(item, 'durableSeq', 0),
    walNextPos: num(item, 'walNextPos', 0),
    walNextPosAtMs:
      item.walNextPosAtMs?.N === undefined ? undefined : Number(item.walNextPosAtMs.N),
    nextRowOffset: num(item, 'nextRowOffset', 0),
    bufferedBytes: num(item, 'bufferedBytes', 0),
    chargedBytes: num(item, 'chargedBytes', 0),
    releasedBytes: num(item, 'releasedBytes', 0),
    lastAllocToken: str(item, 'lastAllocToken'),
    epoch: num(item, 'epoch', 0),
    generation: num(item, 'generation', 0),
    leaseOwner: str(item, 'leaseOwner'),
    leaseExpiresAtMs: leaseExpiresAtMs === undefined ? undefined : Number(leaseExpiresAtMs),
    poison: str(item, 'poison'),
    rebuildEpoch: item.rebuildEpoch?.N === undefined ? undefined : Number(item.rebuildEpoch.N),
    pending: item.pendingPk !== undefined,
    lastAllocAtMs: lastAllocAtMs === undefined ? undefined : Number(lastAllocAtMs),
    pendingSinceMs:
      item.pendingSinceMs?.N === undefined ? undefined : Number(item.pendingSinceMs.N),
    aofWatermark: num(item, 'aofWatermark', 0),
  };
}

/** True when batches beyond `durableSeq` have been allocated. */
export function hasPendingBatches(record: ShardRecord): boolean {
  return record.nextSeq > record.durableSeq + 1;
}

/**
 * True while a flusher holds the shard at `nowMs`: claimed and neither
 * committed (the commit releases the lease) nor expired. The complement of
 * the claim's "lease free or expired" condition (`lib/fence/claim.ts`).
 */
export function leaseHeld(record: ShardRecord, nowMs: number): boolean {
  return record.leaseOwner !== undefined && (record.leaseExpiresAtMs ?? 0) >= nowMs;
}

/** A rebuild's fence as the record shows it (R7 in `reset-cursors.ts`). */
export interface RebuildFence {
  epoch: number;
  owner: string | undefined;
  leaseExpiresAtMs: number | undefined;
}

/** The rebuild fence `record` is under; undefined when no rebuild holds it. */
export function rebuildFenceOf(record: ShardRecord): RebuildFence | undefined {
  if (record.rebuildEpoch === undefined || record.rebuildEpoch !== record.epoch) return undefined;
  return {
    epoch: record.epoch,
    owner: record.leaseOwner,
    leaseExpiresAtMs: record.leaseExpiresAtMs,
  };
}

/**
 * True once `fence`'s lease expired more than `clockSkewMs` before `nowMs`
 * (the lease is dated by the rebuild's clock): its rebuild stopped renewing
 * it, so it died or stalled, and may be taken over (L6 in `lib/liveness.ts`).
 */
export function rebuildFenceLapsed(
  fence: RebuildFence,
  nowMs: number,
  clockSkewMs: number,
): boolean {
  return (fence.leaseExpiresAtMs ?? 0) < nowMs - clockSkewMs;
}

/** Reads a shard record (strongly consistent); undefined when the shard was never written. */
export async function readShardRecord(
  table: Table,
  shard: string,
): Promise<ShardRecord | undefined> {
  const { Item: item } = await getItem(table, shardRecordKey(shard), 'GetItem shard record');
  return item ? toShardRecord(shard, item) : undefined;
}

/** One update of a shard record, in DynamoDB expression syntax. */
export interface RecordUpdate {
  update: string;
  /** The update applies only while this holds. */
  condition?: string;
  values?: Record<string, AttributeValue>;
}

/**
 * Applies `change` to the shard's record. Returns the record as updated, or
 * undefined when `change.condition` did not hold (the expected race outcome).
 */
export async function updateShardRecord(
  table: Table,
  shard: string,
  change: RecordUpdate,
  what: string,
): Promise<ShardRecord | undefined> {
  const out = await send<{ Attributes?: Record<string, AttributeValue> }>(
    table,
    new UpdateItemCommand({
      TableName: table.tableName,
      Key: shardRecordKey(shard),
      UpdateExpression: change.update,
      ConditionExpression: change.condition,
      ExpressionAttributeValues: change.values,
      ReturnValues: 'ALL_NEW',
    }),
    what,
  );
  return out === CONDITION_FAILED ? undefined : toShardRecord(shard, out.Attributes ?? {});
}

/** A plain snapshot of a shard record's cursors, fence and flags: the status JSON and report form. */
export interface CursorSnapshot {
  nextSeq: number;
  durableSeq: number;
  walNextPos: number;
  nextRowOffset: number;
  bufferedBytes: number;
  pending: boolean;
  epoch: number;
  generation: number;
  lease: { owner: string; expiresAtMs: number | null } | null;
  poison: string | null;
  aofWatermark: number;
}

/** The snapshot of `record`, or null when there is none. */
export function snapshotCursors(record: ShardRecord | undefined): CursorSnapshot | null {
  if (!record) return null;
  return {
    nextSeq: record.nextSeq,
    durableSeq: record.durableSeq,
    walNextPos: record.walNextPos,
    nextRowOffset: record.nextRowOffset,
    bufferedBytes: record.bufferedBytes,
    pending: record.pending,
    epoch: record.epoch,
    generation: record.generation,
    lease: record.leaseOwner
      ? { owner: record.leaseOwner, expiresAtMs: record.leaseExpiresAtMs ?? null }
      : null,
    poison: record.poison ?? null,
    aofWatermark: record.aofWatermark,
  };
}
