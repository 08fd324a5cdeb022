/**
 * Iceberg tables in the simulation (`params.tables`): committers and
 * maintenance (compaction, history retention, snapshot expiry, orphan
 * removal) race the
 * flushers, the exports and each other over the faulty store, killed and
 * stalled like every other actor, and export lists table segments below
 * each table's high-water, so every replay and tail of a routed shard reads
 * its history from the table.
 *
 * V16 (`checkTables`): each table's current snapshot holds, for every shard
 * it routes, exactly the rows of the WAL chain below its high-water for the
 * shard, each once, with the seq, offset, position, key and text the WAL
 * holds, except keyless rows below the lowest `historyFloor` of the
 * shard's manifests in S3, which history retention may have removed (each
 * of those it holds is still exact and once); and no file any kept snapshot
 * references is missing. The floor is read from S3, not from the shard
 * record's `historyKeptFrom` cursor: a record restored from a backup
 * carries an older cursor, while T6 (`lib/export/retention.ts`) keeps every
 * manifest's floor at or above any cursor retention ever used.
 */
import { isDeepStrictEqual } from 'node:util';
import { CorruptDataError } from '../../lib/errors.js';
import { ExportKind, listExports, loadManifest } from '../../lib/recovery/export-source.js';
import type { ObjectStore } from '../../lib/store/object-store.js';
import { appendTable } from '../../lib/table/append.js';
import { compactTable } from '../../lib/table/compact.js';
import type { TableDeps } from '../../lib/table/deps.js';
import { expireSnapshots } from '../../lib/table/expire.js';
import { currentSnapshot, loadCurrent } from '../../lib/table/metadata.js';
import { groupShardsByTable, parseTableRoutes } from '../../lib/table/names.js';
import { removeOrphans } from '../../lib/table/orphans.js';
import { keyOfUri } from '../../lib/table/paths.js';
import { tableHighWater } from '../../lib/table/progress.js';
import { readColumns } from '../../lib/table/read-data-file.js';
import { retainHistory } from '../../lib/table/retain.js';
import { liveFiles } from '../../lib/table/snapshot-files.js';
import type { TablesConfig } from '../../lib/table/table-config.js';
import type { WalObject } from '../../lib/wal/format.js';

/** The tables of a schedule: their settings, the committer's deps, and which shards each gathers. */
export interface SimTables {
  config: TablesConfig;
  deps: TableDeps;
  groups: Map<string, string[]>;
}

/** Tables over `shards`: one per shard, or one gathering all, by `random`. */
export function simTables(
  random: () => number,
  store: ObjectStore,
  now: () => number,
  shards: readonly string[],
): SimTables {
  const config: TablesConfig = {
    routes: parseTableRoutes(random() < 0.5 ? '*' : 's*=gathered'),
    options: new Map(),
    commitMs: 1,
    // Small files, so compaction has work and a table segment spans several files.
    targetFileBytes: random() < 0.5 ? 600 : 64 * 1024,
    maxCommitBytes: 64 * 1024 * 1024,
    keepSnapshots: 1 + Math.floor(random() * 3),
    snapshotMaxAgeMs: Math.floor(random() * 2_000),
    // O3 (`lib/table/orphans.ts`) holds while a commit try lasts under half the orphan age (a
    // Lambda's timeout, 15 min at most, against 1 h deployed): actors here stall up to 6 s,
    // several times in one try, so the age is past 4 of those stalls.
    orphanAgeMs: 24_000 + Math.floor(random() * 8_000),
  };
  const hex = (n: number) =>
    Array.from({ length: n }, () => Math.floor(random() * 16).toString(16)).join('');
  const deps: TableDeps = {
    store,
    locationBase: 'mem://bucket',
    config,
    now,
    uuid: () => `${hex(8)}-${hex(4)}-4${hex(3)}-8${hex(3)}-${hex(12)}`,
    snapshotId: () => 1 + Math.floor(random() * 2 ** 40),
  };
  return { config, deps, groups: groupShardsByTable(config.routes, shards) };
}

