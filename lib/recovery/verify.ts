/**
 * Verify one shard: the WAL chain after the watermark is contiguous and every
 * object verifies, and the shard record agrees with S3. Read-only except for
 * the heals of `verify-heal.ts`, which it applies only to a shard with no
 * finding (a record that disagrees with S3 is not one to tidy up).
 *
 * What "agrees" means, with W the watermark and N the record's `walNextPos`:
 * 1. The export at W exists and verifies (a manifest, or a legacy AOF
 *    export); every snapshot part and segment the manifest lists exists
 *    (one listing per prefix, nothing read) and, with the full check, every
 *    part verifies against its record and every table segment's rows, read
 *    from its table, match theirs; the chain starts where it ends.
 * 2. Objects W..N-1 all exist, and the chain through N-1 ends at the record's
 *    `durableSeq` and `nextRowOffset`.
 * 3. Beyond N there is at most one object, at N, starting at `durableSeq+1`
 *    and `nextRowOffset`: a valid append whose commit is still to come (a
 *    crashed flusher's; the next flush adopts it). Anything else is a finding.
 * 4. No export covers more than N; the watermark is not above N; `nextSeq`
 *    is above `durableSeq`; the shard is not poisoned.
 * WAL objects below W are never read: a retired slot may hold a zombie's write.
 */

import { peekAofHeader } from '../aof/reader.js';
import { CorruptDataError, NotFoundError } from '../errors.js';
import type { Manifest } from '../manifest/format.js';
import {
  type CursorSnapshot,
  readShardRecord,
  rebuildFenceOf,
  type ShardRecord,
  snapshotCursors,
} from '../memtable/shard-record.js';
import { assertShardName, shardPrefix } from '../paths.js';
import {
  segmentKey,
  segmentPrefix,
  storedSegments,
  TABLE_SEGMENT_VERSION,
} from '../segment/format.js';
import { readSegment } from '../segment/reader.js';
import { forgetTableReads } from '../segment/table-reader.js';
import { snapshotPartKey, snapshotPrefix } from '../snapshot/format.js';
import { readPart } from '../snapshot/reader.js';
import type { RecoveryDeps } from './deps.js';
import {
  ExportKind,
  type ExportRef,
  listExports,
  loadManifest,
  streamExport,
} from './export-source.js';
import {
  type Finding,
  FindingKind,
  type Heal,
  HealKind,
  reportFinding,
  reportHeal,
} from './findings.js';
import { Phase, type ProgressListener } from './progress.js';
import { takeOverRebuild, takeoverDue } from './takeover.js';
import { healShard, keepPendingAlive } from './verify-heal.js';
import { type ChainCursor, type ChainStop, walkWalChain } from './wal-chain.js';

/** Options of `verifyShard`. */
export interface VerifyOptions {
  /** Apply the provably safe heals (default true). */
  heal?: boolean;
  /**
   * Read the watermark's whole export (default true): every snapshot part of
   * a manifest, checked against its record, or a legacy export to its
   * checksum. False checks the manifest and lists its objects (a legacy
   * export: its header only).
   */
  fullExportCheck?: boolean;
  onProgress?: ProgressListener;
}

/** The outcome of verifying one shard. */
export interface VerifyReport {
  kind: 'verify';
  shard: string;
  /** True when there is no finding (heals do not count against it). */
  ok: boolean;
  findings: Finding[];
  heals: Heal[];
  record: CursorSnapshot | null;
  exportChecked: { key: string; coveredPosition: number; full: boolean; valid: boolean } | null;
  walChecked: { fromPosition: number; toPosition: number; objects: number; rows: number };
  /** Position of a valid append awaiting its commit (rule 3), if any. */
  pendingAppend: number | null;
  durationMs: number;
}

