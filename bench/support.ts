/** Benchmark helpers: seeded data, request counting, percentiles, WAL objects as the flusher writes them. */
import { spawn } from 'node:child_process';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { emulatorClientOptions } from '../lib/emulator-options.js';
import { buildWalObject } from '../lib/flush/build-wal-object.js';
import { BATCH_ENCODING, encodeBatchRows } from '../lib/memtable/batch-codec.js';
import type { StoredBatch } from '../lib/memtable/read-batches.js';
import type { ShardRecord } from '../lib/memtable/shard-record.js';
import type { Row } from '../lib/rows/row.js';
import type { JsonObject } from '../lib/wal/format.js';

export { seededRandom } from '../lib/seeded-random.js';

/** One put of the workload. */
export interface Job {
  shard: string;
  rows: JsonObject[];
}

/** `puts` puts of `rows` rows (~100 bytes each) spread over `shards` shards. */
export function workload(random: () => number, puts: number, rows: number, shards: number): Job[] {
  return Array.from({ length: puts }, (_, i) => ({
    shard: `bench-${Math.floor(random() * shards)}`,
    rows: Array.from({ length: rows }, (_, j) => ({
      id: `${i}-${j}`,
      at: 1_700_000_000_000 + i,
      value: Math.floor(random() * 1e9),
      note: random().toString(36).slice(2, 12).repeat(5),
    })),
  }));
}

/** A DynamoDB client that counts the requests it sends. */
export function countRequests(endpoint: string) {
  let count = 0;
  const client = new DynamoDBClient(emulatorClientOptions(endpoint));
  client.middlewareStack.add(
    (next) => async (args) => {
      count++;
      return next(args);
    },
    { step: 'initialize', name: 'countRequests' },
  );
  const reset = () => {
    count = 0;
  };
  return { client, count: () => count, reset };
}

/** The p-th percentile (nearest rank) of `values`. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/**
 * The bytes of WAL object `position` as the flusher writes it today: each
 * batch encoded by the put path (`encodeBatchRows`: row lines, one gzip
 * member) and the object built from those members as they are
 * (`buildWalObject`, WAL v3). Seqs run from `firstSeq`, one per batch.
 */
export function flushedWalObject(
  shard: string,
  position: number,
  firstSeq: number,
  firstRowOffset: number,
  batches: readonly (readonly Row[])[],
  createdAtMs: number,
): Uint8Array {
  const stored = batches.map((rows, i): StoredBatch => {
    const encoded = encodeBatchRows(rows);
    return {
      seq: firstSeq + i,
      kind: 'rows',
      rows: [...rows],
      rowCount: encoded.rowCount,
      bytes: encoded.jsonBytes,
      payload: encoded.compressed,
      encoding: BATCH_ENCODING,
      createdAtMs,
      chargeEnd: undefined,
      allocatedAtMs: undefined,
      itemKeys: [],
    };
  });
  const record = { shard, walNextPos: position, nextRowOffset: firstRowOffset } as ShardRecord;
  return buildWalObject(record, 1, stored, createdAtMs).body;
}

/**
 * Starts dynalite (in memory) in a child process of its own: in AWS,
 * DynamoDB's work is not the caller's, so a bench that times its caller's
 * CPU (`process.cpuUsage`, every thread of this process) must not count the
 * emulator's. `close` ends the child and the client.
 */
export async function startDynaliteProcess(): Promise<{
  endpoint: string;
  client: DynamoDBClient;
  close: () => Promise<void>;
}> {
  // It ends with its parent: a bench killed midway leaves no emulator behind.
  const script = `process.on('disconnect', () => process.exit());
    require('dynalite')({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 })
    .listen(0, '127.0.0.1', function () { process.send({ port: this.address().port }); });`;
  const child = spawn(process.execPath, ['-e', script], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (message) => resolve((message as { port: number }).port));
    child.once('exit', (code) => reject(new Error(`dynalite exited with ${code}`)));
  });
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new DynamoDBClient(emulatorClientOptions(endpoint));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    endpoint,
    client,
    close: async () => {
      client.destroy();
      child.kill();
      await exited;
    },
  };
}
