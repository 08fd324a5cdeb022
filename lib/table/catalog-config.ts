/**
 * Which catalog the tables' pointers follow (`catalog.ts`):
 *
 *   SHARDWAL_TABLE_CATALOG        `path` (default: the metadata file's path
 *                                 is the catalog) or `glue`
 *   SHARDWAL_TABLE_GLUE_DATABASE  the Glue database of the tables (with
 *                                 `glue`; the construct creates it and one
 *                                 Glue table per table)
 */
import { ConfigError } from '../errors.js';

/** Environment names of the catalog settings. */
export const CATALOG_ENV = {
  catalog: 'SHARDWAL_TABLE_CATALOG',
  glueDatabase: 'SHARDWAL_TABLE_GLUE_DATABASE',
} as const;

/** Catalogs a table can follow. */
const CatalogKind = { path: 'path', glue: 'glue' } as const;

/** Valid Glue database names (Glue stores them lowercase; Athena wants no more than this). */
const GLUE_DATABASE_PATTERN = /^[a-z0-9_]{1,255}$/;

/** The Glue catalog's settings. */
export interface GlueCatalogConfig {
  kind: typeof CatalogKind.glue;
  database: string;
}

/** The catalog settings: undefined for path-based only. */
export function catalogConfigFromEnv(
  env: NodeJS.ProcessEnv = process.env,
): GlueCatalogConfig | undefined {
  const kind = env[CATALOG_ENV.catalog]?.trim() || CatalogKind.path;
  const database = env[CATALOG_ENV.glueDatabase]?.trim() || undefined;
  if (kind === CatalogKind.path) {
    if (database !== undefined) {
      throw new ConfigError(
        CATALOG_ENV.glueDatabase,
        database,
        `set only with ${CATALOG_ENV.catalog}=glue`,
      );
    }
    return undefined;
  }
  if (kind !== CatalogKind.glue) {
    throw new ConfigError(CATALOG_ENV.catalog, kind, 'expected path or glue');
  }
  if (database === undefined) {
    throw new ConfigError(CATALOG_ENV.glueDatabase, '', 'the Glue database is required with glue');
  }
  if (!GLUE_DATABASE_PATTERN.test(database)) {
    throw new ConfigError(
      CATALOG_ENV.glueDatabase,
      database,
      "Glue database names are 1-255 of a-z, 0-9 and '_'",
    );
  }
  return { kind: CatalogKind.glue, database };
}
