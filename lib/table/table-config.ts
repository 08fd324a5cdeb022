/**
 * Table settings from the environment: the shard → table routes
 * (`names.ts`), each table's declared typed columns and partitioning
 * (`SHARDWAL_TABLE_SCHEMAS`), and the committer's and maintenance's numbers.
 *
 * `SHARDWAL_TABLE_SCHEMAS` is JSON: `{"<table>": {"partition": "day" | "hour"
 * | "shard", "columns": {"<name>": "<type>", ...}}}`; a table it does not
 * name has no typed columns and is partitioned by `day(ingested_at)`.
 */
import { ConfigError } from '../errors.js';
import { parseTableRoutes, TABLE_NAME_PATTERN, TABLES_ENV, type TableRoute } from './names.js';
import { checkTypedColumn, PartitionBy, type TypedColumn, type TypedColumnType } from './schema.js';

/** Environment name of the declared schemas. */
export const TABLE_SCHEMAS_ENV = 'SHARDWAL_TABLE_SCHEMAS';

/** Numeric table settings: environment names, defaults, lower bounds. */
export const TABLE_SETTINGS = {
  /** A table commits at most this often (freshness: this plus one tick). */
  commitMs: { env: 'SHARDWAL_TABLE_COMMIT_MS', default: 60_000, min: 1 },
  /** Target size of a data file; compaction merges smaller ones up to it. */
  targetFileBytes: {
    env: 'SHARDWAL_TABLE_TARGET_FILE_BYTES',
    default: 128 * 1024 * 1024,
    min: 1024,
  },
  /** Cap on WAL bytes one commit reads per table (what a Lambda's memory allows). */
  maxCommitBytes: { env: 'SHARDWAL_TABLE_MAX_COMMIT_BYTES', default: 256 * 1024 * 1024, min: 1 },
  /** Snapshots kept by expiry whatever their age (the current one always is). */
  keepSnapshots: { env: 'SHARDWAL_TABLE_KEEP_SNAPSHOTS', default: 10, min: 1 },
  /** Snapshots younger than this are kept by expiry (1 h: with a commit a minute, every kept snapshot is in every metadata file). */
  snapshotMaxAgeMs: {
    env: 'SHARDWAL_TABLE_SNAPSHOT_MAX_AGE_MS',
    default: 3600 * 1000,
    min: 0,
  },
  /**
   * Unreferenced files younger than this are never removed (a commit may still be taking
   * them). O3 (`orphans.ts`) needs a commit try to end within half of it: at least twice the
   * committer's 15-minute Lambda timeout.
   */
  orphanAgeMs: { env: 'SHARDWAL_TABLE_ORPHAN_AGE_MS', default: 3600 * 1000, min: 30 * 60 * 1000 },
} as const;

/** One table's declared options. */
export interface TableOptions {
  partition: PartitionBy;
  columns: TypedColumn[];
}

/** Validated table configuration. */
export interface TablesConfig {
  routes: TableRoute[];
  /** Options by table name; absent: no typed columns, partitioned by day. */
  options: Map<string, TableOptions>;
  commitMs: number;
  targetFileBytes: number;
  maxCommitBytes: number;
  keepSnapshots: number;
  snapshotMaxAgeMs: number;
  orphanAgeMs: number;
}

/** The options of `table` (defaults when not declared). */
export function optionsOf(config: TablesConfig, table: string): TableOptions {
  return config.options.get(table) ?? { partition: PartitionBy.day, columns: [] };
}

function parseSchemas(raw: string | undefined): Map<string, TableOptions> {
  const out = new Map<string, TableOptions>();
  if (raw === undefined || raw.trim() === '') return out;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new ConfigError(TABLE_SCHEMAS_ENV, raw, 'expected JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new ConfigError(TABLE_SCHEMAS_ENV, raw, 'expected an object of table names');
  }
  for (const [table, value] of Object.entries(parsed)) {
    if (!TABLE_NAME_PATTERN.test(table)) {
      throw new ConfigError(TABLE_SCHEMAS_ENV, table, "table names are 1-128 of a-z, 0-9 and '_'");
    }
    const spec = (value ?? {}) as { partition?: unknown; columns?: unknown };
    const partition = spec.partition ?? PartitionBy.day;
    if (!Object.values(PartitionBy).includes(partition as PartitionBy)) {
      throw new ConfigError(
        TABLE_SCHEMAS_ENV,
        partition,
        `table ${table}: expected day, hour or shard`,
      );
    }
    const columnsRaw = spec.columns ?? {};
    if (typeof columnsRaw !== 'object' || columnsRaw === null || Array.isArray(columnsRaw)) {
      throw new ConfigError(
        TABLE_SCHEMAS_ENV,
        columnsRaw,
        `table ${table}: columns is {"name": "type"}`,
      );
    }
    const columns = Object.entries(columnsRaw).map(([name, type]) => {
      const column = { name, type: String(type).replace(/\s+/g, '') as TypedColumnType };
      checkTypedColumn(TABLE_SCHEMAS_ENV, table, column);
      return column;
    });
    out.set(table, { partition: partition as PartitionBy, columns });
  }
  return out;
}

function parseNumber(name: keyof typeof TABLE_SETTINGS, raw: string | undefined): number {
  const spec = TABLE_SETTINGS[name];
  if (raw === undefined || raw.trim() === '') return spec.default;
  const value = Number(raw.trim());
  if (!Number.isInteger(value) || value < spec.min) {
    throw new ConfigError(spec.env, raw, `expected a whole number of at least ${spec.min}`);
  }
  return value;
}

/** Reads and validates the table settings; `undefined` when no table is configured. */
export function tablesConfigFromEnv(
  env: NodeJS.ProcessEnv = process.env,
): TablesConfig | undefined {
  const routes = parseTableRoutes(env[TABLES_ENV]);
  const options = parseSchemas(env[TABLE_SCHEMAS_ENV]);
  const num = (name: keyof typeof TABLE_SETTINGS) =>
    parseNumber(name, env[TABLE_SETTINGS[name].env]);
  const config: TablesConfig = {
    routes,
    options,
    commitMs: num('commitMs'),
    targetFileBytes: num('targetFileBytes'),
    maxCommitBytes: num('maxCommitBytes'),
    keepSnapshots: num('keepSnapshots'),
    snapshotMaxAgeMs: num('snapshotMaxAgeMs'),
    orphanAgeMs: num('orphanAgeMs'),
  };
  return routes.length === 0 ? undefined : config;
}
