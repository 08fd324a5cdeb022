/** Table job dependencies from the environment (the function entry and the CLI use it). */
import path from 'node:path';
import { resourcesFromEnv } from '../config.js';
import type { ObjectStore } from '../store/object-store.js';
import type { TableCatalog } from './catalog.js';
import { catalogConfigFromEnv } from './catalog-config.js';
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

/**
 * The catalog the settings name (`catalog-config.ts`), or undefined for
 * path-based only. The Glue client loads on the catalog's first use, so a
 * committer without Glue never imports it.
 */
export function catalogFromEnv(env: NodeJS.ProcessEnv = process.env): TableCatalog | undefined {
  const config = catalogConfigFromEnv(env);
  if (!config) return undefined;
  let glue: Promise<TableCatalog> | undefined;
  const catalog = () => {
    glue ??= import('./glue-catalog.js').then(({ glueCatalogOf }) =>
      glueCatalogOf(config.database),
    );
    return glue;
  };
  return {
    name: 'glue',
    read: async (table) => (await catalog()).read(table),
    update: async (table, entry, location) => (await catalog()).update(table, entry, location),
  };
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
