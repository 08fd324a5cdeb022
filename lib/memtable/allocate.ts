/**
 * Step 3 of the put path: allocate one batch seq with an atomic counter on the
 * shard record and, in the same update, mark the shard pending and charge the
 * batch's bytes. The update is refused when the shard is poisoned or its
 * buffered bytes are over the limit, so a refused put leaves no trace.
 *
 * Invariants kept here:
 * A1. An allocation is safe to re-send. It carries a token and is conditional
 *     on the record's last token not being it, so a re-send of an update that
 *     landed (the SDK retries a lost response; so does `allocateSeq`, once:
 *     `RetryPolicy.resendAllocate`) fails its condition instead of taking a
 *     second seq, and the record's token tells the caller the first one
 *     landed and which seq it took. Only
 *     when another put allocated in between is the outcome of a lost first
 *     attempt unknowable: then a second seq is taken and the first, if it
 *     landed, is an unwritten gap the flusher seals (L2 in `lib/liveness.ts`).
 * A3. A shard whose pending data has waited longer than the stall bound
 *     takes no new put (L5 in `lib/liveness.ts`): `pendingSinceMs` (set by the
 *     first allocation of a pending run, moved forward by commits, removed
 *     when the shard drains) bounds the age of its oldest pending batch.
 * A4. The update that creates a record dates its `walNextPos` of 0
 *     (`walNextPosAtMs`), so the first flush of a new shard needs no proof
 *     that no export covers position 0 (B2 in `lib/flush/record-behind.ts`);
 *     a record restored from a backup carries the old date, and its flusher
 *     lists.
 * A2. Bytes are charged cumulatively: `chargedBytes` only grows, and each
 *     batch records `chargeEnd`, the cumulative charge through its own
 *     allocation. Seq order is charge order (one update moves both), so a
 *     commit through batch b releases exactly the charges of every seq up to
 *     b — sealed gaps and lost-response allocations included — and
 *     `bufferedBytes = chargedBytes - releasedBytes` never drifts.
 */
import { randomUUID } from 'node:crypto';
import {
  BackpressureError,
  PoisonedError,
  ShardStalledError,
  UnavailableError,
} from '../errors.js';
import { rebuildRetryAfterSeconds, type TakeoverSettings } from '../liveness.js';
import { RetryPolicy, retry } from '../retry.js';
import { REGISTRY_PK } from './registry.js';
import {
  readShardRecord,
  rebuildFenceOf,
  type ShardRecord,
  updateShardRecord,
} from './shard-record.js';
import { PENDING_PK, type Table } from './table.js';

/** What the put path needs to know about its allocation. */
export interface Allocation {
  seq: number;
  /** Buffered bytes of the shard including this batch. */
  bufferedBytes: number;
  /** Cumulative charge of the shard through this allocation (A2). */
  chargeEnd: number;
  /** Recovery generation at allocation; a change means the cursors were reset. */
  generation: number;
}

/** Input of `allocateSeq`. */
export interface AllocateInput {
  shard: string;
  bytes: number;
  nowMs: number;
  maxBufferedBytes: number;
  /** Seconds a backpressured caller should wait (about one flush interval). */
  retryAfterSeconds: number;
  /** Identifies this allocation (A1); a fresh one by default. */
  token?: string;
  /** Refuse when the shard's oldest pending data is older than this (L5 in `lib/liveness.ts`). */
  stallRefusalMs?: number;
  /** Settings of the takeover bound: a refusal by a rebuild's fence says when to retry (L6). */
  takeover?: TakeoverSettings;
}

/** The refusal of a poisoned shard; under a rebuild's fence it says when to retry (L6). */
function poisonedError(
  record: ShardRecord,
  nowMs: number,
  takeover: TakeoverSettings | undefined,
): PoisonedError {
  const fence = rebuildFenceOf(record);
  const retryAfter =
    fence && takeover
      ? rebuildRetryAfterSeconds(fence.leaseExpiresAtMs, nowMs, takeover)
      : undefined;
  return new PoisonedError(record.shard, record.poison ?? 'poisoned', retryAfter);
}

/** Allocates the next batch seq of `shard`; throws PoisonedError or BackpressureError. */
export async function allocateSeq(table: Table, input: AllocateInput): Promise<Allocation> {
  const token = input.token ?? randomUUID();
  // Re-sent once when the outcome is unknown (A1).
  return retry(RetryPolicy.resendAllocate, () => allocateOnce(table, input, token), {
    retryable: (error) => error instanceof UnavailableError,
  });
}

async function allocateOnce(table: Table, input: AllocateInput, token: string) {
  const { shard, bytes, nowMs, maxBufferedBytes } = input;
  const out = await updateShardRecord(
    table,
    shard,
    {
      update:
        'SET nextSeq = if_not_exists(nextSeq, :one) + :one, pendingPk = :pending, pendingShard = :shard, registryPk = :registryPk, registryShard = :shard, lastAllocAtMs = :now, lastAllocToken = :token, pendingSinceMs = if_not_exists(pendingSinceMs, :now), walNextPosAtMs = if_not_exists(walNextPosAtMs, :now) ADD bufferedBytes :bytes, chargedBytes :bytes',
      // A batch larger than the whole limit is still admitted into an empty buffer,
      // otherwise it could never be written at all.
      condition:
        'attribute_not_exists(poison) AND (attribute_not_exists(bufferedBytes) OR bufferedBytes <= :zero OR bufferedBytes <= :room) AND (attribute_not_exists(pendingSinceMs) OR pendingSinceMs > :stalledBefore) AND (attribute_not_exists(lastAllocToken) OR lastAllocToken <> :token)',
      values: {
        ':one': { N: '1' },
        ':zero': { N: '0' },
        ':pending': { S: PENDING_PK },
        ':shard': { S: shard },
        // The shard registry's entry, in the update that creates the record (G1 in registry.ts).
        ':registryPk': { S: REGISTRY_PK },
        ':now': { N: String(nowMs) },
        ':bytes': { N: String(bytes) },
        ':room': { N: String(maxBufferedBytes - bytes) },
        ':token': { S: token },
        ':stalledBefore': { N: String(nowMs - (input.stallRefusalMs ?? Number.MAX_SAFE_INTEGER)) },
      },
    },
    'UpdateItem allocate seq',
  );
  // dynalite ignores ReturnValuesOnConditionCheckFailure, so read why.
  const record = out ?? (await readShardRecord(table, shard));
  if (!out && record?.lastAllocToken !== token) {
    if (record?.poison) throw poisonedError(record, nowMs, input.takeover);
    const stall = input.stallRefusalMs;
    if (stall !== undefined && record?.pendingSinceMs !== undefined) {
      if (record.pendingSinceMs <= nowMs - stall)
        throw new ShardStalledError(shard, record.pendingSinceMs, stall);
    }
    throw new BackpressureError(
      shard,
      bytes,
      record?.bufferedBytes ?? 0,
      maxBufferedBytes,
      input.retryAfterSeconds,
    );
  }
  // Our update (this send, or an earlier one whose response was lost): no allocation since (A1).
  return {
    seq: record!.nextSeq - 1,
    bufferedBytes: record!.bufferedBytes,
    chargeEnd: record!.chargedBytes,
    generation: record!.generation,
  };
}
