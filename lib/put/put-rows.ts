/**
 * The put path, shared by the HTTP and SQS handlers:
 *   1. validate the shard name and the rows; start the put's deadline (L1 in
 *      `lib/liveness.ts`): no batch item is written after it;
 *   2. allocate a seq (atomic counter, pending marker, bytes; refused when
 *      poisoned or over the buffer limit; safe to re-send, A1 in
 *      allocate.ts). A refused idempotent put whose key already landed gets
 *      its ack instead of the refusal;
 *   3. idempotent puts claim their key naming that seq (`claim-key.ts`): the
 *      reservation's conditional create is the existence check; a repeat
 *      gets the original ack, a concurrent one 409, another payload under
 *      the key 422; the seq a repeat allocated is sealed void at once;
 *   4. write the batch item, conditional on it not existing; it carries the
 *      put id and row count, so it is also the idempotent put's recorded ack
 *      (K6 in `lib/memtable/idempotency.ts`). A failed or late write is
 *      settled (`settle-seq.ts`): the batch is found, or the seq is sealed
 *      void so it can never land; only then is the key released (K4) and the
 *      caller told nothing was stored;
 *   5. ack, after a bounded wait for durability when asked.
 * DynamoDB requests: a plain put 2 (allocate, write), an idempotent one 3
 * (allocate, reserve, write), plus one per continuation chunk of a batch over
 * 350 KB compressed. The object store is written only when a batch's
 * compressed payload is past the spill threshold (`lib/memtable/spill.ts`):
 * one PUT for its payload; durability itself comes from the ticker.
 */

import { randomUUID } from 'node:crypto';
import type { ShardwalConfig } from '../config.js';
import {
  BackpressureError,
  GapSealedError,
  InvalidInputError,
  KeyReusedError,
  PoisonedError,
  PutDeadlineError,
  SeqTakenError,
  ShardStalledError,
  UnavailableError,
} from '../errors.js';
import { stallRefusalMs } from '../liveness.js';
import { type Allocation, allocateSeq } from '../memtable/allocate.js';
import { type EncodedBatch, encodeBatchRows } from '../memtable/batch-codec.js';
import { type PutAck, readIdempotencyRecord, releaseReservation } from '../memtable/idempotency.js';
import type { Table } from '../memtable/table.js';
import { writeBatch } from '../memtable/write-batch.js';
import { logger } from '../observability/telemetry.js';
import { assertShardName } from '../paths.js';
import { claimKey, landedAck } from './claim-key.js';
import { type CommitDelayEstimate, waitDurable } from './durable-wait.js';
import { type PutFaultHook, PutFaultPoint } from './fault-points.js';
import { requestFingerprint } from './fingerprint.js';
import type { ParsedPut } from './schema.js';
import { settleOwnSeq } from './settle-seq.js';

/** Durability a caller asks for. */
export const Durability = { buffered: 'buffered', durable: 'durable' } as const;
export type Durability = (typeof Durability)[keyof typeof Durability];

/** Asks for a flush before the next tick (size trigger). */
export type FlushRequester = (shard: string) => Promise<void>;

/** What the put path needs. */
export interface PutDeps {
  table: Table;
  config: ShardwalConfig;
  requestFlush: FlushRequester;
  now: () => number;
  sleep: (ms: number) => Promise<void>;
  faults?: PutFaultHook;
  /** Where durable waiters learn the commit delay; this process's by default. */
  commitDelay?: CommitDelayEstimate;
}

/** A put request after transport decoding. */
export interface PutRequest {
  shard: string;
  /** The body, read exactly by `parsePutText` (`schema.ts`). */
  body: ParsedPut;
  durability: Durability;
  idempotencyKey?: string;
  /** A hard end the transport imposes (e.g. the Lambda invocation's); the put deadline never passes it. */
  deadlineAtMs?: number;
}

/** The ack plus whether it came from an earlier identical request. */
export interface PutResult {
  ack: PutAck;
  repeated: boolean;
  bytes: number;
}

const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e]{1,256}$/;

