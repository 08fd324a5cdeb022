/**
 * The Iceberg tables' deployment settings (`docs/tables.md`): `tables` (the
 * shard → table routes, `SHARDWAL_TABLES`), `tableSchemas`
 * (`SHARDWAL_TABLE_SCHEMAS`, JSON text or, in props and `cdk.json`, the
 * object itself) and `tableCommitMs` (`SHARDWAL_TABLE_COMMIT_MS`). Unset
 * `tables`: no committer function, no schedules, no table grants.
 * `tableCatalog: 'glue'` with `tableGlueDatabase` registers every table in
 * the Glue Data Catalog (`SHARDWAL_TABLE_CATALOG`,
 * `SHARDWAL_TABLE_GLUE_DATABASE`); the construct creates one Glue table per
 * table, so each `tables` entry must name its table at synth. The values
 * are validated by the code that reads them at run time
 * (`lib/table/table-config.ts`), so synth refuses exactly what a cold start
 * would; an error names the key, not the environment name.
 */
import { ConfigError } from '../lib/errors.js';
import { CATALOG_ENV, catalogConfigFromEnv } from '../lib/table/catalog-config.js';
import { defaultTableName, TABLES_ENV } from '../lib/table/names.js';
import {
  TABLE_SCHEMAS_ENV,
  TABLE_SETTINGS,
  type TablesConfig,
  tablesConfigFromEnv,
} from '../lib/table/table-config.js';
import { ContextError, type ContextReader, isSet } from './context-values.js';

/** Context keys of the table settings. */
export const TABLE_CONTEXT = {
  tables: 'tables',
  tableSchemas: 'tableSchemas',
  tableCommitMs: 'tableCommitMs',
  tableCatalog: 'tableCatalog',
  tableGlueDatabase: 'tableGlueDatabase',
} as const;

/** The context key of each environment name the table settings set. */
const KEY_OF_ENV: Record<string, string> = {
  [TABLES_ENV]: TABLE_CONTEXT.tables,
  [TABLE_SCHEMAS_ENV]: TABLE_CONTEXT.tableSchemas,
  [TABLE_SETTINGS.commitMs.env]: TABLE_CONTEXT.tableCommitMs,
  [CATALOG_ENV.catalog]: TABLE_CONTEXT.tableCatalog,
  [CATALOG_ENV.glueDatabase]: TABLE_CONTEXT.tableGlueDatabase,
};

/** The Glue registration of a deployment with `tableCatalog: 'glue'`. */
interface GlueDeploySettings {
  database: string;
  /** Every table the routes name, sorted: one Glue table each. */
  tables: string[];
}

/** The validated table settings of a deployment with tables on. */
export interface TableDeploySettings {
  config: TablesConfig;
  /**
   * The commit schedule's period: `tableCommitMs` rounded up to whole
   * minutes, EventBridge Scheduler's finest rate (60 s, the default, is one).
   */
  commitEveryMinutes: number;
  /** What every function's environment carries (export reads it too: the retention floor). */
  environment: Record<string, string>;
  /** The Glue registration; undefined: path-based only. */
  glue: GlueDeploySettings | undefined;
}

/** Text of a context value: strings as given, numbers as digits, objects as JSON. */
function textOf(raw: unknown): string {
  if (typeof raw === 'string') return raw;
  if (typeof raw === 'number' || typeof raw === 'boolean') return String(raw);
  return JSON.stringify(raw);
}

/** The table settings, or undefined when `tables` is unset (tables off). */
export function tableSettingsFrom(get: ContextReader): TableDeploySettings | undefined {
  const raw = {
    tables: get(TABLE_CONTEXT.tables),
    tableSchemas: get(TABLE_CONTEXT.tableSchemas),
    tableCommitMs: get(TABLE_CONTEXT.tableCommitMs),
    tableCatalog: get(TABLE_CONTEXT.tableCatalog),
    tableGlueDatabase: get(TABLE_CONTEXT.tableGlueDatabase),
  };
  const environment: Record<string, string> = {};
  if (isSet(raw.tables)) environment[TABLES_ENV] = textOf(raw.tables);
  if (isSet(raw.tableSchemas)) environment[TABLE_SCHEMAS_ENV] = textOf(raw.tableSchemas);
  if (isSet(raw.tableCommitMs))
    environment[TABLE_SETTINGS.commitMs.env] = textOf(raw.tableCommitMs);
  if (isSet(raw.tableCatalog)) environment[CATALOG_ENV.catalog] = textOf(raw.tableCatalog);
  if (isSet(raw.tableGlueDatabase)) {
    environment[CATALOG_ENV.glueDatabase] = textOf(raw.tableGlueDatabase);
  }
  /** Runs a reader of the settings; its `ConfigError` names the context key instead. */
  const named = <T>(read: () => T): T => {
    try {
      return read();
    } catch (error) {
      const key = error instanceof ConfigError ? KEY_OF_ENV[error.setting] : undefined;
      if (key === undefined) throw error;
      const problem = (error as Error).message.replace(/^.*?=("[^"]*"|[^:]*): /, '');
      throw new ContextError(key, raw[key as keyof typeof raw], problem, { cause: error });
    }
  };
  const config = named(() => tablesConfigFromEnv(environment));
  if (config === undefined) {
    for (const key of [
      TABLE_CONTEXT.tableSchemas,
      TABLE_CONTEXT.tableCommitMs,
      TABLE_CONTEXT.tableCatalog,
      TABLE_CONTEXT.tableGlueDatabase,
    ] as const) {
      if (isSet(raw[key])) {
        throw new ContextError(key, raw[key], 'set only with tables (no table is configured)');
      }
    }
    return undefined;
  }
  const catalog = named(() => catalogConfigFromEnv(environment));
  // Resolved, like the flush interval: the schedule is derived from it.
  environment[TABLE_SETTINGS.commitMs.env] = String(config.commitMs);
  return {
    config,
    commitEveryMinutes: Math.max(1, Math.ceil(config.commitMs / 60_000)),
    environment,
    glue: catalog && { database: catalog.database, tables: glueTables(config, raw.tables) },
  };
}

/**
 * The tables a Glue registration creates: each route's table, known at
 * synth only when the entry names it (`pattern=table`) or its pattern is one
 * shard's name (no `*`: the shard's default table name).
 */
function glueTables(config: TablesConfig, raw: unknown): string[] {
  const tables = new Set<string>();
  for (const route of config.routes) {
    if (route.table === undefined && route.pattern.includes('*')) {
      throw new ContextError(
        TABLE_CONTEXT.tables,
        raw,
        `entry ${JSON.stringify(route.pattern)} names no table, and with tableCatalog glue the construct creates each Glue table at synth: write it as pattern=table`,
      );
    }
    tables.add(route.table ?? defaultTableName(route.pattern));
  }
  return [...tables].sort();
}
