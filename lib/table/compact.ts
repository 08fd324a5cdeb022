/**
 * Compaction: small data files of one partition merged into files of the
 * target size, committed as a `replace` snapshot that changes no row.
 * Invariants:
 *
 * K1. The merged files hold exactly the rows of the files they replace (read
 *     back whole, typed columns re-projected from `row`: `read-data-file.ts`),
 *     ordered by shard, position and offset.
 * K2. The replace snapshot lists every live file of its base: the replaced
 *     ones as deleted, the rest as existing with their sequence numbers, the
 *     merged ones as added; it carries the base's high-water unchanged.
 * K3. A lost commit re-applies on the new base only while every replaced
 *     file is still live there (spec: replace operations verify the files
 *     they delete are still in the table); otherwise it starts over, and
 *     its merged files are orphans. Like appends, it commits only files made
 *     less than `orphanAgeMs / 2` ago (`orphans.ts` O3).
 * K4. The replaced files stay until the snapshots that list them expire
 *     (`expire.ts`), so older snapshots still read.
 */

import { ListedObjectMissingError } from '../errors.js';
import { type DataFileRecord, EntryStatus, type ManifestEntry } from './avro.js';
import { createVersion } from './commit.js';
import { COMMIT_ATTEMPTS, CommitTry, commitOnNewest, readOrStale } from './commit-loop.js';
import type { TableDeps } from './deps.js';
import { newSnapshotId } from './deps.js';
import { TableFaultPoint } from './fault-points.js';
import { currentSchema, currentSnapshot, type LoadedMetadata, loadCurrent } from './metadata.js';
import { keyOfUri } from './paths.js';
import { HIGH_WATER_KEY, highWaterOf, highWaterText } from './progress.js';
import { readDataFile } from './read-data-file.js';
import type { PartitionBy } from './schema.js';
import { type LiveFile, liveFiles } from './snapshot-files.js';
import { manifestRecord, storeManifest, storeManifestList, writeDataFiles } from './write-files.js';

/** What a compaction did. */
export interface CompactReport {
  table: string;
  status: 'compacted' | 'nothing-to-do' | 'gave-up';
  replaced: number;
  added: number;
  rows: number;
  version: number | null;
  conflicts: number;
}

const SPEC_PARTITION: Record<number, PartitionBy> = { 0: 'day', 1: 'hour', 2: 'shard' };

/** The small files of the first partition that has at least two, up to the target size. */
function plan(files: readonly LiveFile[], targetBytes: number): LiveFile[] {
  const groups = new Map<string, LiveFile[]>();
  for (const live of files) {
    if (live.file.file_size_in_bytes >= targetBytes / 2) continue;
    const key = JSON.stringify(live.file.partition);
    groups.set(key, [...(groups.get(key) ?? []), live]);
  }
  for (const group of groups.values()) {
    if (group.length < 2) continue;
    const chosen: LiveFile[] = [];
    let bytes = 0;
    for (const live of group.sort((a, b) => (a.file.file_path < b.file.file_path ? -1 : 1))) {
      if (chosen.length >= 2 && bytes + live.file.file_size_in_bytes > targetBytes) break;
      chosen.push(live);
      bytes += live.file.file_size_in_bytes;
    }
    if (chosen.length >= 2) return chosen;
  }
  return [];
}

