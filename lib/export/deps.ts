/**
 * What export needs, its fault points, and how a handler builds it from the
 * service.
 */
import type { Table } from '../memtable/table.js';
import type { Service } from '../runtime/service.js';
import type { ObjectStore } from '../store/object-store.js';
import { FRAME_GZIP_LEVEL } from '../wal/framing.js';

/** Named points between export's steps; tests throw there to simulate a crash. */
export const ExportFaultPoint = {
  beforeWrite: 'export:before-write',
  afterWrite: 'export:after-write',
  afterWatermark: 'export:after-watermark',
} as const;
export type ExportFaultPoint = (typeof ExportFaultPoint)[keyof typeof ExportFaultPoint];

/** A hook called at each point; it may throw to crash the export there. */
export type ExportFaultHook = (point: ExportFaultPoint, shard: string) => Promise<void> | void;

/** Dependencies of export. */
export interface ExportDeps {
  table: Table;
  store: ObjectStore;
  now: () => number;
  /** WAL objects stay this long after an export covers them (and are never retired above the previous export). */
  walRetentionMs: number;
  /** gzip level of exports (default the framing's). */
  gzipLevel?: number;
  faults?: ExportFaultHook;
}

/** Export dependencies from the service's configuration and clients. */
export function exportDeps(service: Service): ExportDeps {
  return {
    table: service.table,
    store: service.store(),
    now: () => Date.now(),
    walRetentionMs: service.config.walRetentionMs,
    gzipLevel: FRAME_GZIP_LEVEL,
  };
}
