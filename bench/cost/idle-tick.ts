/**
 * The tick's cost with idle shards: an idle shard is not in the sparse
 * pending index, so a tick that finds N idle shards costs what one that
 * finds none costs. Measured: N shards each get one put and are flushed
 * (unmetered setup), then one tick with no active shard and one with a
 * single active shard among the N are metered.
 */

import { join } from 'node:path';
import { handlePut } from '../../lib/http/put-route.js';
import { ensureTable } from '../../lib/memtable/create-table.js';
import { FsObjectStore } from '../../lib/store/fs-store.js';
import {
  InstrumentedObjectStore,
  type StoreRequestCounts,
} from '../../lib/store/instrumented-store.js';
import { mapWithConcurrency } from '../../lib/ticker/concurrency.js';
import { runTick } from '../../lib/ticker/tick.js';
import { FlushTimeEstimate } from '../../lib/ticker/tick-plan.js';
import type { MeterCounters } from './billing/meter-ledger.js';
import { MeteredDynamoDB } from './billing/metered-dynamodb.js';
import { httpEvent } from './lambda-events.js';
import { captureOutput, emptyCapture } from './log-capture.js';
import { type BenchEnv, serviceFor } from './run-workload.js';
import { VirtualClock } from './virtual-clock.js';
import { STANDARD } from './workload.js';

/** One metered tick. */
export interface IdleTick {
  idleShards: number;
  activeShards: number;
  units: MeterCounters;
  s3: StoreRequestCounts;
}

/** Measures a tick over `idleShards` idle shards, with 0 and then 1 active shard. */
export async function measureIdleTicks(env: BenchEnv, idleShards: number): Promise<IdleTick[]> {
  // The handlers log at INFO; none of it is measured here.
  return captureOutput(emptyCapture(), () => idleTicks(env, idleShards));
}

async function idleTicks(env: BenchEnv, idleShards: number): Promise<IdleTick[]> {
  const tableName = `cost-idle-${idleShards}`;
  const clock = new VirtualClock(Date.UTC(2026, 11, 2));
  const meter = new MeteredDynamoDB(env.dynamo, { label: 'setup' });
  await ensureTable({ client: env.dynamo, tableName });
  const store = new InstrumentedObjectStore(new FsObjectStore(join(env.dir, tableName)));
  const raw = serviceFor(
    env,
    { client: env.dynamo, tableName },
    store,
    clock,
    STANDARD,
    () => undefined,
  );
  const metered = serviceFor(
    env,
    { client: meter.client, tableName },
    store,
    clock,
    STANDARD,
    () => undefined,
  );
  const names = Array.from({ length: idleShards }, (_, i) => `idle-${String(i).padStart(5, '0')}`);
  const put = async (shard: string) => {
    const result = await handlePut(
      httpEvent(shard, JSON.stringify({ rows: [{ shard }] }), undefined, clock.now()),
      raw.put,
    );
    if (result.statusCode !== 202) throw new Error(`idle setup put to ${shard}: ${result.body}`);
  };
  await mapWithConcurrency(names, 8, put);
  await clock.runUntil(clock.now() + 1_000);
  // Flush them all (no budget: every pending shard here), so they are idle from now on.
  await runTick({
    ...raw.tick('setup'),
    intervalMs: undefined,
    flushTime: new FlushTimeEstimate(),
  });
  const out: IdleTick[] = [];
  for (const active of [0, 1]) {
    if (active > 0) await put(names[0]!);
    await clock.runUntil(clock.now() + 1_000);
    meter.reset();
    store.reset();
    const summary = await runTick({ ...metered.tick('idle'), flushTime: new FlushTimeEstimate() });
    out.push({
      idleShards: idleShards - summary.activeShards,
      activeShards: summary.activeShards,
      units: meter.totals(),
      s3: store.counts(),
    });
  }
  return out;
}