/** Compacts one partition's small files, if any (K1-K4). */
export async function compactTable(deps: TableDeps, table: string): Promise<CompactReport> {
  const report: CompactReport = {
    table,
    status: 'nothing-to-do',
    replaced: 0,
    added: 0,
    rows: 0,
    version: null,
    conflicts: 0,
  };
  for (let attempt = 0; attempt < COMMIT_ATTEMPTS; attempt++) {
    const madeAtMs = deps.now();
    const base = await loadCurrent(deps.store, table);
    if (!base) return report;
    const snapshot = currentSnapshot(base.metadata);
    const schema = currentSchema(base.metadata);
    // A base a newer version superseded may list files maintenance removed since: start over.
    const read = await readOrStale(
      deps,
      table,
      base,
      async () => {
        const chosen = plan(
          await liveFiles(deps, table, base.metadata, snapshot),
          deps.config.targetFileBytes,
        );
        const rows = [];
        for (const live of chosen) {
          const key = keyOfUri(base.metadata.location, table, live.file.file_path);
          const bytes = await deps.store.get(key);
          if (!bytes) throw new ListedObjectMissingError(key);
          rows.push(...(await readDataFile(bytes, schema)));
        }
        return { chosen, rows };
      },
      undefined,
    );
    if (!read) continue;
    const { chosen, rows } = read;
    if (chosen.length === 0) return report;
    const by = SPEC_PARTITION[base.metadata['default-spec-id']]!;
    rows.sort((a, b) =>
      a.shard < b.shard
        ? -1
        : a.shard > b.shard
          ? 1
          : a.position - b.position || a.offset - b.offset,
    );
    const merged = await writeDataFiles(deps, table, base.metadata.location, schema, by, rows);
    await deps.faults?.(TableFaultPoint.compactAfterDataFile, table);
    const replaced = new Set(chosen.map((c) => c.file.file_path));
    const snapshotId = newSnapshotId(deps);
    const tried = await commitOnNewest(deps, table, base, madeAtMs, report, async (on) => {
      if (!on) return CommitTry.stale;
      const current = await readOrStale(
        deps,
        table,
        on,
        () => liveFiles(deps, table, on.metadata, currentSnapshot(on.metadata)),
        undefined,
      );
      if (!current) return CommitTry.lost;
      const livePaths = new Set(current.map((c) => c.file.file_path));
      if (![...replaced].every((path) => livePaths.has(path))) return CommitTry.stale;
      return (await commitReplace(deps, table, on, current, replaced, merged, snapshotId))
        ? CommitTry.committed
        : CommitTry.lost;
    });
    if (tried.committed) {
      Object.assign(report, {
        status: 'compacted',
        replaced: chosen.length,
        added: merged.length,
        rows: rows.length,
        version: tried.base!.version + 1,
      });
      return report;
    }
  }
  report.status = 'gave-up';
  return report;
}

/** Writes the replace snapshot's manifest, list and metadata on `base` (K2); false when the commit was lost. */
async function commitReplace(
  deps: TableDeps,
  table: string,
  base: LoadedMetadata,
  current: readonly LiveFile[],
  replaced: ReadonlySet<string>,
  merged: readonly DataFileRecord[],
  snapshotId: number,
): Promise<boolean> {
  const metadata = structuredClone(base.metadata);
  const parent = currentSnapshot(metadata)!;
  const sequenceNumber = metadata['last-sequence-number'] + 1;
  const by = SPEC_PARTITION[metadata['default-spec-id']]!;
  const entries: ManifestEntry[] = [
    ...merged.map((data_file) => ({
      status: EntryStatus.added,
      snapshot_id: null,
      sequence_number: null,
      file_sequence_number: null,
      data_file,
    })),
    ...current.map((live) => ({
      status: replaced.has(live.file.file_path) ? EntryStatus.deleted : EntryStatus.existing,
      snapshot_id: replaced.has(live.file.file_path) ? snapshotId : live.snapshotId,
      sequence_number: live.sequenceNumber,
      file_sequence_number: live.fileSequenceNumber,
      data_file: live.file,
    })),
  ];
  const schema = currentSchema(metadata);
  const manifest = await storeManifest(deps, table, metadata.location, schema, by, entries);
  const manifestList = await storeManifestList(
    deps,
    table,
    metadata,
    snapshotId,
    parent['snapshot-id'],
    sequenceNumber,
    [manifestRecord(by, manifest, snapshotId, sequenceNumber)],
  );
  await deps.faults?.(TableFaultPoint.compactAfterManifests, table);
  const nowMs = deps.now();
  const removed = current.filter((live) => replaced.has(live.file.file_path));
  metadata.snapshots.push({
    'snapshot-id': snapshotId,
    'parent-snapshot-id': parent['snapshot-id'],
    'sequence-number': sequenceNumber,
    'timestamp-ms': nowMs,
    'manifest-list': manifestList,
    summary: {
      operation: 'replace',
      'added-data-files': String(merged.length),
      'deleted-data-files': String(removed.length),
      'added-records': String(merged.reduce((sum, f) => sum + f.record_count, 0)),
      'deleted-records': String(removed.reduce((sum, f) => sum + f.file.record_count, 0)),
      'total-records': parent.summary['total-records'] ?? '0',
      'total-data-files': String(current.length - removed.length + merged.length),
      [HIGH_WATER_KEY]: highWaterText(highWaterOf(parent)),
    },
    'schema-id': schema['schema-id'],
  });
  metadata['last-sequence-number'] = sequenceNumber;
  metadata['last-updated-ms'] = nowMs;
  metadata['current-snapshot-id'] = snapshotId;
  metadata.refs = { main: { 'snapshot-id': snapshotId, type: 'branch' } };
  metadata['snapshot-log'].push({ 'timestamp-ms': nowMs, 'snapshot-id': snapshotId });
  return createVersion(deps, table, base, metadata);
}
