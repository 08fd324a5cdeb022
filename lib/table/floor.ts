/**
 * A routed shard's table holds its history up to the table's high-water for
 * it (0 before its first commit). Two consequences, both read through
 * `tableHold`:
 *
 * 1. The table is a retention floor: export's retention
 *    (`lib/export/retention.ts`, T2) retires no WAL position of the shard
 *    that the table has not committed (the table reads only the WAL).
 * 2. Below the high-water the table's data files are the shard's keyless
 *    history: export lists them as table segments instead of writing
 *    segments of its own (`lib/export/segment-archive.ts`, zero-copy).
 *
 * A shard without a table has no hold.
 */
import type { ObjectStore } from '../store/object-store.js';
import { loadCurrent } from './metadata.js';
import { tableOfShard } from './names.js';
import { tableHighWater } from './progress.js';
import type { TablesConfig } from './table-config.js';

/** The table routing a shard, and the WAL position below which it holds every row of it. */
export interface TableHold {
  table: string;
  highWater: number;
}

/** The hold of a shard's table; undefined when no table routes it. */
export type TableHoldOf = (shard: string) => Promise<TableHold | undefined>;

/** The holds of the configured tables. */
export function tableHold(store: ObjectStore, config: TablesConfig): TableHoldOf {
  return async (shard) => {
    const table = tableOfShard(config.routes, shard);
    if (table === undefined) return undefined;
    const loaded = await loadCurrent(store, table);
    return { table, highWater: tableHighWater(loaded?.metadata)[shard] ?? 0 };
  };
}
