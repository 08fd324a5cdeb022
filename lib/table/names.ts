/**
 * Which table a shard's rows go to (`SHARDWAL_TABLES`), and the naming rule.
 *
 * The setting is a comma-separated list of entries, first match wins:
 * `pattern` or `pattern=table`, where `pattern` is a shard name or a glob
 * whose `*` matches any run of shard-name characters. An entry without
 * `=table` gives each matching shard its own table, named by the rule below.
 * Shards no entry matches have no table. Unset or empty: tables are off.
 * Examples: `*` (one table per shard); `clicks-*=clicks,*` (the ten click
 * shards in one `clicks` table, every other shard its own table).
 *
 * Naming rule: table names are valid in Glue and Athena as they are:
 * lowercase letters, digits and `_`, 1 to 128 characters. A shard's default
 * table name is the shard name with every `-` turned into `_` (`clicks-0` →
 * `clicks_0`); shard names admit nothing else that Glue would refuse. Two
 * shards whose names differ only by `-` against `_` share a table, and the
 * `shard` column tells their rows apart.
 */
import { ConfigError } from '../errors.js';

/** Environment name of the shard → table mapping. */
export const TABLES_ENV = 'SHARDWAL_TABLES';

/** Valid table names (Glue and Athena: lowercase letters, digits, `_`). */
export const TABLE_NAME_PATTERN = /^[a-z0-9_]{1,128}$/;

/** One entry of the mapping. */
export interface TableRoute {
  /** The pattern as written. */
  pattern: string;
  /** The table, or undefined: the shard's default name. */
  table: string | undefined;
  readonly matcher: RegExp;
}

/** The default table name of a shard: `-` becomes `_`. */
export function defaultTableName(shard: string): string {
  return shard.replaceAll('-', '_');
}

/** Parses `SHARDWAL_TABLES`; an invalid entry is a `ConfigError` naming it. */
export function parseTableRoutes(raw: string | undefined): TableRoute[] {
  if (raw === undefined || raw.trim() === '') return [];
  return raw.split(',').map((entry) => {
    const [patternText, tableText, extra] = entry.split('=').map((part) => part.trim());
    const pattern = patternText ?? '';
    if (extra !== undefined || !/^[a-z0-9_*-]{1,64}$/.test(pattern)) {
      throw new ConfigError(
        TABLES_ENV,
        raw,
        `entry ${JSON.stringify(entry)}: expected pattern or pattern=table, the pattern of a-z, 0-9, '-', '_' and '*'`,
      );
    }
    if (tableText !== undefined && !TABLE_NAME_PATTERN.test(tableText)) {
      throw new ConfigError(
        TABLES_ENV,
        raw,
        `entry ${JSON.stringify(entry)}: table names are 1-128 of a-z, 0-9 and '_' (Glue and Athena)`,
      );
    }
    const source = pattern
      .split('*')
      .map((part) => part.replace(/[-]/g, '\\-'))
      .join('[a-z0-9_-]*');
    return { pattern, table: tableText, matcher: new RegExp(`^${source}$`) };
  });
}

/** The table `shard` belongs to, or undefined when it has none. */
export function tableOfShard(routes: readonly TableRoute[], shard: string): string | undefined {
  for (const route of routes) {
    if (route.matcher.test(shard)) return route.table ?? defaultTableName(shard);
  }
  return undefined;
}

/** Groups shards by table; shards without a table are left out. */
export function groupShardsByTable(
  routes: readonly TableRoute[],
  shards: Iterable<string>,
): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const shard of shards) {
    const table = tableOfShard(routes, shard);
    if (table === undefined) continue;
    const list = out.get(table) ?? [];
    list.push(shard);
    out.set(table, list);
  }
  for (const list of out.values()) list.sort();
  return out;
}
