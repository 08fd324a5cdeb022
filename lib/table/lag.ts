/**
 * How far a table is behind its shards' WALs, in time: the age of the
 * oldest WAL object it has not committed (the one at its high-water), 0 when
 * every object is in. What the table-lag alarm watches (a few commit
 * intervals) and the retention-floor alarm (a table holding WAL back:
 * `floor.ts`). Cost: one GET per shard (a miss when caught up), and a WAL
 * listing only for a shard the table has never committed.
 */
import { walKey } from '../paths.js';
import { decodeWalHeader } from '../wal/decode.js';
import type { TableDeps } from './deps.js';
import { loadCurrent } from './metadata.js';
import { tableHighWater } from './progress.js';
import { firstRetainedPosition } from './wal-source.js';

/** The lag of one shard: the oldest uncommitted position and its age. */
export interface ShardLag {
  shard: string;
  /** The first position the table has not committed, or null when the WAL holds nothing past it. */
  position: number | null;
  lagMs: number;
}

/** The lag of `table` over `shards` (the routes' members): one entry per shard. */
export async function tableLag(
  deps: TableDeps,
  table: string,
  shards: readonly string[],
): Promise<ShardLag[]> {
  const highWater = tableHighWater((await loadCurrent(deps.store, table))?.metadata);
  const out: ShardLag[] = [];
  for (const shard of shards) {
    const from = highWater[shard] ?? (await firstRetainedPosition(deps.store, shard));
    const key = from === undefined ? undefined : walKey(shard, from);
    const bytes = key === undefined ? undefined : await deps.store.get(key);
    if (key === undefined || bytes === undefined) {
      out.push({ shard, position: null, lagMs: 0 });
      continue;
    }
    const header = decodeWalHeader(key, bytes);
    out.push({
      shard,
      position: from ?? null,
      lagMs: Math.max(0, deps.now() - header.createdAtMs),
    });
  }
  return out;
}

/** The largest lag of a table (0 for none). */
export function maxLagMs(lags: readonly ShardLag[]): number {
  return lags.reduce((max, lag) => Math.max(max, lag.lagMs), 0);
}
