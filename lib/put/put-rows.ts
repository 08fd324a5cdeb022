/**
 * The put path, shared by the HTTP and SQS handlers:
 *   1. validate the shard name and the rows;
 *   2. idempotency: a repeated key returns the original ack, buffering nothing;
 *   3. allocate a seq (atomic counter, pending marker, bytes; refused when
 *      poisoned or over the buffer limit);
 *   4. write the batch item, conditional on it not existing;
 *   5. ack, after a bounded wait for durability when asked.
 * No object store request happens here, ever: durability comes from the ticker.
 */

import type { ShardwalConfig } from '../config.js';
import { InvalidInputError, ShardwalError, UnavailableError } from '../errors.js';
import { allocateSeq } from '../memtable/allocate.js';
import { encodeBatchRows } from '../memtable/batch-codec.js';
import { writeBatch } from '../memtable/batches.js';
import {
  completeIdempotencyKey,
  type PutAck,
  releaseIdempotencyKey,
  reserveIdempotencyKey,
} from '../memtable/idempotency.js';
import type { Table } from '../memtable/table.js';
import { assertShardName } from '../paths.js';
import { waitDurable } from './durable-wait.js';
import { parsePutBody } from './schema.js';

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
}

/** A put request after transport decoding. */
export interface PutRequest {
  shard: string;
  /** The parsed JSON body. */
  body: unknown;
  durability: Durability;
  idempotencyKey?: string;
}

/** The ack plus whether it came from an earlier identical request. */
export interface PutResult {
  ack: PutAck;
  repeated: boolean;
  bytes: number;
}

const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e]{1,256}$/;

/** Runs the put path. */
export async function putRows(deps: PutDeps, request: PutRequest): Promise<PutResult> {
  const { table, config } = deps;
  assertShardName(request.shard);
  if (request.durability === Durability.durable && !config.durablePuts) {
    throw new InvalidInputError('durability', 'durable puts are switched off on this deployment');
  }
  const { rows } = parsePutBody(request.body, config.maxRowsPerPut);
  const batch = encodeBatchRows(rows);
  const bytes = batch.jsonBytes;
  const key = request.idempotencyKey;
  if (key !== undefined) {
    if (!IDEMPOTENCY_KEY_PATTERN.test(key)) {
      throw new InvalidInputError(
        'Idempotency-Key',
        'expected 1-256 printable ASCII characters without spaces',
      );
    }
    const found = await reserveIdempotencyKey(
      table,
      request.shard,
      key,
      deps.now(),
      config.leaseMs,
    );
    if (found.state === 'done') return repeatAck(deps, found.ack, request.durability);
    if (found.state === 'in-progress') {
      throw new UnavailableError(
        `Idempotency-Key ${key}: an identical request is in progress; retry shortly`,
      );
    }
  }
  let ack: PutAck;
  let generation: number;
  let crossedTrigger: boolean;
  try {
    const allocation = await allocateSeq(table, {
      shard: request.shard,
      bytes,
      nowMs: deps.now(),
      maxBufferedBytes: config.maxBufferedBytes,
      retryAfterSeconds: Math.max(1, Math.ceil((config.flushIntervalMs ?? 1000) / 1000)),
    });
    generation = allocation.generation;
    await writeBatch(table, {
      shard: request.shard,
      seq: allocation.seq,
      batch,
      bytes,
      nowMs: deps.now(),
      idempotencyKey: key,
    });
    ack = { shard: request.shard, seq: allocation.seq, rows: rows.length, durable: false };
    crossedTrigger =
      allocation.bufferedBytes - bytes < config.flushTriggerBytes &&
      allocation.bufferedBytes >= config.flushTriggerBytes;
  } catch (error) {
    // Nothing was buffered: free the key so the caller's retry is not answered "in progress".
    if (key !== undefined && error instanceof ShardwalError)
      await releaseIdempotencyKey(table, request.shard, key);
    throw error;
  }
  if (key !== undefined) await completeWithRetry(deps, key, ack);
  if (crossedTrigger) {
    // Best effort: a lost request only means the next tick flushes this shard instead.
    await deps.requestFlush(request.shard).catch(() => undefined);
  }
  if (request.durability === Durability.durable) ack = await withDurability(deps, ack, generation);
  return { ack, repeated: false, bytes };
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
    pollMs: deps.config.durablePollMs,
    maxPollMs: maxPollMs(deps.config),
    now: deps.now,
    sleep: deps.sleep,
  });
  return { ...ack, durable };
}

/**
 * Records the ack, retrying transient failures: the rows are buffered, and an
 * unrecorded ack would let a retry after the reservation lease buffer them again.
 */
async function completeWithRetry(deps: PutDeps, key: string, ack: PutAck): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await completeIdempotencyKey(deps.table, key, ack, deps.now(), deps.config.idempotencyTtlMs);
      return;
    } catch (error) {
      if (!(error instanceof UnavailableError) || attempt >= 4) throw error;
      await deps.sleep(50 * 2 ** attempt);
    }
  }
}

/** A waiter re-reads at most every quarter interval (and at least once a second). */
function maxPollMs(config: ShardwalConfig): number {
  return Math.min(
    1_000,
    Math.max(config.durablePollMs, Math.floor((config.flushIntervalMs ?? 0) / 4)),
  );
}
