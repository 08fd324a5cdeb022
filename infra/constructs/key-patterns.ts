/**
 * Object key patterns of the data bucket, as `lib/paths.ts` builds the keys.
 * The grants (`permissions.ts`) and the bucket policy (`bucket-policy.ts`)
 * are written in these terms, so the key layout is stated once here.
 */
import { SPILL_PREFIX } from '../../lib/paths.js';

/** Key patterns, one per object kind (`*` spans a shard name or a zero-padded position). */
export const KEY_PATTERNS = {
  wal: 'shards/*/wal/*',
  /** Legacy AOF exports: read, retired, never written any more. */
  aof: 'shards/*/aof/*',
  /** Export manifests (`lib/manifest`). */
  manifest: 'shards/*/manifest/*',
  /** Keyless history (`lib/segment`). */
  segment: 'shards/*/seg/*',
  /** Keyed snapshot parts (`lib/snapshot`). */
  snapshot: 'shards/*/snap/*',
  /** Spilled batch payloads, `spill/<shard>/<seq>-<putId>[.<copyMs>]` (`lib/memtable/spill.ts`). */
  spill: `${SPILL_PREFIX}*`,
} as const;

/** What export writes: manifests, segments and snapshot parts. */
export const EXPORT_WRITTEN_PATTERNS: readonly string[] = [
  KEY_PATTERNS.manifest,
  KEY_PATTERNS.segment,
  KEY_PATTERNS.snapshot,
];

/** What export and recovery read: every kind. */
export const EXPORT_READ_PATTERNS: readonly string[] = [
  KEY_PATTERNS.wal,
  KEY_PATTERNS.aof,
  ...EXPORT_WRITTEN_PATTERNS,
];

/**
 * Keys written once and never again: the history, and the spilled payloads a
 * batch item names with their SHA-256 (rewriting one would turn its batch
 * into a corrupt-data error). The bucket policy denies any principal a
 * `PutObject` to them without `If-None-Match`, so nothing can overwrite them.
 * A new immutable object kind (segments, snapshots, manifests) is one more
 * line here.
 */
export const IMMUTABLE_KEY_PATTERNS: readonly string[] = [
  KEY_PATTERNS.wal,
  KEY_PATTERNS.aof,
  KEY_PATTERNS.manifest,
  KEY_PATTERNS.segment,
  KEY_PATTERNS.snapshot,
  KEY_PATTERNS.spill,
];
