/**
 * The Iceberg tables' deployment settings (`docs/tables.md`): `tables` (the
 * shard → table routes, `SHARDWAL_TABLES`), `tableSchemas`
 * (`SHARDWAL_TABLE_SCHEMAS`, JSON text or, in props and `cdk.json`, the
 * object itself) and `tableCommitMs` (`SHARDWAL_TABLE_COMMIT_MS`). Unset
 * `tables`: no committer function, no schedules, no table grants. The values
 * are validated by the code that reads them at run time
 * (`lib/table/table-config.ts`), so synth refuses exactly what a cold start
 * would; an error names the key, not the environment name.
 */
import { ConfigError } from '../lib/errors.js';
import { TABLES_ENV } from '../lib/table/names.js';
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
} as const;

/** The context key of each environment name the table settings set. */
const KEY_OF_ENV: Record<string, string> = {
  [TABLES_ENV]: TABLE_CONTEXT.tables,
  [TABLE_SCHEMAS_ENV]: TABLE_CONTEXT.tableSchemas,
  [TABLE_SETTINGS.commitMs.env]: TABLE_CONTEXT.tableCommitMs,
};

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
  };
  const environment: Record<string, string> = {};
  if (isSet(raw.tables)) environment[TABLES_ENV] = textOf(raw.tables);
  if (isSet(raw.tableSchemas)) environment[TABLE_SCHEMAS_ENV] = textOf(raw.tableSchemas);
  if (isSet(raw.tableCommitMs))
    environment[TABLE_SETTINGS.commitMs.env] = textOf(raw.tableCommitMs);
  let config: TablesConfig | undefined;
  try {
    config = tablesConfigFromEnv(environment);
  } catch (error) {
    const key = error instanceof ConfigError ? KEY_OF_ENV[error.setting] : undefined;
    if (key === undefined) throw error;
    const problem = (error as Error).message.replace(/^.*?=("[^"]*"|[^:]*): /, '');
    throw new ContextError(key, raw[key as keyof typeof raw], problem, { cause: error });
  }
  if (config === undefined) {
    for (const key of [TABLE_CONTEXT.tableSchemas, TABLE_CONTEXT.tableCommitMs] as const) {
      if (isSet(raw[key])) {
        throw new ContextError(key, raw[key], 'set only with tables (no table is configured)');
      }
    }
    return undefined;
  }
  // Resolved, like the flush interval: the schedule is derived from it.
  environment[TABLE_SETTINGS.commitMs.env] = String(config.commitMs);
  return {
    config,
    commitEveryMinutes: Math.max(1, Math.ceil(config.commitMs / 60_000)),
    environment,
  };
}
