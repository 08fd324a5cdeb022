/**
 * Tables are a retention floor: export's retention (`lib/export/retention.ts`,
 * T2) retires no WAL position of a shard that its table has not committed.
 * The floor of a shard with a table is the table's high-water for it (0
 * before its first commit); a shard without a table has none. The table
 * reads only the WAL, so segments need no floor.
 */
import type { ObjectStore } from '../store/object-store.js';
import { loadCurrent } from './metadata.js';
import { tableOfShard } from './names.js';
import { tableHighWater } from './progress.js';
import type { TablesConfig } from './table-config.js';

/** WAL positions of a shard at or above the returned one must stay; undefined: no table holds any. */
export type WalFloor = (shard: string) => Promise<number | undefined>;

/** The floor the configured tables put under each shard's WAL. */
export function tableWalFloor(store: ObjectStore, config: TablesConfig): WalFloor {
  return async (shard) => {
    const table = tableOfShard(config.routes, shard);
    if (table === undefined) return undefined;
    const loaded = await loadCurrent(store, table);
    return tableHighWater(loaded?.metadata)[shard] ?? 0;
  };
}
