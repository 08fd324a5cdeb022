/**
 * The framing shared by shardwal's stored formats (WAL objects, AOF exports):
 * gzip-compressed JSON Lines with a header, tagged records and a checksummed
 * trailer, so `gzip -dc <object> | jq` opens any of them. This file writes the
 * framing; `frame-reader.ts` reads it. A format (WAL, AOF) supplies its magic,
 * versions and record tags, and owns the fields of its lines.
 *
 * Invariants of a framed object (docs/wal-format.md, "Framing"):
 * 1. The bytes are gzip (RFC 1952), nothing after the last gzip member.
 * 2. The uncompressed bytes are UTF-8 lines, each ended by one `\n`, the last included.
 * 3. Every line is one JSON object whose string field `t` is its tag.
 * 4. Line 1 is the header: `t` "h", `magic`, `v` (format version), then format fields.
 * 5. Lines 2..n-1 are records whose tags belong to the format's record tag set.
 * 6. Line n is the trailer, exactly `{"t":"e","rows":R,"crc32":C}`: R counts the
 *    record lines, C is the CRC-32 (zlib's, unsigned) of every uncompressed byte
 *    before the trailer line.
 * 7. Nothing follows the trailer's `\n`.
 */
import { crc32, gzipSync } from 'node:zlib';
import { InternalError } from '../errors.js';
import { stringifyLine } from '../rows/raw-json.js';

/** Tags the framing itself owns. Formats must not reuse them for records. */
export const FrameTag = { header: 'h', trailer: 'e' } as const;

/**
 * gzip level for every framed object. Measured on a 10k-row WAL object of
 * ~240-byte keyed rows (2.4 MB raw, Node 20): level 1 gave 20.0% of raw in
 * ~13 ms, level 6 gave 16.6% in ~35 ms, level 9 gave 16.1% in ~80-90 ms;
 * gunzip was no slower at 6 than at 1. Objects are written once and read by
 * verify, export and recovery, so 6 buys 17% fewer bytes stored and moved for
 * ~20 ms per flush, small beside an S3 PUT; 9 doubles that for 0.5 points.
 */
export const FRAME_GZIP_LEVEL = 6;

/** What a format tells the framing about itself. */
export interface FrameFormat {
  /** Name in error messages, e.g. 'WAL'. */
  name: string;
  /** Value of the header's `magic` field. */
  magic: string;
  /** Version the writer stamps into `v`. */
  version: number;
  /** Versions a reader accepts; any other `v` is an `UnknownFormatVersionError`. */
  readableVersions: readonly number[];
  /** Tags allowed on record lines (never 'h' or 'e'). */
  recordTags: readonly string[];
  /**
   * Reads a record line without `JSON.parse` of its raw members (`lib/rows`):
   * their values come back as `RawJson`. Undefined for a line it cannot read,
   * which is then parsed whole and judged by the format's own rules.
   */
  parseRecord?: (text: string) => FrameFields | undefined;
}

/** The fields of one line, `t` excluded when writing; `RawJson` values are written verbatim. */
export type FrameFields = Record<string, unknown>;

/** One record to write: its tag and fields, in the order they are written. */
export interface FrameRecord {
  tag: string;
  fields: FrameFields;
}

/**
 * Writes a framed object's uncompressed lines one at a time, keeping the
 * running CRC and record count. `encodeFrame` gzips a whole object at once; a
 * streaming writer (large AOF exports) pipes these chunks through
 * `createGzip({ level: FRAME_GZIP_LEVEL })` instead.
 */
export class FrameWriter {
  #crc = 0;
  #records = 0;
  #state: 'header' | 'records' | 'done' = 'header';

  constructor(readonly format: FrameFormat) {
    if (format.recordTags.some((tag) => tag === FrameTag.header || tag === FrameTag.trailer)) {
      throw new InternalError(`${format.name}: record tags must not reuse 'h' or 'e'`);
    }
  }

  /** Line 1: `{"t":"h","magic":...,"v":...,...fields}`. */
  header(fields: FrameFields): Buffer {
    this.#expect('header', 'header');
    this.#state = 'records';
    const { magic, version } = this.format;
    return this.#line({ t: FrameTag.header, magic, v: version, ...this.#own(fields) });
  }

  /** One record line: `{"t":<tag>,...fields}`. */
  record(tag: string, fields: FrameFields): Buffer {
    this.#expect('records', 'record');
    if (!this.format.recordTags.includes(tag)) {
      throw new InternalError(
        `${this.format.name}: record tag ${JSON.stringify(tag)} is not in its tag set`,
      );
    }
    this.#records += 1;
    return this.#line({ t: tag, ...this.#own(fields) });
  }

  /** The last line: `{"t":"e","rows":R,"crc32":C}` over every byte written so far. */
  trailer(): Buffer {
    this.#expect('records', 'trailer');
    this.#state = 'done';
    return Buffer.from(
      JSON.stringify({ t: FrameTag.trailer, rows: this.#records, crc32: this.#crc }) + '\n',
    );
  }

  #line(value: FrameFields): Buffer {
    const bytes = Buffer.from(stringifyLine(value) + '\n', 'utf8');
    this.#crc = crc32(bytes, this.#crc);
    return bytes;
  }

  #own(fields: FrameFields): FrameFields {
    if (Object.hasOwn(fields, 't')) {
      throw new InternalError(
        `${this.format.name}: line fields must not contain the tag field "t"`,
      );
    }
    return fields;
  }

  #expect(state: 'header' | 'records', writing: string): void {
    if (this.#state !== state) {
      throw new InternalError(
        `${this.format.name}: cannot write a ${writing} line in state ${this.#state}`,
      );
    }
  }
}

/** Frames and gzips a whole object: header, records in order, trailer. */
export function encodeFrame(
  format: FrameFormat,
  header: FrameFields,
  records: Iterable<FrameRecord>,
): Uint8Array {
  const writer = new FrameWriter(format);
  const chunks = [writer.header(header)];
  for (const { tag, fields } of records) chunks.push(writer.record(tag, fields));
  chunks.push(writer.trailer());
  return gzipSync(Buffer.concat(chunks), { level: FRAME_GZIP_LEVEL });
}
