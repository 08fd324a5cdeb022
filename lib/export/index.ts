/**
 * Export: archive a shard's new WAL into segments and snapshot parts and
 * write a manifest naming them (docs/recovery.md, docs/manifest-format.md).
 * The contract:
 *
 * 1. An export covers committed WAL positions only (below the record's
 *    `walNextPos`), built on the newest export below it that verifies.
 * 2. Keyed rows: the newest position wins, a delete removes the key (the
 *    snapshot, kept as a base and deltas); keyless rows are kept in offset
 *    order (segments, from the history floor on).
 * 3. It costs O(new data) (plus amortized compaction), never O(history):
 *    the base's segments and parts are listed again, never copied.
 * 4. Everything is written create-if-absent and never overwritten; the
 *    manifest only after what it lists, the watermark only after the
 *    manifest, and only forward.
 * 5. Retention keeps the newest two valid exports with what they list and
 *    the WAL after the second newest; it retires older exports, orphans and
 *    WAL below that, each after its retention period.
 *
 * This index is the API the CLI and the export function call.
 */
export {
  type ExportDeps,
  type ExportFaultHook,
  ExportFaultPoint,
  type ExportParts,
  exportDeps,
  exportDepsFrom,
} from './deps.js';
export { type ExportAllOptions, type ExportAllReport, exportAll } from './export-all.js';
export { handleExportEvent } from './export-event.js';
export { type ExportReport, ExportStatus } from './export-report.js';
export { type ExportOptions, exportShard } from './export-shard.js';
export { renderExportAllReport, renderExportReport } from './render.js';
export type { RetentionReport } from './retention.js';
