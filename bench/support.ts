/** Benchmark helpers: seeded data, request counting, percentiles. */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
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
  const client = new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
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