/** Verifies `shard`; throws NotFoundError when neither the table nor S3 knows it. */
export async function verifyShard(
  deps: RecoveryDeps,
  shard: string,
  options: VerifyOptions = {},
): Promise<VerifyReport> {
  assertShardName(shard);
  const started = deps.now();
  let record = await readShardRecord(deps.table, shard);
  // A rebuild that died under its fence is finished first (T1-T6 in takeover.ts); then verified.
  const takenOver =
    (options.heal ?? true) && record
      ? await takeOverLapsedRebuild(deps, record, options)
      : undefined;
  if (takenOver) record = await readShardRecord(deps.table, shard);
  const report: VerifyReport = {
    kind: 'verify',
    shard,
    ok: true,
    findings: [],
    heals: [],
    record: snapshotCursors(record),
    exportChecked: null,
    walChecked: { fromPosition: 0, toPosition: 0, objects: 0, rows: 0 },
    pendingAppend: null,
    durationMs: 0,
  };
  const find = (kind: Finding['kind'], detail: string, position?: number) =>
    report.findings.push(
      position === undefined ? { kind, shard, detail } : { kind, shard, position, detail },
    );
  if (!record) {
    const key = await firstKey(deps, shard);
    if (key === undefined) throw new NotFoundError(`shard ${shard}`);
    find(
      FindingKind.recordMissing,
      `S3 holds ${key} but the table has no record of shard ${shard}`,
    );
  } else {
    // Renewals first: the S3 checks below are long, and a transient error there must not cost
    // a stalled shard its pending batches (L5).
    const kept = (options.heal ?? true) ? await keepPendingAlive(deps, record) : [];
    let checked = record;
    await checkAgainstS3(deps, checked, report, find, options);
    // A busy shard keeps committing while the WAL is listed: objects appended after the
    // record was read look like "S3 ahead of the record". Re-read once; findings that
    // persist against a fresh record are real.
    const fresh = report.findings.length > 0 ? await readShardRecord(deps.table, shard) : undefined;
    if (fresh && fresh.walNextPos !== checked.walNextPos) {
      checked = fresh;
      report.findings.length = 0;
      report.record = snapshotCursors(fresh);
      await checkAgainstS3(deps, checked, report, find, options);
    }
    if (takenOver) report.heals.push(takenOver);
    if (options.heal ?? true) {
      const clean = report.findings.length === 0;
      report.heals.push(...kept, ...(await healShard(deps, checked, { clean, pendingKept: true })));
    }
  }
  for (const finding of report.findings) reportFinding(finding);
  for (const heal of report.heals) reportHeal(heal);
  report.ok = report.findings.length === 0;
  report.durationMs = deps.now() - started;
  return report;
}

/** Takes over `record`'s rebuild when its fence lapsed; the heal saying so, or undefined. */
async function takeOverLapsedRebuild(
  deps: RecoveryDeps,
  record: ShardRecord,
  options: VerifyOptions,
): Promise<Heal | undefined> {
  const fence = rebuildFenceOf(record);
  if (!fence || !takeoverDue(deps, fence)) return undefined;
  const rebuild = await takeOverRebuild(deps, record.shard, fence, {
    onProgress: options.onProgress,
  });
  if (!rebuild) return undefined;
  const rejected = rebuild.batches?.rejected.length ?? 0;
  return {
    kind: HealKind.rebuildTakenOver,
    shard: record.shard,
    detail: `${rebuild.warnings[0] ?? 'took over an abandoned rebuild'}: ${rebuild.status}${
      rebuild.cursors.after ? `, durableSeq ${rebuild.cursors.after.durableSeq}` : ''
    }${rejected > 0 ? `, ${rejected} batch(es) REJECTED to the quarantine` : ''}${
      rebuild.stoppedAt ? `, stopped at ${rebuild.stoppedAt.key}: the shard stays poisoned` : ''
    }`,
  };
}

type Find = (kind: Finding['kind'], detail: string, position?: number) => void;

