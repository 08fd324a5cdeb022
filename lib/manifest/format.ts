/**
 * Manifests: the export (docs/manifest-format.md). The contract:
 *
 * 1. A manifest at `shards/<shard>/manifest/<coveredPosition>` states the
 *    shard's state below `coveredPosition`: the keyed snapshot (its parts in
 *    order) and the keyless history from `historyFloor` (its segments in
 *    order), with the cursors the WAL chain continues from (`lastSeq`,
 *    `nextRowOffset`). It is what "the newest valid export" means.
 * 2. It is small, framed like every stored format (gzip'd JSON Lines with a
 *    checksummed trailer), versioned, written once create-if-absent, and
 *    checked without reading a part or a segment; each of those is checked
 *    against the manifest's record of it when it is read.
 * 3. Unknown versions (its own, a part's, a segment's) and unknown record tags
 *    are typed errors, never skipped.
 */
/**
 * Manifest format v1: the types, constants and keys (docs/manifest-format.md).
 * A manifest is an export: it names the keyed snapshot's parts and the
 * ordered keyless segments that together hold a shard's state below its
 * covered position, with the counts and checksums to check them by, and the
 * history floor below which keyless rows are no longer kept. It is small
 * (one line per part and segment), written once create-if-absent, and read
 * and checked without reading any part or segment.
 */
import { POSITION_DIGITS, padPosition } from '../paths.js';
import type { SegmentRef } from '../segment/format.js';
import type { SnapshotPartRef } from '../snapshot/format.js';

/** First field of every manifest's header line. */
export const MANIFEST_MAGIC = 'shardwal-manifest';

/** The version this code writes for a manifest whose segments are all objects of their own. */
export const MANIFEST_FORMAT_VERSION = 1;

/** The version of a manifest that lists a table segment (segment version 2). */
export const MANIFEST_TABLE_SEGMENTS_VERSION = 2;

/** Versions this code reads. */
export const MANIFEST_READABLE_VERSIONS = [1, 2] as const;

/** The header of a manifest. */
export interface ManifestHeader {
  shard: string;
  /** WAL positions below this are covered; the manifest is stored at `manifestKey(shard, coveredPosition)`. */
  coveredPosition: number;
  /** Last batch seq of the covered WAL prefix (0 when it covers nothing). */
  lastSeq: number;
  /** Row offset the first row after the covered prefix takes. */
  nextRowOffset: number;
  /** Keyless rows of WAL positions below this are no longer kept (history retention); 0: all kept. */
  historyFloor: number;
  /** Keyless rows in the listed segments. */
  keylessRows: number;
  /** Covered position of the export this one was built on; null when built from WAL position 0. */
  previousExport: number | null;
  /** Wall-clock time the export was built. */
  createdAtMs: number;
}

/** A decoded manifest. */
export interface Manifest {
  header: ManifestHeader;
  /** Snapshot parts, in application order (base first). */
  parts: SnapshotPartRef[];
  /** Segments, ascending by position. */
  segments: SegmentRef[];
}

/** Prefix of a shard's manifests. */
export function manifestPrefix(shard: string): string {
  return `shards/${shard}/manifest/`;
}

/** Key of the manifest covering WAL positions below `coveredPosition`. */
export function manifestKey(shard: string, coveredPosition: number): string {
  return manifestPrefix(shard) + padPosition(coveredPosition);
}

const MANIFEST_KEY = new RegExp(`(?:^|/)shards/([^/]+)/manifest/(\\d{${POSITION_DIGITS}})$`);

/** The shard and covered position a manifest key names; undefined when the key is not a manifest's. */
export function parseManifestKey(
  key: string,
): { shard: string; coveredPosition: number } | undefined {
  const match = MANIFEST_KEY.exec(key);
  return match ? { shard: match[1]!, coveredPosition: Number(match[2]) } : undefined;
}
