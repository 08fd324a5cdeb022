/**
 * Put-path speed of `MemoryDynamoDB` against dynalite, in one process:
 * `putRows` of a 3-row batch (an allocate UpdateItem and a batch PutItem per
 * put), timed over a few thousand iterations, median of 3 runs each.
 *
 *   node --import tsx test/support/sim-dynamodb/speed.ts [puts per run]
 */
import { performance } from 'node:perf_hooks';
import { startDynalite } from '../../../lib/memtable/dynalite-server.js';
import { putRows } from '../../../lib/put/put-rows.js';
import type { DynamoSender } from './memory-dynamodb.js';
import { MemoryDynamoDB } from './memory-dynamodb.js';
import { clientFixture } from './memory-fixture.js';
import { putBody } from './put-bodies.js';

const RUNS = 3;
const WARMUP_PUTS = 200;

/** Counts the requests that pass through. */
function counting(inner: DynamoSender): DynamoSender & { requests: number } {
  const wrapper = {
    requests: 0,
    // biome-ignore lint/suspicious/noExplicitAny: forwards any SDK command
    send: (command: any) => {
      wrapper.requests++;
      return inner.send(command);
    },
  };
  return wrapper;
}

/** One timed run on a fresh table: puts/s and requests/s. */
async function run(
  client: DynamoSender,
  puts: number,
): Promise<{ putsPerSecond: number; requestsPerSecond: number }> {
  const counted = counting(client);
  const f = await clientFixture(counted);
  const put = (i: number) =>
    putRows(f.put, {
      shard: `s${i % 8}`,
      body: putBody(f.config, [{ i }, { i, b: 'x' }, { i, c: true }]),
      durability: 'buffered',
    });
  for (let i = 0; i < WARMUP_PUTS; i++) await put(i);
  const before = counted.requests;
  const started = performance.now();
  for (let i = 0; i < puts; i++) await put(i);
  const seconds = (performance.now() - started) / 1000;
  return {
    putsPerSecond: puts / seconds,
    requestsPerSecond: (counted.requests - before) / seconds,
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function measure(name: string, client: () => DynamoSender, puts: number) {
  const runs = [];
  for (let i = 0; i < RUNS; i++) runs.push(await run(client(), puts));
  const result = {
    name,
    puts,
    putsPerSecond: median(runs.map((r) => r.putsPerSecond)),
    requestsPerSecond: median(runs.map((r) => r.requestsPerSecond)),
  };
  console.log(
    `${name.padEnd(16)} ${String(puts).padStart(6)} puts/run  median of ${RUNS}: ${result.putsPerSecond.toFixed(0).padStart(8)} puts/s  ${result.requestsPerSecond.toFixed(0).padStart(8)} requests/s`,
  );
  return result;
}

async function main() {
  const puts = Number(process.argv[2] ?? 3000);
  const dynalite = await startDynalite();
  try {
    const reference = await measure('dynalite', () => dynalite.client, puts);
    const memory = await measure('MemoryDynamoDB', () => new MemoryDynamoDB(), puts);
    console.log(
      `MemoryDynamoDB / dynalite: ${(memory.requestsPerSecond / reference.requestsPerSecond).toFixed(1)}x requests/s`,
    );
  } finally {
    await dynalite.close();
  }
}

await main();
