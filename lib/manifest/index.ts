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
export { decodeManifest, encodeManifest } from './codec.js';
export * from './format.js';
export { MANIFEST_FRAME, ManifestTag } from './lines-v1.js';
