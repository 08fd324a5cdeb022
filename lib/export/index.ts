/**
 * Export: fold a shard's WAL into AOF exports (docs/aof-format.md,
 * docs/recovery.md). The contract:
 *
 * 1. An export covers committed WAL positions only (below the record's
 *    `walNextPos`), folded onto the newest export below it that verifies.
 * 2. Keyed rows: the newest position wins, a delete removes the key; keyless
 *    rows are kept in offset order.
 * 3. It is written create-if-absent and never overwritten; the watermark is
 *    recorded only after it is in the store, and only moves forward.
 * 4. WAL objects are retired only below the previous export's covered
 *    position and only once an export covering them is older than
 *    `walRetentionMs`: never at or above the watermark, never the newest.
 *
 * This index is the API the CLI and the export function call.
 */
export { type ExportDeps, type ExportFaultHook, ExportFaultPoint, exportDeps } from './deps.js';
export { type ExportAllOptions, type ExportAllReport, exportAll } from './export-all.js';
export { handleExportEvent } from './export-event.js';
export { type ExportReport, ExportStatus } from './export-report.js';
export { type ExportOptions, exportShard } from './export-shard.js';
export { renderExportAllReport, renderExportReport } from './render.js';
export type { RetentionReport } from './retention.js';