/** One committer run: every table appends what is new; returns how many committed. */
export async function commitTables(tables: SimTables): Promise<number> {
  let committed = 0;
  for (const [table, members] of tables.groups) {
    const report = await appendTable(tables.deps, table, members);
    if (report.status === 'committed') committed += 1;
  }
  return committed;
}

/** One maintenance run: compaction, history retention, snapshot expiry and orphan removal, per table; returns the files deleted and the rows retention removed. */
export async function maintainTables(
  tables: SimTables,
): Promise<{ deleted: number; retired: number }> {
  let deleted = 0;
  let retired = 0;
  for (const [table, members] of tables.groups) {
    await compactTable(tables.deps, table);
    retired += (await retainHistory(tables.deps, table, members)).rows;
    deleted += (await expireSnapshots(tables.deps, table)).deleted;
    deleted += (await removeOrphans(tables.deps, table)).deleted;
  }
  return { deleted, retired };
}

/** V16: what each table holds against the WAL chains (`chains` by shard). */
export async function checkTables(
  store: ObjectStore,
  tables: SimTables,
  chains: ReadonlyMap<string, readonly WalObject[]>,
  fail: (text: string) => void,
): Promise<void> {
  for (const [table, members] of tables.groups) {
    const loaded = await loadCurrent(store, table);
    if (!loaded) continue;
    const { metadata } = loaded;
    const highWater = tableHighWater(metadata);
    const held = new Map<string, string[]>();
    let files: Awaited<ReturnType<typeof liveFiles>>;
    try {
      files = await liveFiles({ store }, table, metadata, currentSnapshot(metadata));
    } catch (error) {
      fail(`${table}: version ${loaded.version} cannot be read: ${(error as Error).message}`);
      continue;
    }
    for (const live of files) {
      const key = keyOfUri(metadata.location, table, live.file.file_path);
      const bytes = await store.get(key);
      if (!bytes) {
        fail(`${table}: ${key} is live in the current snapshot but missing`);
        continue;
      }
      for (const r of await readColumns(bytes, [
        'shard',
        'seq',
        'offset',
        'position',
        'key',
        'row',
      ])) {
        const rows = held.get(r.shard as string) ?? [];
        rows.push(line(Number(r.position), Number(r.seq), Number(r.offset), r.key, r.row));
        held.set(r.shard as string, rows);
      }
    }
    for (const shard of members) {
      const below = highWater[shard] ?? 0;
      const retired = await lowestHistoryFloor(store, shard);
      const expected: string[] = [];
      // Keyless rows below the cursor: history retention may have removed them.
      const removable = new Set<string>();
      for (const object of chains.get(shard) ?? []) {
        if (object.header.position >= below) continue;
        for (const row of object.rows) {
          const text = line(
            object.header.position,
            row.seq,
            row.offset,
            row.key ?? null,
            row.delete ? null : row.text,
          );
          if (row.key === undefined && object.header.position < retired) removable.add(text);
          else expected.push(text);
        }
      }
      const all = held.get(shard) ?? [];
      const got = all.filter((text) => !removable.has(text)).sort();
      const kept = all.filter((text) => removable.has(text));
      if (!isDeepStrictEqual(got, expected.sort()) || new Set(kept).size !== kept.length) {
        fail(
          `${table}: holds ${got.length} rows of ${shard} below its high-water ${below} (history kept from ${retired}), the WAL ${expected.length} (or other ones, or a retired row twice)`,
        );
      }
    }
  }
}

/** The lowest `historyFloor` of `shard`'s manifests that read (0 when none does). */
async function lowestHistoryFloor(store: ObjectStore, shard: string): Promise<number> {
  let floor = Number.POSITIVE_INFINITY;
  for (const ref of await listExports(store, shard)) {
    if (ref.kind !== ExportKind.manifest) continue;
    try {
      floor = Math.min(floor, (await loadManifest(store, ref)).header.historyFloor);
    } catch (error) {
      if (!(error instanceof CorruptDataError)) throw error;
    }
  }
  return Number.isFinite(floor) ? floor : 0;
}

function line(position: number, seq: number, offset: number, key: unknown, text: unknown): string {
  return JSON.stringify([position, seq, offset, key ?? null, text ?? null]);
}
