/**
 * Encodes and decodes manifests (docs/manifest-format.md). The encoder checks
 * every rule a reader applies before a byte is written (`InternalError`); the
 * decoder fails loud with a typed error naming the key: the framing's
 * (`UnknownFormatVersionError`, `UnknownRecordTagError`, checksum,
 * truncation), the manifest rules, and a header that names another shard or
 * position than its key.
 */
import { CorruptDataError, InternalError, UnknownFormatVersionError } from '../errors.js';
import { TABLE_SEGMENT_VERSION } from '../segment/format.js';
import { readFrameSync } from '../wal/frame-reader.js';
import { encodeFrame, type FrameRecord } from '../wal/framing.js';
import type { Fail } from '../wal/wal-check.js';
import {
  MANIFEST_FORMAT_VERSION,
  MANIFEST_TABLE_SEGMENTS_VERSION,
  type Manifest,
  type ManifestHeader,
  parseManifestKey,
} from './format.js';
import {
  headerFields,
  MANIFEST_FRAME,
  MANIFEST_TABLE_SEGMENTS_FRAME,
  ManifestTag,
  parseHeader,
  parsePart,
  parseSegment,
  partFields,
  segmentFields,
} from './lines-v1.js';
import { ManifestChecker } from './manifest-check.js';

/** The gzip'd bytes of `manifest`. Deterministic: equal manifests, equal bytes. */
export function encodeManifest(manifest: Manifest): Uint8Array {
  const { header, parts, segments } = manifest;
  const fail = (problem: string): never => {
    throw new InternalError(
      `encodeManifest(${header.shard} at ${header.coveredPosition}): ${problem}`,
    );
  };
  const tableSegments = segments.some((segment) => segment.v === TABLE_SEGMENT_VERSION);
  const checker = new ManifestChecker(
    header,
    tableSegments ? MANIFEST_TABLE_SEGMENTS_VERSION : MANIFEST_FORMAT_VERSION,
    fail,
    (what, version) => fail(`${what}: version ${version} is not one this code reads`),
  );
  for (const [i, part] of parts.entries()) checker.part(part, `parts[${i}]`);
  for (const [i, segment] of segments.entries()) checker.segment(segment, `segments[${i}]`);
  checker.finish();
  const records: FrameRecord[] = [
    ...parts.map((part) => ({ tag: ManifestTag.part, fields: partFields(part) })),
    ...segments.map((segment) => ({ tag: ManifestTag.segment, fields: segmentFields(segment) })),
  ];
  const frame = tableSegments ? MANIFEST_TABLE_SEGMENTS_FRAME : MANIFEST_FRAME;
  return encodeFrame(frame, headerFields(header), records);
}

/** Decodes and verifies a manifest stored at `objectKey`. */
export function decodeManifest(objectKey: string, bytes: Uint8Array): Manifest {
  const fail: Fail = (problem) => {
    throw new CorruptDataError(objectKey, problem);
  };
  let checker: ManifestChecker | undefined;
  let header: ManifestHeader | undefined;
  const manifest: Manifest = {
    header: undefined as unknown as ManifestHeader,
    parts: [],
    segments: [],
  };
  for (const { line, tag, fields } of readFrameSync(objectKey, bytes, MANIFEST_FRAME)) {
    if (checker === undefined) {
      const parsed = parseHeader(fields, fail);
      header = parsed.header;
      checker = new ManifestChecker(header, parsed.version, fail, (what, version, readable) => {
        throw new UnknownFormatVersionError(
          `${objectKey} ${what}`,
          what.includes('segment') ? 'segment' : 'snapshot',
          version,
          readable,
        );
      });
      checkKey(objectKey, header, fail);
      manifest.header = header;
      continue;
    }
    const where = `line ${line}`;
    if (tag === ManifestTag.part) {
      const part = parsePart(fields, where, fail);
      checker.part(part, where);
      manifest.parts.push(part);
    } else {
      const segment = parseSegment(fields, where, fail);
      checker.segment(segment, where);
      manifest.segments.push(segment);
    }
  }
  checker!.finish();
  return manifest;
}

/** A manifest stored under a manifest key must name the same shard and covered position. */
function checkKey(objectKey: string, header: ManifestHeader, fail: Fail): void {
  const named = parseManifestKey(objectKey);
  if (!named) return;
  if (named.shard !== header.shard || named.coveredPosition !== header.coveredPosition) {
    fail(
      `line 1: header says shard ${header.shard} coveredPosition ${header.coveredPosition}, but the key says otherwise`,
    );
  }
}
