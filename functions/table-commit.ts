/**
 * Lambda: the Iceberg table committer, on a schedule (every
 * `SHARDWAL_TABLE_COMMIT_MS`); `{ "maintain": true }` (an hourly schedule)
 * also compacts, removes rows past history retention (where export
 * retention keeps each shard's history from: its cursor on the shard
 * record), expires snapshots and removes orphans.
 */
import type { Context } from 'aws-lambda';
import { historyKeptFrom } from '../lib/export/retention-cursor.js';
import { listShards } from '../lib/memtable/list-shards.js';
import { bucketStoreFromEnv } from '../lib/runtime/object-store-from-env.js';
import { serviceFromEnv } from '../lib/runtime/service.js';
import { wrapHandler } from '../lib/runtime/wrap.js';
import {
  catalogFromEnv,
  locationBaseFromEnv,
  runTables,
  tableDeps,
  tablesConfigFromEnv,
} from '../lib/table/index.js';

/** Time kept free at the end of an invocation: no new table starts inside it. */
const RESERVE_MS = 60_000;

const service = serviceFromEnv(process.env, { store: bucketStoreFromEnv() });
const config = tablesConfigFromEnv();
const deps = config && {
  ...tableDeps(service.store(), config, locationBaseFromEnv(), catalogFromEnv()),
  historyKeptFrom: historyKeptFrom(service.table),
};

export const handler = wrapHandler(async (event: unknown, context: Context) => {
  if (!deps) return { kind: 'tables', tables: [], note: 'no table configured (SHARDWAL_TABLES)' };
  const maintain =
    typeof event === 'object' && event !== null && 'maintain' in event && event.maintain === true;
  return runTables(deps, await listShards(service.table), {
    maintain,
    shouldStop: () => context.getRemainingTimeInMillis() < RESERVE_MS,
  });
});
