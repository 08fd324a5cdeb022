/**
 * Integration-test harness: one in-memory dynalite per test file, a fresh
 * table per test, and an instrumented memory object store, wired the way the
 * handlers wire them.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import { type ShardwalConfig, validateSettings } from '../../lib/config.js';
import { type FlushDeps, flushSettings } from '../../lib/flush/flush-shard.js';
import { itemLifetimes } from '../../lib/liveness.js';
import { ensureTable } from '../../lib/memtable/create-table.js';
import { type DynaliteServer, startDynalite } from '../../lib/memtable/dynalite-server.js';
import { payloadSpill } from '../../lib/memtable/spill.js';
import type { Table } from '../../lib/memtable/table.js';
import type { PutDeps } from '../../lib/put/put-rows.js';
import { InstrumentedObjectStore } from '../../lib/store/instrumented-store.js';
import { MemoryObjectStore } from '../../lib/store/memory-store.js';
import type { ObjectStore } from '../../lib/store/object-store.js';

/** Starts dynalite for the current test file; returns an accessor. */
export function useDynalite(): () => DynaliteServer {
  let server: DynaliteServer | undefined;
  beforeAll(async () => {
    server = await startDynalite();
  });
  afterAll(async () => {
    await server?.close();
  });
  return () => {
    if (!server) throw new Error('dynalite not started');
    return server;
  };
}

/** A fresh table on `server`. */
export async function freshTable(server: DynaliteServer): Promise<Table> {
  const table = { client: server.client, tableName: `t-${randomUUID()}` };
  await ensureTable(table);
  return table;
}

/** A controllable clock. */
interface TestClock {
  now: () => number;
  advance: (ms: number) => void;
}

/** A clock starting at a fixed instant, moved only by `advance`. */
function testClock(startMs = 1_800_000_000_000): TestClock {
  let now = startMs;
  return {
    now: () => now,
    advance: (ms) => {
      now += ms;
    },
  };
}

/** Everything a protocol test needs. */
export interface Fixture {
  table: Table;
  memory: MemoryObjectStore;
  store: InstrumentedObjectStore;
  config: ShardwalConfig;
  clock: TestClock;
  flushRequests: string[];
  put: PutDeps;
  flushDeps: (owner: string, overrides?: Partial<FlushDeps>) => FlushDeps;
}

/** Builds a fixture on a fresh table. */
export async function fixture(
  server: DynaliteServer,
  settings: Parameters<typeof validateSettings>[0] = {},
  inner?: ObjectStore,
): Promise<Fixture> {
  const table = await freshTable(server);
  const memory = new MemoryObjectStore();
  const store = new InstrumentedObjectStore(inner ?? memory);
  const config = validateSettings({
    flushIntervalMs: 1000,
    durablePollMs: 5,
    durableWaitMs: 2000,
    // Short liveness bounds, so tests may pick gap seals and reservation leases from 1 s.
    putDeadlineMs: 1000,
    clockSkewMs: 0,
    ...settings,
  });
  table.lifetimes = itemLifetimes(config);
  table.spill = payloadSpill(config, () => store);
  const clock = testClock();
  const flushRequests: string[] = [];
  return {
    table,
    memory,
    store,
    config,
    clock,
    flushRequests,
    put: {
      table,
      config,
      requestFlush: async (shard) => void flushRequests.push(shard),
      now: clock.now,
      sleep: (ms) => new Promise((resolve) => setTimeout(resolve, Math.min(ms, 5))),
    },
    flushDeps: (owner, overrides = {}) => ({
      table,
      store,
      owner,
      ...flushSettings(config),
      now: clock.now,
      ...overrides,
    }),
  };
}
