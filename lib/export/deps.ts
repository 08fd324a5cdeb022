/**
 * What export needs, its fault points, and how it is built from the
 * validated configuration: in one place (`exportDepsFrom`), whichever
 * process runs it (the export function, the CLI).
 */
import type { ShardwalConfig } from '../config.js';
import type { Table } from '../memtable/table.js';
import type { Service } from '../runtime/service.js';
import type { ObjectStore } from '../store/object-store.js';
import { type TableHoldOf, tableHold } from '../table/floor.js';
import { tablesConfigFromEnv } from '../table/table-config.js';
import { FRAME_GZIP_LEVEL } from '../wal/framing.js';

/** Named points between export's and retention's steps; tests throw there to simulate a crash. */
export const ExportFaultPoint = {
  /** Segments and snapshot parts are stored; the manifest is not. */
  afterArchive: 'export:after-archive',
  /** The deadline check passed (`deadline.ts`); the manifest is not yet written. */
  beforeWrite: 'export:before-write',
  afterWrite: 'export:after-write',
  afterWatermark: 'export:after-watermark',
  /** A retired manifest's own parts and segments are deleted; the manifest is not yet. */
  retentionAfterObjects: 'retention:after-objects',
  /** A retired manifest is deleted. */
  retentionAfterManifest: 'retention:after-manifest',
  /** Orphans are swept; the sweep cursor is not yet recorded. */
  retentionAfterSweep: 'retention:after-sweep',
  /** WAL objects are deleted; the WAL cursor is not yet recorded. */
  retentionAfterWal: 'retention:after-wal',
} as const;
export type ExportFaultPoint = (typeof ExportFaultPoint)[keyof typeof ExportFaultPoint];

/** A hook called at each point; it may throw to crash the export there. */
type ExportFaultHook = (point: ExportFaultPoint, shard: string) => Promise<void> | void;

/** Dependencies of export. */
export interface ExportDeps {
  table: Table;
  store: ObjectStore;
  now: () => number;
  /** WAL objects stay this long after an export covers them (and never above the second newest export). */
  walRetentionMs: number;
  /** Superseded manifests and snapshot parts stay this long (the newest two exports always stay); default `walRetentionMs`. */
  exportRetentionMs?: number;
  /** Clock skew between processes; with the export retention it sets the export deadline (`deadline.ts`); default 0. */
  clockSkewMs?: number;
  /** Keyless history (segments) is kept this long; 0 or absent: forever. */
  historyRetentionMs?: number;
  /** gzip level of segments and snapshot parts (default the framing's). */
  gzipLevel?: number;
  /** Size rules, overridden by tests and benchmarks. */
  segmentTargetRawBytes?: number;
  spillBytes?: number;
  faults?: ExportFaultHook;
  /**
   * The table routing a shard and its high-water (`lib/table/floor.ts`):
   * WAL positions at or above it stay, and below it the table's files are
   * the keyless history.
   */
  tableHold?: TableHoldOf;
}

/** What a process supplies besides the configuration. */
export interface ExportParts {
  table: Table;
  store: ObjectStore;
  now: () => number;
}

/** Export dependencies of `config`: the one place a setting reaches export and retention. */
export function exportDepsFrom(config: ShardwalConfig, parts: ExportParts): ExportDeps {
  const tables = tablesConfigFromEnv();
  return {
    ...parts,
    walRetentionMs: config.walRetentionMs,
    exportRetentionMs: config.exportRetentionMs,
    historyRetentionMs: config.historyRetentionMs,
    clockSkewMs: config.clockSkewMs,
    gzipLevel: FRAME_GZIP_LEVEL,
    tableHold: tables && tableHold(parts.store, tables),
  };
}

/** Export dependencies from the service's configuration and clients. */
export function exportDeps(service: Service): ExportDeps {
  return exportDepsFrom(service.config, {
    table: service.table,
    store: service.store(),
    now: () => Date.now(),
  });
}
