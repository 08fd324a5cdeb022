/**
 * Memory and timeout of each function, derived from the settings they run
 * with. Lambda gives CPU in proportion to memory (one vCPU at 1,769 MB), so
 * memory is chosen for the CPU a function's work needs as much as for bytes.
 */
import { Duration } from 'aws-cdk-lib';
import type { ShardwalConfig } from '../../lib/config.js';
import { fixedFlushConcurrency } from '../../lib/ticker/tick-plan.js';

/** Memory and timeout of one function. */
export interface FunctionSize {
  memoryMb: number;
  timeout: Duration;
}

const MIB = 1024 * 1024;

/** Slack after a put's durable wait for the counter update, batch write and response. */
const PUT_MARGIN_S = 4;

/** Slack after a one-minute tick loop for the last tick's in-flight flushes to commit. */
const TICK_MARGIN_S = 30;

const roundUp = (n: number, step: number) => Math.ceil(n / step) * step;

/**
 * A flusher holds, per shard in flight, the decompressed batches of one WAL
 * object, their JSON Lines encoding and the gzip output: about three times
 * `maxWalObjectBytes`, for `flushConcurrency` shards, over a 256 MB runtime
 * baseline. Never below 1,024 MB, where gzip gets most of a vCPU.
 */
function flusherMemoryMb(config: ShardwalConfig): number {
  const inFlightMb = (3 * fixedFlushConcurrency(config) * config.maxWalObjectBytes) / MIB;
  return Math.min(10_240, Math.max(1_024, roundUp(256 + inFlightMb, 64)));
}

/** Sizes of every function. */
export function functionSizes(config: ShardwalConfig) {
  return {
    // I/O-bound (two or three DynamoDB calls), but it parses and gzips bodies
    // of up to maxBodyBytes; 512 MB keeps that to a few ms and cold starts short.
    // The timeout covers the longest durable wait plus the write path, and
    // stays under the HTTP API's 30 s integration limit (settings cap the wait at 25 s).
    putHttp: {
      memoryMb: 512,
      timeout: Duration.seconds(Math.ceil(config.durableWaitMs / 1000) + PUT_MARGIN_S),
    },
    // Same work per message as putHttp, ten messages a batch, nobody waiting on durability.
    putSqs: { memoryMb: 512, timeout: Duration.seconds(30) },
    // Two reads and a small JSON answer.
    statusHttp: { memoryMb: 256, timeout: Duration.seconds(10) },
    // A schedule invocation runs a minute of ticks (or one tick for intervals
    // of whole minutes); the margin lets the last tick's flushes commit instead
    // of being cut off mid-protocol.
    flushTick: { memoryMb: flusherMemoryMb(config), timeout: Duration.seconds(60 + TICK_MARGIN_S) },
    // One list of shards per message (up to 1,500 names), flushed 48 at a time, each one WAL PUT.
    flushWorker: { memoryMb: flusherMemoryMb(config), timeout: Duration.minutes(2) },
    // Folds a shard's previous export and WAL tail in memory; walks every shard.
    export: { memoryMb: 2_048, timeout: Duration.minutes(15) },
    // Verifies every shard's chain, or replays one shard's export plus WAL tail.
    recover: { memoryMb: 2_048, timeout: Duration.minutes(15) },
    // Reads up to SHARDWAL_TABLE_MAX_COMMIT_BYTES (256 MB by default) of WAL per
    // table and holds a data file's rows and its Parquet encoding (files aim at
    // SHARDWAL_TABLE_TARGET_FILE_BYTES, 128 MB): 2,048 MB, also more than one
    // vCPU for the encoding. The longest Lambda allows: compaction and a
    // backfill run long, and the handler starts no table in its last minute.
    tableCommit: { memoryMb: 2_048, timeout: Duration.minutes(15) },
  } satisfies Record<string, FunctionSize>;
}