/** Runs the put path: the checks of step 1 (`checkPut`), then steps 2-5 in order. */
export async function putRows(deps: PutDeps, request: PutRequest): Promise<PutResult> {
  const { shard } = request;
  const put = checkPut(deps, request);
  const { batch, key } = put;

  // 2. Allocate (a refused repeat of a put that landed gets its ack).
  const allocatedAtMs = deps.now();
  const allocation = await allocate(deps, put, allocatedAtMs);
  if (!('generation' in allocation)) return repeatAck(deps, allocation, request.durability);
  await deps.faults?.(PutFaultPoint.afterAllocate, shard);

  // 3. Claim the key.
  const owner = randomUUID();
  if (key !== undefined) {
    const reservation = reservationOf(deps, put, key, allocation.seq, owner);
    const claim = await claimKey({ ...deps, deadlineAtMs: put.deadlineAtMs }, reservation).catch(
      async (error: unknown) => {
        await abandonSeq(deps, shard, allocation);
        throw error;
      },
    );
    if (claim.kind === 'answer') {
      await abandonSeq(deps, shard, allocation);
      return repeatAck(deps, claim.ack, request.durability);
    }
    await deps.faults?.(PutFaultPoint.afterClaim, shard);
  }

  // 4. Write, or settle what the write did.
  await writeOrSettle(
    deps,
    request,
    batch,
    { ...allocation, allocatedAtMs },
    put.deadlineAtMs,
    owner,
  );
  await deps.faults?.(PutFaultPoint.afterWrite, shard);
  let ack: PutAck = { shard, seq: allocation.seq, rows: batch.rowCount, durable: false };

  // 5. The batch is the ack (K6). Request a flush past the trigger, wait for durability if asked.
  if (crossesTrigger(deps.config, allocation, batch.jsonBytes)) {
    // Best effort: a lost request only means the next tick flushes this shard instead.
    await deps.requestFlush(shard).catch(() => undefined);
  }
  if (request.durability === Durability.durable) {
    ack = await withDurability(deps, ack, allocation.generation);
  }
  return { ack, repeated: false, bytes: batch.jsonBytes };
}

/** A put request that passed the checks of step 1. */
interface CheckedPut {
  shard: string;
  /** The rows, serialized once. */
  batch: EncodedBatch;
  /** The request's Idempotency-Key, if any. */
  key: string | undefined;
  /** The request's fingerprint under its key (K5); empty without a key. */
  fingerprint: string;
  /** No batch item is written after this (L1 in `lib/liveness.ts`). */
  deadlineAtMs: number;
}

/**
 * Step 1: validates the shard name, the durability asked for, the rows and
 * the idempotency key, each refusal naming its field, and starts the put's
 * deadline (L1 in `lib/liveness.ts`), capped by the transport's.
 */
function checkPut(deps: PutDeps, request: PutRequest): CheckedPut {
  const { config } = deps;
  const startedAtMs = deps.now();
  const deadlineAtMs = Math.min(
    startedAtMs + config.putDeadlineMs,
    request.deadlineAtMs ?? Number.POSITIVE_INFINITY,
  );
  assertShardName(request.shard);
  if (request.durability === Durability.durable && !config.durablePuts) {
    throw new InvalidInputError('durability', 'durable puts are switched off on this deployment');
  }
  const batch = encodeBatchRows(request.body.rows);
  const key = request.idempotencyKey;
  if (key !== undefined && !IDEMPOTENCY_KEY_PATTERN.test(key)) {
    throw new InvalidInputError(
      'Idempotency-Key',
      'expected 1-256 printable ASCII characters without spaces',
    );
  }
  const fingerprint = key === undefined ? '' : requestFingerprint(request.shard, batch.json);
  if (deps.now() >= deadlineAtMs) throw new PutDeadlineError(request.shard, 0);
  return { shard: request.shard, batch, key, fingerprint, deadlineAtMs };
}

/**
 * Step 2: allocates the put's seq (A1 in `lib/memtable/allocate.ts`). A
 * shard that refuses new puts still answers a repeat of one that landed
 * (its original ack); any other refusal is the put's error.
 */
function allocate(
  deps: PutDeps,
  put: CheckedPut,
  allocatedAtMs: number,
): Promise<Allocation | PutAck> {
  const { config, table } = deps;
  const { shard, key } = put;
  // The allocation's own promise, not an async wrapper's: a microtask hop more would
  // reorder concurrent requests in the deterministic simulation.
  return allocateSeq(table, {
    shard,
    bytes: put.batch.jsonBytes,
    nowMs: allocatedAtMs,
    maxBufferedBytes: config.maxBufferedBytes,
    retryAfterSeconds: Math.max(1, Math.ceil((config.flushIntervalMs ?? 1000) / 1000)),
    stallRefusalMs: stallRefusalMs(config),
    takeover: config,
  }).catch(async (error: unknown) => {
    if (key === undefined || !isRefusal(error)) throw error;
    const earlier = await readIdempotencyRecord(table, shard, key, deps.now());
    if (earlier === undefined) throw error;
    if (earlier.fingerprint !== put.fingerprint) throw new KeyReusedError(key, shard);
    const ack = await landedAck(table, shard, earlier);
    if (ack === undefined) throw error;
    return ack;
  });
}

/** Step 3's reservation: the key, naming the seq just allocated (K1 in `lib/memtable/idempotency.ts`). */
function reservationOf(deps: PutDeps, put: CheckedPut, key: string, seq: number, owner: string) {
  return {
    shard: put.shard,
    key,
    owner,
    fingerprint: put.fingerprint,
    seq,
    rows: put.batch.rowCount,
    nowMs: deps.now(),
    leaseMs: deps.config.reservationLeaseMs,
    ttlMs: deps.config.idempotencyTtlMs,
  };
}

