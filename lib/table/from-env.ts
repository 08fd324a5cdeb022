/** Table job dependencies from the environment (the function entry and the CLI use it). */
import path from 'node:path';
import { resourcesFromEnv } from '../config.js';
import type { ObjectStore } from '../store/object-store.js';
import type { TableDeps } from './deps.js';
import type { TablesConfig } from './table-config.js';

/** Environment name of the local store's folder (as `lib/runtime/clients.ts` reads it). */
const STORE_DIR_ENV = 'SHARDWAL_STORE_DIR';

/** The URI tables are located under: the local store's folder, or the bucket. */
export function locationBaseFromEnv(env: NodeJS.ProcessEnv = process.env): string {
  const dir = env[STORE_DIR_ENV];
  if (dir) return `file://${path.resolve(dir)}`;
  return `s3://${resourcesFromEnv(env).bucketName}`;
}

/** Deps of the table jobs over `store`. */
export function tableDeps(
  store: ObjectStore,
  config: TablesConfig,
  locationBase: string,
): TableDeps {
  return { store, config, locationBase, now: () => Date.now() };
}
