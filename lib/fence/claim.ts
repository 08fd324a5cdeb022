/**
 * The epoch/fence record keeps one effective flusher per shard.
 *
 * Invariants kept here:
 * F1. A flusher acts only under an epoch it obtained by a conditional bump of
 *     the shard record; epochs only grow.
 * F2. A claim succeeds only while the lease is free or expired and the shard
 *     is not poisoned, so at most one flusher holds a live lease.
 * F3. A lease is advisory for liveness only: correctness comes from the
 *     commit being conditional on the epoch (see `commit.ts`), so a zombie
 *     whose lease expired cannot commit after a newer claim.
 * F5. A claim whose response was lost is still ours: the SDK's retry of the
 *     bump meets our own live lease and fails its condition, and without F5
 *     the shard would sit under a lease nobody uses until it lapses (no
 *     flush, durable waiters waiting, pending batches ageing towards the
 *     stall refusal). A refused claim therefore reads the record: when the
 *     lease is the one this call wrote (its owner, unique per flusher, and
 *     its expiry) and the shard is not poisoned, no epoch bump came after
 *     ours (every bump writes its own lease), so the record's epoch is ours.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { readShardRecord, type ShardRecord, updateShardRecord } from '../memtable/shard-record.js';
import type { Table } from '../memtable/table.js';

/** A held flush claim. */
export interface FlushClaim {
  epoch: number;
  owner: string;
  /** The shard record as of the claim (cursors read in the same update). */
  record: ShardRecord;
}

/** Claims the flush of `shard`: bumps the epoch; undefined when a live lease or poison blocks it. */
export async function claimFlush(
  table: Table,
  shard: string,
  owner: string,
  nowMs: number,
  leaseMs: number,
): Promise<FlushClaim | undefined> {
  const attempt = await tryClaimFlush(table, shard, owner, nowMs, leaseMs);
  return 'claim' in attempt ? attempt.claim : undefined;
}

/** A claim, or the record (undefined: no such shard) read when it was refused. */
export type ClaimAttempt = { claim: FlushClaim } | { refusedBy: ShardRecord | undefined };

/** `claimFlush`, telling a refusal's reason: the record the refusal read (F5). */
export async function tryClaimFlush(
  table: Table,
  shard: string,
  owner: string,
  nowMs: number,
  leaseMs: number,
): Promise<ClaimAttempt> {
  const expiresAtMs = nowMs + leaseMs;
  const out = await updateShardRecord(
    table,
    shard,
    {
      update:
        'SET epoch = if_not_exists(epoch, :zero) + :one, leaseOwner = :owner, leaseExpiresAtMs = :expires',
      condition:
        'attribute_exists(pk) AND attribute_not_exists(poison) AND (attribute_not_exists(leaseExpiresAtMs) OR leaseExpiresAtMs < :now)',
      values: {
        ':zero': { N: '0' },
        ':one': { N: '1' },
        ':owner': { S: owner },
        ':expires': { N: String(expiresAtMs) },
        ':now': { N: String(nowMs) },
      },
    },
    'UpdateItem claim flush',
  );
  if (out !== undefined) return { claim: { epoch: out.epoch, owner, record: out } };
  // F5: the condition may have failed on our own claim, landed with its response lost.
  const record = await readShardRecord(table, shard);
  const ours =
    record !== undefined &&
    record.poison === undefined &&
    record.leaseOwner === owner &&
    record.leaseExpiresAtMs === expiresAtMs;
  return ours ? { claim: { epoch: record.epoch, owner, record } } : { refusedBy: record };
}

/**
 * Extends the lease held under `epoch` by `owner` to `nowMs + leaseMs` (F4 in
 * `lease-keeper.ts`). False when the lease is no longer theirs: a newer claim,
 * a rebuild fence or the commit took it.
 */
export async function renewLease(
  table: Table,
  shard: string,
  lease: { epoch: number; owner: string },
  nowMs: number,
  leaseMs: number,
): Promise<boolean> {
  const out = await updateShardRecord(
    table,
    shard,
    {
      update: 'SET leaseExpiresAtMs = :expires',
      condition: 'epoch = :epoch AND leaseOwner = :owner',
      values: {
        ':expires': { N: String(nowMs + leaseMs) },
        ':epoch': { N: String(lease.epoch) },
        ':owner': { S: lease.owner },
      },
    },
    'UpdateItem renew lease',
  );
  return out !== undefined;
}

/** Releases the lease if still held under `epoch`; false (a no-op) when a newer claim took over. */
export function releaseLease(table: Table, shard: string, epoch: number): Promise<boolean> {
  return removeLease(table, shard, 'epoch = :epoch', { ':epoch': { N: String(epoch) } }, 'release');
}

/**
 * Removes a lease that expired before `nowMs` (a crashed flusher's), without
 * bumping the epoch. Provably safe: an expired lease blocks nobody's claim
 * anyway; this only tidies the record. Returns true when one was removed.
 */
export function clearExpiredLease(table: Table, shard: string, nowMs: number): Promise<boolean> {
  return removeLease(
    table,
    shard,
    'leaseExpiresAtMs < :now',
    { ':now': { N: String(nowMs) } },
    'clear expired',
  );
}

async function removeLease(
  table: Table,
  shard: string,
  condition: string,
  values: Record<string, AttributeValue>,
  what: string,
): Promise<boolean> {
  const out = await updateShardRecord(
    table,
    shard,
    {
      update: 'REMOVE leaseOwner, leaseExpiresAtMs',
      condition: condition,
      values: values,
    },
    `UpdateItem ${what} lease`,
  );
  return out !== undefined;
}
