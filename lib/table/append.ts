/**
 * The committer: appends the rows of every shard's durable WAL positions to
 * its table, exactly once. Invariants (with `commit.ts` C1-C3):
 *
 * A1. Rows are read from each shard's high-water on (`progress.ts`), every
 *     position in order, none skipped: reads are contiguous (`wal-source.ts`).
 * A2. A snapshot is committed only on a base whose high-water for every
 *     shard it appends equals the one its rows were read from; its summary
 *     moves those high-waters to the end of what it appended. So a position
 *     is appended by exactly one snapshot, whatever crashes or races.
 * A3. A loser whose shards' high-waters did not move re-applies its append
 *     on the new base: the data files and manifest are reused (sequence
 *     numbers are inherited), only a manifest list and a metadata file are
 *     written again. A loser whose high-water moved starts over; its files
 *     are orphans.
 * A4. A crash before the metadata file is created commits nothing (the
 *     re-run reads the same high-water and appends the same rows again under
 *     new names); a crash after it has committed (the re-run starts past it).
 * A5. At most one append per table per `commitMs` (minus a small tolerance
 *     for schedule jitter).
 */

import { createVersion } from './commit.js';
import { COMMIT_ATTEMPTS, CommitTry, commitOnNewest, readOrStale } from './commit-loop.js';
import type { FixedColumns } from './data-columns.js';
import type { TableDeps } from './deps.js';
import { newSnapshotId, newUuid } from './deps.js';
import { TableFaultPoint } from './fault-points.js';
import {
  currentSchema,
  currentSnapshot,
  type LoadedMetadata,
  loadCurrent,
  type TableMetadata,
} from './metadata.js';
import { tableLocation } from './paths.js';
import {
  APPENDED_KEY,
  type AppendedRanges,
  HIGH_WATER_KEY,
  type HighWater,
  highWaterText,
  REFUSED_KEY,
  tableHighWater,
} from './progress.js';
import { evolveSchema, partitionByOfSpec, RowOp } from './schema.js';
import { readManifestList } from './snapshot-files.js';
import { optionsOf, TABLE_SCHEMAS_ENV } from './table-config.js';
import { firstRetainedPosition, type OnWalRow, readWalRange, type WalRange } from './wal-source.js';
import {
  addedEntries,
  DataFileWriter,
  manifestRecord,
  newTableMetadata,
  storeManifest,
  storeManifestList,
} from './write-files.js';

/** What one append did. */
export interface AppendReport {
  table: string;
  status: 'committed' | 'nothing-new' | 'not-due' | 'gave-up';
  version: number | null;
  snapshotId: number | null;
  rows: number;
  files: number;
  appended: AppendedRanges;
  /** Values of typed columns that could not be stored exactly, by column. */
  refused: Record<string, number>;
  /** Commits lost to another committer (re-applied or started over). */
  conflicts: number;
}

/**
 * Hands each WAL row to `writer` in the table's form (its typed columns are
 * projected there). One object carries every row's fixed columns, refilled
 * for each: the writer copies them into its columns and keeps no reference.
 */
function tableRows(writer: DataFileWriter): OnWalRow {
  const fixed: FixedColumns = {
    shard: '',
    seq: 0,
    offset: 0,
    position: 0,
    ingestedAtMs: 0,
    key: null,
    op: RowOp.append,
  };
  return (header, row) => {
    fixed.shard = header.shard;
    fixed.seq = row.seq;
    fixed.offset = row.offset;
    fixed.position = header.position;
    fixed.ingestedAtMs = row.ingestedAtMs ?? header.createdAtMs;
    fixed.key = row.key ?? null;
    fixed.op = row.key === undefined ? RowOp.append : row.delete ? RowOp.delete : RowOp.upsert;
    writer.add(fixed, row.text ?? null);
  };
}

