/**
 * The lines of a manifest (v1), in the shared framing of `lib/wal/framing.ts`
 * (gzip'd JSON Lines, header, tagged records, checksummed trailer), fields in
 * a fixed order so equal manifests encode to equal bytes:
 *
 *   {"t":"h","magic":"shardwal-manifest","v":1,"shard":..,"coveredPosition":..,"lastSeq":..,
 *    "nextRowOffset":..,"historyFloor":..,"keylessRows":..,"previousExport":..|null,"createdAtMs":..}
 *   {"t":"p","v":1,"kind":"base"|"delta","from":..,"to":..,"index":..,"rows":..,"deletes":..,"rawBytes":..,"bytes":..,"crc32":..}
 *   {"t":"s","v":1,"first":..,"end":..,"firstOffset":..,"lastOffset":..,"rows":..,"rawBytes":..,"bytes":..,"crc32":..,"createdAtMs":..}
 *   {"t":"e","rows":<records>,"crc32":<uint32>}
 *
 * Format 2 is the same lines, plus table segments: a segment record of
 * version 2 carries one more field, `table`, after `createdAtMs`. A
 * manifest is written as format 2 exactly when it lists one, so a reader
 * that knows only format 1 meets its version, never a field it does not know.
 *
 * Parts (`p`) come first, in application order; segments (`s`) follow,
 * ascending. Keys of parts and segments are derived from these fields, never
 * stored, so a manifest cannot name an object outside its shard's layout.
 */
import type { SegmentRef } from '../segment/format.js';
import { TABLE_SEGMENT_VERSION } from '../segment/format.js';
import type { SnapshotPartRef } from '../snapshot/format.js';
import type { FrameFields, FrameFormat } from '../wal/framing.js';
import type { Fail } from '../wal/wal-check.js';
import {
  MANIFEST_FORMAT_VERSION,
  MANIFEST_MAGIC,
  MANIFEST_READABLE_VERSIONS,
  MANIFEST_TABLE_SEGMENTS_VERSION,
  type ManifestHeader,
} from './format.js';

/** Record tags of a manifest (header and trailer belong to the framing). */
export const ManifestTag = { part: 'p', segment: 's' } as const;

/** The manifest format as the framing sees it. */
export const MANIFEST_FRAME: FrameFormat = {
  name: 'manifest',
  magic: MANIFEST_MAGIC,
  version: MANIFEST_FORMAT_VERSION,
  readableVersions: MANIFEST_READABLE_VERSIONS,
  recordTags: [ManifestTag.part, ManifestTag.segment],
};

/** The framing of a manifest that lists a table segment (format 2). */
export const MANIFEST_TABLE_SEGMENTS_FRAME: FrameFormat = {
  ...MANIFEST_FRAME,
  version: MANIFEST_TABLE_SEGMENTS_VERSION,
};

const HEADER_FIELDS = [
  'shard',
  'coveredPosition',
  'lastSeq',
  'nextRowOffset',
  'historyFloor',
  'keylessRows',
  'previousExport',
  'createdAtMs',
] as const;
const PART_FIELDS = [
  'v',
  'kind',
  'from',
  'to',
  'index',
  'rows',
  'deletes',
  'rawBytes',
  'bytes',
  'crc32',
] as const;
const SEGMENT_FIELDS = [
  'v',
  'first',
  'end',
  'firstOffset',
  'lastOffset',
  'rows',
  'rawBytes',
  'bytes',
  'crc32',
  'createdAtMs',
] as const;
const TABLE_SEGMENT_FIELDS = [...SEGMENT_FIELDS, 'table'] as const;

/** The header's fields after `t`, `magic` and `v`, in written order. */
export function headerFields(header: ManifestHeader): FrameFields {
  return pick(header, HEADER_FIELDS);
}

/** A part record's fields after `t`. */
export function partFields(part: SnapshotPartRef): FrameFields {
  return pick(part, PART_FIELDS);
}

/** A segment record's fields after `t`. */
export function segmentFields(segment: SegmentRef): FrameFields {
  return pick(segment, fieldsOfSegment(segment.v));
}

function fieldsOfSegment(v: unknown): readonly string[] {
  return v === TABLE_SEGMENT_VERSION ? TABLE_SEGMENT_FIELDS : SEGMENT_FIELDS;
}

/** Maps a header line back: exactly the header fields; also returns the format version. */
export function parseHeader(
  fields: FrameFields,
  fail: Fail,
): { header: ManifestHeader; version: number } {
  exactly(fields, ['t', 'magic', 'v', ...HEADER_FIELDS], 'line 1 (header)', fail);
  return {
    header: pick(fields, HEADER_FIELDS) as unknown as ManifestHeader,
    version: fields.v as number,
  };
}

/** Maps a part record back. */
export function parsePart(fields: FrameFields, where: string, fail: Fail): SnapshotPartRef {
  exactly(fields, ['t', ...PART_FIELDS], where, fail);
  return pick(fields, PART_FIELDS) as unknown as SnapshotPartRef;
}

/** Maps a segment record back. */
export function parseSegment(fields: FrameFields, where: string, fail: Fail): SegmentRef {
  const names = fieldsOfSegment(fields.v);
  exactly(fields, ['t', ...names], where, fail);
  return pick(fields, names) as unknown as SegmentRef;
}

function pick(source: object, names: readonly string[]): FrameFields {
  const out: FrameFields = {};
  for (const name of names) out[name] = (source as Record<string, unknown>)[name];
  return out;
}

function exactly(fields: FrameFields, keys: readonly string[], where: string, fail: Fail): void {
  const missing = keys.filter((key) => !Object.hasOwn(fields, key));
  const extra = Object.keys(fields).filter((key) => !keys.includes(key));
  if (missing.length > 0 || extra.length > 0) {
    fail(`${where}: missing fields [${missing.join(', ')}], unknown fields [${extra.join(', ')}]`);
  }
}
