/**
 * What a snapshot says about the WAL it covers. Every snapshot's summary
 * carries, beside Iceberg's own counters:
 *
 *   shardwal.high-water  {"<shard>": P, ...}  every WAL position below P of
 *                        that shard is in the table (running, carried by
 *                        every snapshot, appends and maintenance alike, so
 *                        contiguity stays checkable after old snapshots
 *                        expire)
 *   shardwal.appended    {"<shard>": [from, to], ...}  the WAL positions
 *                        [from, to) this snapshot appended (appends only)
 *   shardwal.refused     {"<column>": count}  typed values this append
 *                        left null because their type cannot hold them
 *                        exactly (absent when none; `shardwal table` shows it)
 *
 * Exactly once rests on these: an append reads each shard from its
 * high-water on, and commits only on top of a base whose high-water for its
 * shards is the one it read from (`append.ts`).
 */
import type { Snapshot, TableMetadata } from './metadata.js';
import { currentSnapshot } from './metadata.js';

/** Summary key of the running high-water positions. */
export const HIGH_WATER_KEY = 'shardwal.high-water';
/** Summary key of the positions a snapshot appended. */
export const APPENDED_KEY = 'shardwal.appended';

/** Summary key of the typed values an append refused, per column. */
export const REFUSED_KEY = 'shardwal.refused';

/** Next WAL position to append, per shard. */
export type HighWater = Record<string, number>;
/** Appended ranges `[from, to)`, per shard. */
export type AppendedRanges = Record<string, [number, number]>;

/** The high-water a snapshot records (empty for none). */
export function highWaterOf(snapshot: Snapshot | undefined): HighWater {
  const text = snapshot?.summary[HIGH_WATER_KEY];
  return text ? (JSON.parse(text) as HighWater) : {};
}

/** The high-water of a table's current snapshot. */
export function tableHighWater(metadata: TableMetadata | undefined): HighWater {
  return metadata ? highWaterOf(currentSnapshot(metadata)) : {};
}

/** The ranges a snapshot appended (empty for maintenance snapshots). */
export function appendedOf(snapshot: Snapshot): AppendedRanges {
  const text = snapshot.summary[APPENDED_KEY];
  return text ? (JSON.parse(text) as AppendedRanges) : {};
}

/** A high-water as summary text, shards sorted (stable bytes). */
export function highWaterText(highWater: HighWater): string {
  return JSON.stringify(
    Object.fromEntries(Object.entries(highWater).sort(([a], [b]) => (a < b ? -1 : 1))),
  );
}