/** Reads each shard's WAL from its high-water (A1). */
async function readRanges(
  deps: TableDeps,
  shards: readonly string[],
  highWater: HighWater,
  turn: number,
  onRow: OnWalRow,
): Promise<WalRange[]> {
  let budget = deps.config.maxCommitBytes;
  const ranges: WalRange[] = [];
  // The byte budget is shared: each commit starts at the next shard, so a busy shard never starves the rest.
  const start = shards.length === 0 ? 0 : turn % shards.length;
  for (const shard of [...shards.slice(start), ...shards.slice(0, start)]) {
    if (budget <= 0) break;
    const from = highWater[shard] ?? (await firstRetainedPosition(deps.store, shard));
    if (from === undefined) continue;
    const range = await readWalRange(deps.store, shard, from, budget, onRow);
    budget -= range.bytes;
    if (range.to > range.from) ranges.push(range);
  }
  return ranges;
}

/** True when `base` still has the high-waters `ranges` were read from (A2). */
function sameStart(
  base: LoadedMetadata | undefined,
  ranges: readonly WalRange[],
  read: HighWater,
): boolean {
  const now = tableHighWater(base?.metadata);
  return ranges.every((range) => now[range.shard] === read[range.shard]);
}

/** Appends what is new in `shards`' WALs to `table`. */
export async function appendTable(
  deps: TableDeps,
  table: string,
  shards: readonly string[],
): Promise<AppendReport> {
  const report: AppendReport = {
    table,
    status: 'nothing-new',
    version: null,
    snapshotId: null,
    rows: 0,
    files: 0,
    appended: {},
    refused: {},
    conflicts: 0,
  };
  const options = optionsOf(deps.config, table);
  const location = tableLocation(deps.locationBase, table);
  let base = await loadCurrent(deps.store, table);
  // A5: the newest append counts (maintenance snapshots do not delay freshness).
  const last = base?.metadata.snapshots.filter((s) => s.summary.operation === 'append').at(-1);
  const tolerance = Math.min(5_000, deps.config.commitMs / 10);
  if (last && deps.now() - last['timestamp-ms'] < deps.config.commitMs - tolerance) {
    report.status = 'not-due';
    return report;
  }
  for (let attempt = 0; attempt < COMMIT_ATTEMPTS; attempt++) {
    const madeAtMs = deps.now();
    const read = tableHighWater(base?.metadata);
    const current = base?.metadata;
    const evolved = evolveSchema(
      TABLE_SCHEMAS_ENV,
      table,
      current && currentSchema(current),
      current?.['last-column-id'] ?? 0,
      options.columns,
    );
    const by = current ? partitionByOfSpec(current['default-spec-id']) : options.partition;
    // Rows take their table form as they are read (`wal-source.ts`), into data files as they fill.
    const writer = new DataFileWriter(
      deps,
      table,
      current?.location ?? location,
      evolved.schema,
      by,
    );
    const ranges = await readRanges(
      deps,
      shards,
      read,
      base?.metadata['last-sequence-number'] ?? 0,
      tableRows(writer),
    );
    if (ranges.length === 0) return report;
    const { refused } = writer;
    const rowCount = writer.rows;
    // Stored only now: the read verified every object the rows came from.
    const files = await writer.store();
    await deps.faults?.(TableFaultPoint.appendAfterDataFiles, table);
    const manifest = await storeManifest(
      deps,
      table,
      current?.location ?? location,
      evolved.schema,
      by,
      addedEntries(files),
    );
    await deps.faults?.(TableFaultPoint.appendAfterManifest, table);
    const appended: AppendedRanges = Object.fromEntries(
      ranges.map((r) => [r.shard, [r.from, r.to]]),
    );
    const snapshotId = newSnapshotId(deps);
    const schemaId = base?.metadata['current-schema-id'];
    const tried = await commitOnNewest(deps, table, base, madeAtMs, report, async (on) => {
      // A3: re-apply on each new base while the high-waters it read from still hold.
      if (!sameStart(on, ranges, read) || on?.metadata['current-schema-id'] !== schemaId) {
        return CommitTry.stale;
      }
      // A base a newer version superseded may list a manifest list maintenance removed since.
      const next = await readOrStale(
        deps,
        table,
        on,
        () =>
          nextMetadata(
            deps,
            table,
            on,
            location,
            evolved,
            by,
            manifest,
            snapshotId,
            ranges,
            appended,
            rowCount,
            files.length,
            refused,
          ),
        undefined,
      );
      if (!next) return CommitTry.lost;
      await deps.faults?.(TableFaultPoint.appendAfterManifestList, table);
      return (await createVersion(deps, table, on, next)) ? CommitTry.committed : CommitTry.lost;
    });
    base = tried.base;
    if (tried.committed) {
      Object.assign(report, {
        status: 'committed',
        version: (base?.version ?? 0) + 1,
        snapshotId,
        rows: rowCount,
        files: files.length,
        appended,
        refused,
      });
      if (Object.keys(refused).length > 0) deps.onRefused?.(table, refused);
      return report;
    }
  }
  report.status = 'gave-up';
  return report;
}

