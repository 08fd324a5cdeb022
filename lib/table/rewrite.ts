/**
 * Rewriting some of a table's live files, shared by compaction (`compact.ts`:
 * every row written back, merged) and history retention (`retain.ts`: the
 * rows past retention left out). A job reads the files it chose, the rows
 * it keeps are written as new files, and one snapshot removes the files read
 * and adds the new ones. Invariants:
 *
 * W1. The snapshot lists every live file of its base: the rewritten ones as
 *     deleted, the rest as existing with their sequence numbers, the new ones
 *     as added. It carries the base's high-water unchanged, and its
 *     `total-records` is the base's less the rows the job left out. Its
 *     operation follows: `replace` when no row left, `delete` when no file
 *     was written, `overwrite` otherwise.
 * W2. A lost commit re-applies on the new base only while every rewritten
 *     file is still live there (the spec's rule for operations that delete
 *     files); otherwise the job starts over from a fresh read, and its new
 *     files are orphans. Like appends, it commits only files made less than
 *     `orphanAgeMs / 2` ago (`orphans.ts` O3).
 * W3. The rewritten files stay until the snapshots that list them expire
 *     (`expire.ts`), so older snapshots still read.
 * W4. New files hold their rows ordered by shard, position and offset.
 */

import { ListedObjectMissingError } from '../errors.js';
import { type DataFileRecord, EntryStatus, type ManifestEntry } from './avro.js';
import { createVersion } from './commit.js';
import { COMMIT_ATTEMPTS, CommitTry, commitOnNewest, readOrStale } from './commit-loop.js';
import type { TableRow } from './data-file.js';
import type { TableDeps } from './deps.js';
import { newSnapshotId } from './deps.js';
import type { TableFaultPoint } from './fault-points.js';
import { currentSchema, currentSnapshot, type LoadedMetadata, loadCurrent } from './metadata.js';
import { keyOfUri } from './paths.js';
import { HIGH_WATER_KEY, highWaterOf, highWaterText } from './progress.js';
import { readDataFile } from './read-data-file.js';
import { type IcebergSchema, partitionByOfSpec } from './schema.js';
import { type LiveFile, liveFiles } from './snapshot-files.js';
import { manifestRecord, storeManifest, storeManifestList, writeDataFiles } from './write-files.js';

/** What a job chose: the live files it rewrites and the rows it writes in their place. */
interface Rewrite {
  files: LiveFile[];
  rows: TableRow[];
  /** Rows of `files` left out. */
  removed: number;
}

/** A rewriting job. */
export interface RewriteJob {
  /** Chooses the files on `base` (its live `files`, its `schema`); undefined when there is nothing to do. */
  plan(
    base: LoadedMetadata,
    files: LiveFile[],
    schema: IcebergSchema,
  ): Promise<Rewrite | undefined>;
  /** Fault points: the new files stored; the manifests stored, not committed. */
  afterDataFiles: TableFaultPoint;
  afterManifests: TableFaultPoint;
}

/** What a rewrite did. */
export interface RewriteResult {
  status: 'committed' | 'nothing-to-do' | 'gave-up';
  rewrite: Rewrite | undefined;
  added: number;
  version: number | null;
}

const NOTHING: RewriteResult = {
  status: 'nothing-to-do',
  rewrite: undefined,
  added: 0,
  version: null,
};

/** The rows of `files`, read whole (typed columns re-projected for `schema`). */
export async function readLiveRows(
  deps: TableDeps,
  table: string,
  base: LoadedMetadata,
  files: readonly LiveFile[],
  schema: IcebergSchema,
): Promise<TableRow[]> {
  const rows: TableRow[] = [];
  for (const live of files) {
    const key = keyOfUri(base.metadata.location, table, live.file.file_path);
    const bytes = await deps.store.get(key);
    if (!bytes) throw new ListedObjectMissingError(key);
    rows.push(...(await readDataFile(bytes, schema)));
  }
  return rows;
}

