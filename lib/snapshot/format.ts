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