/** Whether this put's bytes took the shard's buffer across the flush trigger (step 5). */
function crossesTrigger(config: ShardwalConfig, allocation: Allocation, bytes: number): boolean {
  return (
    allocation.bufferedBytes - bytes < config.flushTriggerBytes &&
    allocation.bufferedBytes >= config.flushTriggerBytes
  );
}

/**
 * Writes the batch. When the write fails or the deadline passes, settles the
 * seq: if the batch is there after all the put succeeded; otherwise the seq
 * is now void (nothing can land late), the key is released (K4) and the
 * error says nothing was stored. When even settling fails the key is kept:
 * a retry with it after the reservation lease settles the seq itself (K3).
 */
async function writeOrSettle(
  deps: PutDeps,
  request: PutRequest,
  batch: EncodedBatch,
  allocation: Allocation & { allocatedAtMs: number },
  deadlineAtMs: number,
  owner: string,
): Promise<void> {
  const { shard } = request;
  const key = request.idempotencyKey;
  try {
    await writeBatch(deps.table, {
      shard,
      seq: allocation.seq,
      allocatedAtMs: allocation.allocatedAtMs,
      batch,
      bytes: batch.jsonBytes,
      chargeEnd: allocation.chargeEnd,
      nowMs: deps.now(),
      idempotencyKey: key,
      deadline: { atMs: deadlineAtMs, now: deps.now },
      putId: owner,
    });
    return;
  } catch (error) {
    const provablyNotLanded = error instanceof GapSealedError || error instanceof SeqTakenError;
    if (!provablyNotLanded) {
      let outcome: Awaited<ReturnType<typeof settleOwnSeq>>;
      try {
        outcome = await settleOwnSeq(deps.table, shard, allocation.seq, deps.now(), {
          putId: owner,
          chargeEnd: allocation.chargeEnd,
        });
      } catch (settleError) {
        throw new UnavailableError(
          `shard ${shard}: whether batch ${allocation.seq} was stored is not known yet (${(error as Error).message}); ${key === undefined ? 'check GET /v1/shards/' + shard + '/seqs/' + allocation.seq : 'retry with the same Idempotency-Key'}`,
          { cause: settleError },
        );
      }
      if (outcome.landed) return;
    }
    if (key !== undefined) {
      await releaseReservation(deps.table, shard, key, owner).catch(() => undefined);
    }
    throw error;
  }
}

/** Seals a seq this put allocated but will not write (a repeat's, or a refused claim's). */
async function abandonSeq(deps: PutDeps, shard: string, allocation: Allocation): Promise<void> {
  try {
    // No put id of ours is at this seq: it can only end void (or hold another's batch).
    await settleOwnSeq(deps.table, shard, allocation.seq, deps.now(), {
      putId: '',
      chargeEnd: allocation.chargeEnd,
    });
  } catch (error) {
    // The flusher seals it after the gap seal instead; nothing is lost either way.
    logger.warn('could not seal an abandoned seq; the flusher will', {
      shard,
      seq: allocation.seq,
      error: error as Error,
    });
  }
}

/** A repeat returns the original ack; a durable repeat also waits for that seq's durability. */
async function repeatAck(deps: PutDeps, ack: PutAck, durability: Durability): Promise<PutResult> {
  if (durability !== Durability.durable || ack.durable) return { ack, repeated: true, bytes: 0 };
  return { ack: await withDurability(deps, ack, undefined), repeated: true, bytes: 0 };
}

/** Waits, bounded, for the ack's seq to be durable; the ack with `durable` set. */
async function withDurability(
  deps: PutDeps,
  ack: PutAck,
  generation: number | undefined,
): Promise<PutAck> {
  const durable = await waitDurable(deps.table, {
    shard: ack.shard,
    seq: ack.seq,
    generation,
    waitMs: deps.config.durableWaitMs,
    intervalMs: deps.config.flushIntervalMs,
    // Reads at the grid's commit moments: a tick, then about one flush.
    commitDelayMs: deps.config.durablePollMs,
    commitDelay: deps.commitDelay,
    maxPollMs: maxPollMs(deps.config),
    now: deps.now,
    sleep: deps.sleep,
  });
  return { ...ack, durable };
}

/** Whether `error` is the allocation refusing a new put (not a failure to reach the table). */
function isRefusal(error: unknown): boolean {
  return (
    error instanceof BackpressureError ||
    error instanceof PoisonedError ||
    error instanceof ShardStalledError
  );
}

/**
 * A waiter reads at least once a second, so a commit off the grid (a
 * size-triggered flush) is seen within a second even at long intervals;
 * under a second the grid's commit moments come sooner anyway.
 */
function maxPollMs(config: ShardwalConfig): number {
  return Math.max(1_000, config.durablePollMs);
}
