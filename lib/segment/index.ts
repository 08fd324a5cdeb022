/**
 * Segments: a shard's keyless history in immutable objects (docs/segment-format.md).
 * The contract:
 *
 * 1. A segment holds every keyless row of the WAL positions [first, end), in
 *    offset order, one line each: `{"seq":S,"offset":O,"row":<row>}`, the row
 *    exactly as sent. No header, no trailer: a stock NDJSON reader
 *    (`gzip -dc`, DuckDB's `read_ndjson`, Athena's JSON SerDe) reads rows only.
 * 2. Its key is named by `first` (`shards/<shard>/seg/<first>.ndjson.gz`),
 *    where `first` is the WAL position of its first row; it is written once,
 *    create-if-absent, and never rewritten.
 * 3. Its version, range, row count, sizes and CRC-32 are recorded in the
 *    manifest that lists it; a reader checks the object against them and
 *    fails loud on any difference.
 */
export * from './format.js';
export { parseSegmentLine, segmentLine } from './lines.js';
export { readSegment, type SegmentRowHandler } from './reader.js';
export { SegmentWriter } from './writer.js';
