/**
 * The line-level rules of the framing (`framing.ts`): splitting on `\n`, and
 * checking each line in order while keeping the running CRC and record count.
 * `frame-reader.ts` feeds it from a buffer or a stream.
 */
import { crc32 } from 'node:zlib';
import { CorruptDataError, UnknownFormatVersionError, UnknownRecordTagError } from '../errors.js';
import { type FrameFields, type FrameFormat, FrameTag } from './framing.js';

/** One parsed header or record line. */
export interface FramedLine {
  /** 1-based line number in the uncompressed text. */
  line: number;
  tag: string;
  /** Every field of the line, `t` included. */
  fields: FrameFields;
}

const MAX_CRC32 = 0xffff_ffff;
// fatal: invalid UTF-8 is corruption, not U+FFFD; ignoreBOM: a BOM is kept, so JSON.parse rejects it.
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Splits bytes on `\n`; a line may span chunks. */
export class LineSplitter {
  #pending: Buffer[] = [];
  pendingBytes = 0;

  *push(chunk: Buffer): Generator<Buffer> {
    let start = 0;
    for (let nl = chunk.indexOf(0x0a); nl !== -1; nl = chunk.indexOf(0x0a, start)) {
      const part = chunk.subarray(start, nl);
      start = nl + 1;
      if (this.#pending.length === 0) {
        yield part;
        continue;
      }
      this.#pending.push(part);
      const line = Buffer.concat(this.#pending);
      this.#pending = [];
      this.pendingBytes = 0;
      yield line;
    }
    if (start < chunk.length) {
      this.#pending.push(chunk.subarray(start));
      this.pendingBytes += chunk.length - start;
    }
  }
}

/** Checks lines in order, keeping the running CRC and record count. */
export class FrameParser {
  #line = 0;
  #crc = 0;
  #records = 0;
  #ended = false;

  constructor(
    private readonly objectKey: string,
    private readonly format: FrameFormat,
  ) {}

  /** Parses one line (without its `\n`); returns undefined for the trailer. */
  line(bytes: Buffer): FramedLine | undefined {
    const line = ++this.#line;
    if (this.#ended) this.#fail(`line ${line}: data after the trailer`);
    const text = this.#text(bytes, line);
    const fields = this.#json(text, line);
    const tag = fields.t;
    if (line === 1) this.#checkHeader(fields);
    else if (tag === FrameTag.trailer) return this.#trailer(fields, text);
    else if (tag === FrameTag.header)
      this.#fail(`line ${line}: a second header; only line 1 may be one`);
    else if (typeof tag !== 'string' || !this.format.recordTags.includes(tag)) {
      const known = [FrameTag.header, ...this.format.recordTags, FrameTag.trailer];
      throw new UnknownRecordTagError(this.objectKey, line, tag, known);
    } else this.#records += 1;
    this.#crc = crc32(bytes, this.#crc);
    this.#crc = crc32('\n', this.#crc);
    return { line, tag: tag as string, fields };
  }

  /** Called at the end of input with the count of bytes after the last `\n`. */
  end(pendingBytes: number): void {
    if (this.#ended && pendingBytes > 0) this.#fail(`${pendingBytes} bytes after the trailer`);
    if (this.#ended) return;
    if (pendingBytes > 0) {
      this.#fail(
        `truncated: line ${this.#line + 1} has no terminating newline and no trailer follows`,
      );
    }
    this.#fail(
      this.#line === 0
        ? 'truncated: the object is empty'
        : `truncated: no trailer after line ${this.#line}`,
    );
  }

  #checkHeader(fields: FrameFields): void {
    const { name, magic, readableVersions } = this.format;
    if (fields.t !== FrameTag.header) {
      this.#fail(`line 1: expected the header (t "h"), got t ${JSON.stringify(fields.t)}`);
    }
    if (fields.magic !== magic) {
      this.#fail(
        `line 1: expected magic ${JSON.stringify(magic)}, got ${JSON.stringify(fields.magic)}`,
      );
    }
    if (!readableVersions.includes(fields.v as number)) {
      throw new UnknownFormatVersionError(this.objectKey, name, fields.v, readableVersions);
    }
  }

  #trailer(fields: FrameFields, text: string): undefined {
    const where = `line ${this.#line} (trailer)`;
    const { rows, crc32: stored } = fields;
    const isCount = Number.isSafeInteger(rows) && (rows as number) >= 0;
    const isCrc =
      Number.isSafeInteger(stored) && (stored as number) >= 0 && (stored as number) <= MAX_CRC32;
    const canonical = JSON.stringify({ t: FrameTag.trailer, rows, crc32: stored });
    if (!isCount || !isCrc || text !== canonical) {
      this.#fail(
        `${where}: expected exactly {"t":"e","rows":<count>,"crc32":<uint32>}, got ${text}`,
      );
    }
    if (stored !== this.#crc) {
      this.#fail(
        `${where}: checksum mismatch: trailer says crc32 ${stored}, content has ${this.#crc}`,
      );
    }
    if (rows !== this.#records) {
      this.#fail(`${where}: trailer says ${rows} records, the object has ${this.#records}`);
    }
    this.#ended = true;
    return undefined;
  }

  #text(bytes: Buffer, line: number): string {
    try {
      return utf8.decode(bytes);
    } catch (error) {
      return this.#fail(`line ${line}: not valid UTF-8`, error);
    }
  }

  #json(text: string, line: number): FrameFields {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      this.#fail(`line ${line}: malformed JSON: ${(error as Error).message}`, error);
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      this.#fail(`line ${line}: expected a JSON object, got ${text.slice(0, 40)}`);
    }
    return value as FrameFields;
  }

  #fail(problem: string, cause?: unknown): never {
    throw new CorruptDataError(this.objectKey, problem, { cause });
  }
}