/** Runs `job` on `table` (W1-W4), counting lost commits in `report.conflicts`. */
export async function rewriteTable(
  deps: TableDeps,
  table: string,
  job: RewriteJob,
  report: { conflicts: number },
): Promise<RewriteResult> {
  for (let attempt = 0; attempt < COMMIT_ATTEMPTS; attempt++) {
    const madeAtMs = deps.now();
    const base = await loadCurrent(deps.store, table);
    if (!base) return NOTHING;
    const schema = currentSchema(base.metadata);
    // A base a newer version superseded may list files maintenance removed since: start over.
    const read = await readOrStale(
      deps,
      table,
      base,
      async () =>
        (await job.plan(
          base,
          await liveFiles(deps, table, base.metadata, currentSnapshot(base.metadata)),
          schema,
        )) ?? null,
      undefined,
    );
    if (read === undefined) continue;
    if (read === null || read.files.length === 0) return NOTHING;
    const by = partitionByOfSpec(base.metadata['default-spec-id']);
    read.rows.sort((a, b) =>
      a.shard < b.shard
        ? -1
        : a.shard > b.shard
          ? 1
          : a.position - b.position || a.offset - b.offset,
    );
    const written = await writeDataFiles(
      deps,
      table,
      base.metadata.location,
      schema,
      by,
      read.rows,
    );
    await deps.faults?.(job.afterDataFiles, table);
    const rewritten = new Set(read.files.map((live) => live.file.file_path));
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
      if (![...rewritten].every((path) => livePaths.has(path))) return CommitTry.stale;
      const change: Change = {
        current,
        rewritten,
        written,
        removedRows: read.removed,
        afterManifests: job.afterManifests,
      };
      return (await commitRewrite(deps, table, on, change, snapshotId))
        ? CommitTry.committed
        : CommitTry.lost;
    });
    if (tried.committed) {
      return {
        status: 'committed',
        rewrite: read,
        added: written.length,
        version: tried.base!.version + 1,
      };
    }
  }
  return { status: 'gave-up', rewrite: undefined, added: 0, version: null };
}

/** One rewrite as committed on a base. */
interface Change {
  current: readonly LiveFile[];
  rewritten: ReadonlySet<string>;
  written: readonly DataFileRecord[];
  removedRows: number;
  afterManifests: TableFaultPoint;
}

/** Writes the snapshot's manifest, list and metadata on `base` (W1); false when the commit was lost. */
async function commitRewrite(
  deps: TableDeps,
  table: string,
  base: LoadedMetadata,
  { current, rewritten, written, removedRows, afterManifests }: Change,
  snapshotId: number,
): Promise<boolean> {
  const metadata = structuredClone(base.metadata);
  const parent = currentSnapshot(metadata)!;
  const sequenceNumber = metadata['last-sequence-number'] + 1;
  const by = partitionByOfSpec(metadata['default-spec-id']);
  const entries: ManifestEntry[] = [
    ...written.map((data_file) => ({
      status: EntryStatus.added,
      snapshot_id: null,
      sequence_number: null,
      file_sequence_number: null,
      data_file,
    })),
    ...current.map((live) => ({
      status: rewritten.has(live.file.file_path) ? EntryStatus.deleted : EntryStatus.existing,
      snapshot_id: rewritten.has(live.file.file_path) ? snapshotId : live.snapshotId,
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
  await deps.faults?.(afterManifests, table);
  const nowMs = deps.now();
  const removed = current.filter((live) => rewritten.has(live.file.file_path));
  const total = Number(parent.summary['total-records'] ?? '0') - removedRows;
  metadata.snapshots.push({
    'snapshot-id': snapshotId,
    'parent-snapshot-id': parent['snapshot-id'],
    'sequence-number': sequenceNumber,
    'timestamp-ms': nowMs,
    'manifest-list': manifestList,
    summary: {
      // The spec's operations: `replace` changes no row; `delete` only removes files.
      operation: removedRows === 0 ? 'replace' : written.length === 0 ? 'delete' : 'overwrite',
      'added-data-files': String(written.length),
      'deleted-data-files': String(removed.length),
      'added-records': String(written.reduce((sum, f) => sum + f.record_count, 0)),
      'deleted-records': String(removed.reduce((sum, f) => sum + f.file.record_count, 0)),
      'total-records': String(total),
      'total-data-files': String(current.length - removed.length + written.length),
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