async function checkAgainstS3(
  deps: RecoveryDeps,
  record: ShardRecord,
  report: VerifyReport,
  find: Find,
  options: VerifyOptions,
): Promise<void> {
  const { shard, walNextPos, aofWatermark } = record;
  if (record.poison) find(FindingKind.poisoned, record.poison);
  if (record.nextSeq <= record.durableSeq) {
    find(
      FindingKind.seqCounterBehind,
      `nextSeq ${record.nextSeq} is not above durableSeq ${record.durableSeq}`,
    );
  }
  if (aofWatermark > walNextPos) {
    find(
      FindingKind.watermarkAhead,
      `aofWatermark ${aofWatermark} is above walNextPos ${walNextPos}`,
    );
  }
  const exports = await listExports(deps.store, shard);
  for (const ref of exports.filter((e) => e.coveredPosition > walNextPos)) {
    find(
      FindingKind.exportBeyondRecord,
      `${ref.key} covers positions below ${ref.coveredPosition}, but the record has committed only below ${walNextPos}: the record is behind S3`,
      ref.coveredPosition,
    );
  }
  const start = await exportCursor(deps, record, exports, report, find, options);
  let atRecord: ChainCursor | undefined = walNextPos === aofWatermark ? start.cursor : undefined;
  const walk = await walkWalChain(deps.store, shard, start.cursor, {
    trustFirstObject: start.trustFirstObject,
    onObject: (_header, after) => {
      if (after.position === walNextPos) atRecord = after;
      options.onProgress?.({
        shard,
        phase: Phase.wal,
        position: after.position,
        targetPosition: walNextPos,
        rows: after.nextRowOffset - start.cursor.nextRowOffset,
      });
    },
  });
  report.walChecked = {
    fromPosition: start.cursor.position,
    toPosition: walk.end.position,
    objects: walk.objects,
    rows: walk.rows,
  };
  reportStop(walk.stop, walk.beyond, find);
  const end = walk.end;
  if (end.position < walNextPos) {
    if (walk.stop.reason === 'end') {
      find(
        FindingKind.walMissing,
        `the record has committed positions below ${walNextPos}, but S3 holds the chain only below ${end.position}: the record is ahead of S3`,
        end.position,
      );
    }
    return;
  }
  const at = atRecord ?? start.cursor;
  let agrees = true;
  if (!start.trustFirstObject || walNextPos > aofWatermark) {
    if (at.lastSeq !== record.durableSeq) {
      agrees = false;
      find(
        FindingKind.durableSeqMismatch,
        `durableSeq is ${record.durableSeq}, but the WAL below position ${walNextPos} ends at seq ${at.lastSeq}`,
        walNextPos,
      );
    }
    if (at.nextRowOffset !== record.nextRowOffset) {
      agrees = false;
      find(
        FindingKind.rowOffsetMismatch,
        `nextRowOffset is ${record.nextRowOffset}, but the WAL below position ${walNextPos} ends at row offset ${at.nextRowOffset}`,
        walNextPos,
      );
    }
  }
  // Objects beyond N: those read (valid) plus those the stop left unread.
  const readBeyond = end.position - walNextPos;
  const brokenAtStop =
    walk.stop.reason === 'corrupt' || walk.stop.reason === 'discontinuity' ? 1 : 0;
  const unreadBeyond = walk.beyond + brokenAtStop;
  if (readBeyond === 1 && unreadBeyond === 0 && agrees) {
    report.pendingAppend = walNextPos;
  } else if (readBeyond > 0) {
    find(
      FindingKind.walBeyondRecord,
      `S3 holds ${readBeyond + unreadBeyond} WAL object(s) at or beyond the record's walNextPos ${walNextPos} (at most one valid pending append may be there): the record is behind S3`,
      walNextPos,
    );
  }
}

/** Where the chain after the watermark must start, from the watermark's export. */
async function exportCursor(
  deps: RecoveryDeps,
  record: ShardRecord,
  exports: readonly ExportRef[],
  report: VerifyReport,
  find: Find,
  options: VerifyOptions,
): Promise<{ cursor: ChainCursor; trustFirstObject: boolean }> {
  const { shard, aofWatermark } = record;
  if (aofWatermark === 0)
    return { cursor: { position: 0, lastSeq: 0, nextRowOffset: 0 }, trustFirstObject: false };
  const untrusted = {
    cursor: { position: aofWatermark, lastSeq: 0, nextRowOffset: 0 },
    trustFirstObject: true,
  };
  const atWatermark = exports.filter((e) => e.coveredPosition === aofWatermark);
  // A manifest is preferred to a legacy export at the same position.
  const ref = atWatermark.find((e) => e.kind === ExportKind.manifest) ?? atWatermark[0];
  if (!ref) {
    find(
      FindingKind.exportMissing,
      `the watermark names the export covering positions below ${aofWatermark}, which does not exist`,
      aofWatermark,
    );
    return untrusted;
  }
  const full = options.fullExportCheck ?? true;
  report.exportChecked = { key: ref.key, coveredPosition: aofWatermark, full, valid: false };
  try {
    let cursor: ChainCursor;
    if (ref.kind === ExportKind.manifest) {
      const manifest = await loadManifest(deps.store, ref);
      cursor = {
        position: aofWatermark,
        lastSeq: manifest.header.lastSeq,
        nextRowOffset: manifest.header.nextRowOffset,
      };
      report.exportChecked.valid = true;
      await checkListedObjects(deps, shard, manifest, full, find);
    } else {
      const header = full
        ? await streamExport(deps.store, ref, { keyed: () => {}, keyless: () => undefined })
        : await peek(deps, ref.key);
      report.exportChecked.valid = true;
      cursor = {
        position: aofWatermark,
        lastSeq: header.lastSeq,
        nextRowOffset: header.nextRowOffset,
      };
    }
    return { cursor, trustFirstObject: false };
  } catch (error) {
    if (!(error instanceof CorruptDataError)) throw error;
    find(FindingKind.exportInvalid, `${error.name}: ${error.message}`, aofWatermark);
    return untrusted;
  }
}

