/**
 * What `shardwal table <name>` shows: the snapshots, the lag behind each
 * shard's WAL, and the current snapshot's data files (the list a DuckDB
 * `read_parquet` needs: a glob over the data folder would count rows twice
 * after a compaction).
 */
import { positionOfKey, walPrefix } from '../paths.js';
import type { TableDeps } from './deps.js';
import { currentSnapshot, loadCurrent } from './metadata.js';
import { appendedOf, REFUSED_KEY, tableHighWater } from './progress.js';
import { liveFiles } from './snapshot-files.js';

/** URIs of the data files the current snapshot reads. */
export async function currentDataFiles(deps: TableDeps, table: string): Promise<string[]> {
  const loaded = await loadCurrent(deps.store, table);
  if (!loaded) return [];
  const files = await liveFiles(deps, table, loaded.metadata, currentSnapshot(loaded.metadata));
  return files.map((live) => live.file.file_path);
}

/** A table's status. */
export interface TableStatus {
  table: string;
  version: number | null;
  location: string | null;
  snapshots: Array<{
    id: number;
    sequence: number;
    timestampMs: number;
    operation: string;
    records: string | undefined;
    appended: Record<string, [number, number]>;
    /** Typed values left null (not exact in their type), per column. */
    refused: Record<string, number>;
  }>;
  /** Per shard: the table's high-water, the WAL's next position, and the lag between them in WAL objects. */
  shards: Array<{
    shard: string;
    highWater: number | null;
    walNext: number | null;
    lagObjects: number | null;
  }>;
  /** Age of the current snapshot. */
  lastCommitAgeMs: number | null;
  files: number;
  records: number;
  bytes: number;
}

/** The next WAL position of a shard (one past the newest object listed), or null when it has none. */
async function walNext(deps: TableDeps, shard: string): Promise<number | null> {
  let last: number | null = null;
  for await (const key of deps.store.list(walPrefix(shard))) {
    const position = positionOfKey(key);
    if (position !== undefined) last = position;
  }
  return last === null ? null : last + 1;
}

/** The status of `table`, whose shards are `shards` (those the routes map to it). */
export async function tableStatus(
  deps: TableDeps,
  table: string,
  shards: readonly string[],
): Promise<TableStatus> {
  const loaded = await loadCurrent(deps.store, table);
  const highWater = tableHighWater(loaded?.metadata);
  const snapshot = loaded && currentSnapshot(loaded.metadata);
  const files = loaded ? await liveFiles(deps, table, loaded.metadata, snapshot) : [];
  const shardRows = [];
  for (const shard of [...new Set([...shards, ...Object.keys(highWater)])].sort()) {
    const next = await walNext(deps, shard);
    const hw = highWater[shard] ?? null;
    shardRows.push({
      shard,
      highWater: hw,
      walNext: next,
      lagObjects: next === null ? null : next - (hw ?? 0),
    });
  }
  return {
    table,
    version: loaded?.version ?? null,
    location: loaded?.metadata.location ?? null,
    snapshots: (loaded?.metadata.snapshots ?? []).map((s) => ({
      id: s['snapshot-id'],
      sequence: s['sequence-number'],
      timestampMs: s['timestamp-ms'],
      operation: s.summary.operation,
      records: s.summary['total-records'],
      appended: appendedOf(s),
      refused: JSON.parse(s.summary[REFUSED_KEY] ?? '{}') as Record<string, number>,
    })),
    shards: shardRows,
    lastCommitAgeMs: snapshot ? deps.now() - snapshot['timestamp-ms'] : null,
    files: files.length,
    records: files.reduce((sum, f) => sum + f.file.record_count, 0),
    bytes: files.reduce((sum, f) => sum + f.file.file_size_in_bytes, 0),
  };
}
