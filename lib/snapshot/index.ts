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
export * from './format.js';
export { parseSnapshotLine, snapshotLine } from './lines.js';
export { type EntryHandler, type MergedEntry, mergeSnapshot, readPart } from './reader.js';
export { type PartName, SnapshotPartWriter } from './writer.js';