/** Every part and segment the manifest lists exists; with `full`, every part and table segment verifies. */
async function checkListedObjects(
  deps: RecoveryDeps,
  shard: string,
  manifest: Manifest,
  full: boolean,
  find: Find,
): Promise<void> {
  const position = manifest.header.coveredPosition;
  const stored = new Set<string>();
  for await (const key of deps.store.list(snapshotPrefix(shard))) stored.add(key);
  // A table segment names no object of its own: with `full`, its rows are read from its table.
  const segments = storedSegments(manifest.segments);
  const firstSegment = segments[0];
  const startAfter =
    firstSegment && firstSegment.first > 0 ? segmentKey(shard, firstSegment.first - 1) : undefined;
  for await (const key of deps.store.list(segmentPrefix(shard), { startAfter })) stored.add(key);
  const missing = [
    ...manifest.parts.map((part) => snapshotPartKey(shard, part)),
    ...segments.map((segment) => segmentKey(shard, segment.first)),
  ].filter((key) => !stored.has(key));
  for (const key of missing) {
    find(
      FindingKind.exportIncomplete,
      `${key} is listed by the manifest at ${position} but missing`,
      position,
    );
  }
  if (!full) return;
  forgetTableReads(deps.store);
  const reads = [
    ...manifest.parts
      .filter((part) => stored.has(snapshotPartKey(shard, part)))
      .map((part) => () => readPart(deps.store, shard, part)),
    ...manifest.segments
      .filter((segment) => segment.v === TABLE_SEGMENT_VERSION)
      .map((segment) => () => readSegment(deps.store, shard, segment)),
  ];
  for (const read of reads) {
    try {
      await read();
    } catch (error) {
      if (!(error instanceof CorruptDataError)) throw error;
      find(FindingKind.exportIncomplete, `${error.name}: ${error.message}`, position);
    }
  }
}

async function peek(deps: RecoveryDeps, key: string) {
  const stream = await deps.store.getStream(key);
  if (!stream) throw new CorruptDataError(key, 'listed as an export but no longer readable');
  return peekAofHeader(key, stream);
}

function reportStop(stop: ChainStop, beyond: number, find: Find): void {
  const after = beyond > 0 ? `; ${beyond} later object(s) not checked` : '';
  switch (stop.reason) {
    case 'gap':
      find(
        FindingKind.walGap,
        `${stop.key} is missing while position ${stop.nextPresent} exists${after}`,
        stop.position,
      );
      return;
    case 'corrupt':
      find(
        stop.error.name === 'UnknownFormatVersionError'
          ? FindingKind.walUnknownVersion
          : FindingKind.walCorrupt,
        `${stop.error.name}: ${stop.error.message}${after}`,
        stop.position,
      );
      return;
    case 'discontinuity':
      find(FindingKind.walDiscontinuity, `${stop.key}: ${stop.detail}${after}`, stop.position);
      return;
    default:
      return;
  }
}

async function firstKey(deps: RecoveryDeps, shard: string): Promise<string | undefined> {
  for await (const key of deps.store.list(shardPrefix(shard))) return key;
  return undefined;
}
