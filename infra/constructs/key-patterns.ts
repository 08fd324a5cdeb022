/**
 * Object key patterns of the data bucket, as `lib/paths.ts` builds the keys.
 * The grants (`permissions.ts`) and the bucket policy (`bucket-policy.ts`)
 * are written in these terms, so the key layout is stated once here.
 */
import { SPILL_PREFIX } from '../../lib/paths.js';
import { TABLES_PREFIX } from '../../lib/table/paths.js';

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
  /**
   * Every object of the Iceberg tables (`lib/table/paths.ts`): data files,
   * manifests, manifest lists, `v<N>.metadata.json`, the version hint.
   */
  table: `${TABLES_PREFIX}*`,
  /** A table's metadata folder: its commits and the hint (the retention floor reads them). */
  tableMetadata: `${TABLES_PREFIX}*/metadata/*`,
  /** The version hint, the one table key rewritten (delete, then create): a hint only. */
  tableVersionHint: `${TABLES_PREFIX}*/metadata/version-hint.text`,
  /** Parquet data files, `tables/<name>/data/<partition>/<ms>-<uuid>-<i>.parquet`. */
  tableData: `${TABLES_PREFIX}*/data/*`,
  /** Manifests and manifest lists (Avro). */
  tableManifest: `${TABLES_PREFIX}*/metadata/*.avro`,
  /** `v<N>.metadata.json`: the commits of record. */
  tableCommit: `${TABLES_PREFIX}*/metadata/*.metadata.json`,
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
 * line here. Every table key is written once too, except the version hint,
 * which `lib/table/commit.ts` moves forward by delete-then-create (a hint
 * only: losing it costs a listing, never a row). A deny cannot subtract a
 * key from `tables/*`, so the table's kinds are listed: data files,
 * manifests and manifest lists, metadata files; the hint matches none.
 */
export const IMMUTABLE_KEY_PATTERNS: readonly string[] = [
  KEY_PATTERNS.wal,
  KEY_PATTERNS.aof,
  KEY_PATTERNS.manifest,
  KEY_PATTERNS.segment,
  KEY_PATTERNS.snapshot,
  KEY_PATTERNS.spill,
  KEY_PATTERNS.tableData,
  KEY_PATTERNS.tableManifest,
  KEY_PATTERNS.tableCommit,
];
