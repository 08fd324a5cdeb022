/** Table job dependencies from the environment (the function entry and the CLI use it). */
import path from 'node:path';
import { GlueClient } from '@aws-sdk/client-glue';
import { resourcesFromEnv } from '../config.js';
import type { ObjectStore } from '../store/object-store.js';
import type { TableCatalog } from './catalog.js';
import { catalogConfigFromEnv } from './catalog-config.js';
import type { TableDeps } from './deps.js';
import { GlueCatalog } from './glue-catalog.js';
import type { TablesConfig } from './table-config.js';

/** Environment name of the local store's folder (as `lib/runtime/clients.ts` reads it). */
const STORE_DIR_ENV = 'SHARDWAL_STORE_DIR';

/** The URI tables are located under: the local store's folder, or the bucket. */
export function locationBaseFromEnv(env: NodeJS.ProcessEnv = process.env): string {
  const dir = env[STORE_DIR_ENV];
  if (dir) return `file://${path.resolve(dir)}`;
  return `s3://${resourcesFromEnv(env).bucketName}`;
}

/** The catalog the settings name (`catalog-config.ts`), or undefined for path-based only. */
export function catalogFromEnv(env: NodeJS.ProcessEnv = process.env): TableCatalog | undefined {
  const config = catalogConfigFromEnv(env);
  return config && new GlueCatalog(new GlueClient({}), config.database);
}

/** Deps of the table jobs over `store`, moving `catalog`'s pointers when given. */
export function tableDeps(
  store: ObjectStore,
  config: TablesConfig,
  locationBase: string,
  catalog?: TableCatalog,
): TableDeps {
  return { store, config, locationBase, now: () => Date.now(), ...(catalog ? { catalog } : {}) };
}