/** The metadata of `base` plus the append snapshot (and the evolved schema). */
async function nextMetadata(
  deps: TableDeps,
  table: string,
  base: LoadedMetadata | undefined,
  location: string,
  evolved: ReturnType<typeof evolveSchema>,
  by: 'day' | 'hour' | 'shard',
  manifest: Awaited<ReturnType<typeof storeManifest>>,
  snapshotId: number,
  ranges: readonly WalRange[],
  appended: AppendedRanges,
  rowCount: number,
  fileCount: number,
  refused: Record<string, number>,
): Promise<TableMetadata> {
  const nowMs = deps.now();
  const metadata: TableMetadata = base
    ? structuredClone(base.metadata)
    : newTableMetadata(newUuid(deps), location, evolved.schema, evolved.lastColumnId, by, nowMs);
  if (!metadata.schemas.some((s) => s['schema-id'] === evolved.schema['schema-id'])) {
    metadata.schemas.push(evolved.schema);
    metadata['last-column-id'] = evolved.lastColumnId;
  }
  metadata['current-schema-id'] = evolved.schema['schema-id'];
  const parent = currentSnapshot(metadata);
  const sequenceNumber = metadata['last-sequence-number'] + 1;
  const carried = parent ? await readManifestList(deps, table, metadata, parent) : [];
  const list = [manifestRecord(by, manifest, snapshotId, sequenceNumber), ...carried];
  const manifestList = await storeManifestList(
    deps,
    table,
    metadata,
    snapshotId,
    parent?.['snapshot-id'] ?? null,
    sequenceNumber,
    list,
  );
  const highWater: HighWater = { ...tableHighWater(metadata) };
  for (const range of ranges) highWater[range.shard] = range.to;
  const previousTotal = Number(parent?.summary['total-records'] ?? 0);
  const previousFiles = Number(parent?.summary['total-data-files'] ?? 0);
  metadata.snapshots.push({
    'snapshot-id': snapshotId,
    ...(parent ? { 'parent-snapshot-id': parent['snapshot-id'] } : {}),
    'sequence-number': sequenceNumber,
    'timestamp-ms': nowMs,
    'manifest-list': manifestList,
    summary: {
      operation: 'append',
      'added-data-files': String(fileCount),
      'added-records': String(rowCount),
      'total-records': String(previousTotal + rowCount),
      'total-data-files': String(previousFiles + fileCount),
      [APPENDED_KEY]: JSON.stringify(appended),
      ...(Object.keys(refused).length > 0 ? { [REFUSED_KEY]: JSON.stringify(refused) } : {}),
      [HIGH_WATER_KEY]: highWaterText(highWater),
    },
    'schema-id': evolved.schema['schema-id'],
  });
  metadata['last-sequence-number'] = sequenceNumber;
  metadata['last-updated-ms'] = nowMs;
  metadata['current-snapshot-id'] = snapshotId;
  metadata.refs = { main: { 'snapshot-id': snapshotId, type: 'branch' } };
  metadata['snapshot-log'].push({ 'timestamp-ms': nowMs, 'snapshot-id': snapshotId });
  return metadata;
}
