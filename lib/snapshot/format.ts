/**
 * Snapshots: a shard's keyed state sized by its live keys, kept incrementally
 * (docs/snapshot-format.md). The contract:
 *
 * 1. A snapshot at WAL position T is its parts applied in order: at most one
 *    base (every live key's newest row below its position) and the deltas
 *    after it, contiguous (each delta's `from` is the previous part's `to`,
 *    the last one's `to` is T). Within a part keys strictly ascend; a later
 *    part's entry for a key replaces an earlier one's, a delete removes it.
 * 2. A part is named by its range, kind and index and written once,
 *    create-if-absent: equal keys hold equal content (a fold of the same WAL
 *    range). Consecutive manifests share parts; that is what makes an export
 *    cost O(new data) instead of O(live keys).
 * 3. Versions, counts, sizes and CRC-32 of each part live in the manifest; a
 *    reader checks the part against them and fails loud on any difference.
 */
/**
 * Snapshot format v1: the types, constants and keys (docs/snapshot-format.md).
 * A snapshot is a shard's keyed state at a WAL position (newest position
 * wins, deletes remove), held in parts: at most one base (the whole state at
 * its position) and the deltas after it (each the newest row or delete of
 * every key changed in its WAL range). Parts are written once and shared by
 * the manifests that list them; their versions, ranges, counts and checksums
 * live in those manifests.
 */
import { POSITION_DIGITS, padPosition } from '../paths.js';
import type { KeyId } from '../rows/key-id.js';
import type { LineStats } from '../store/gzip-lines.js';

/** The version this code writes (recorded per part in the manifest). */
export const SNAPSHOT_FORMAT_VERSION = 1;

/** Versions this code reads. */
export const SNAPSHOT_READABLE_VERSIONS = [1] as const;

/** Kinds of part. */
export const PartKind = { base: 'base', delta: 'delta' } as const;
export type PartKind = (typeof PartKind)[keyof typeof PartKind];

/** A snapshot part as its manifest records it. */
export interface SnapshotPartRef extends LineStats {
  v: number;
  kind: PartKind;
  /** WAL positions [from, to) it folds (a base: from 0). */
  from: number;
  to: number;
  /** Parts of one delta range, in order (a fold that spilled writes several). */
  index: number;
  /** Lines that are deletes (a base has none). */
  deletes: number;
}

/** One line of a part: a key's newest row, or its delete. */
export interface SnapshotEntry {
  key: KeyId;
  seq: number;
  offset: number;
  /** The row's text; absent on a delete. */
  text?: string;
  delete?: true;
}

/** Prefix of a shard's snapshot parts. */
export function snapshotPrefix(shard: string): string {
  return `shards/${shard}/snap/`;
}

/** Key of a part: named by its range, kind and index, so equal keys hold equal content. */
export function snapshotPartKey(
  shard: string,
  part: Pick<SnapshotPartRef, 'from' | 'to' | 'kind' | 'index'>,
): string {
  return `${snapshotPrefix(shard)}${padPosition(part.from)}-${padPosition(part.to)}-${part.kind}-${part.index}.ndjson.gz`;
}

const PART_KEY = new RegExp(
  `/snap/(\\d{${POSITION_DIGITS}})-(\\d{${POSITION_DIGITS}})-(base|delta)-(\\d+)\\.ndjson\\.gz$`,
);

/** The range a part key names; undefined when the key is not a part's. */
export function rangeOfPartKey(key: string): { from: number; to: number } | undefined {
  const match = PART_KEY.exec(key);
  return match ? { from: Number(match[1]), to: Number(match[2]) } : undefined;
}
