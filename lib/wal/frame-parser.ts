/**
 * The line-level rules of the framing (`framing.ts`): splitting on `\n`, and
 * checking each line in order while keeping the running CRC and record count.
 * `frame-reader.ts` feeds it from a buffer or a stream: line by line
 * (`LineSplitter` + `FrameParser.line`), or a decompressed chunk at a time
 * (`FrameScanner`, the hot path of replay and export), both applying the
 * same rules in the same order.
 */
import { isAscii, isUtf8 } from 'node:buffer';
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
    const line = this.next();
    const framed = this.check(this.#text(bytes, line), line);
    if (framed) {
      this.#crc = crc32(bytes, this.#crc);
      this.#crc = crc32('\n', this.#crc);
    }
    return framed;
  }

  /** Numbers the next line; fails when it follows the trailer. */
  next(): number {
    const line = ++this.#line;
    if (this.#ended) this.#fail(`line ${line}: data after the trailer`);
    return line;
  }

  /**
   * Checks line `line` (numbered by `next`), given as valid text; returns
   * undefined for the trailer, which is checked against the CRC so far: the
   * caller must have added every byte before this line (`absorb`).
   */
  check(text: string, line: number): FramedLine | undefined {
    const fields = (line > 1 && this.format.parseRecord?.(text)) || this.#json(text, line);
    const tag = fields.t;
    if (line === 1) this.#checkHeader(fields);
    else if (tag === FrameTag.trailer) return this.#trailer(fields, text);
    else if (tag === FrameTag.header)
      this.#fail(`line ${line}: a second header; only line 1 may be one`);
    else if (typeof tag !== 'string' || !this.format.recordTags.includes(tag)) {
      const known = [FrameTag.header, ...this.format.recordTags, FrameTag.trailer];
      throw new UnknownRecordTagError(this.objectKey, line, tag, known);
    } else this.#records += 1;
    return { line, tag: tag as string, fields };
  }

  /** Counts a record line its format read directly (it checked the tag). */
  countRecord(): void {
    this.#records += 1;
  }

  /** Adds bytes (lines with their `\n`) to the CRC; nothing after the trailer counts. */
  absorb(bytes: Buffer): void {
    if (!this.#ended && bytes.length > 0) this.#crc = crc32(bytes, this.#crc);
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

/** What a sink returns: a promise when the scan must wait for it (backpressure). */
export type Wait = Promise<void> | undefined | void;

/**
 * Reads a record line written in the exact form its format's writer
 * produces, from its bytes (`bytes[start, end)`, valid UTF-8 without the
 * `\n`; `ascii` when every byte is ASCII), straight into the format's
 * record; undefined for any other line, which then takes the generic path
 * (`FrameParser.check`). It must return a record only for a line the generic
 * path reads as a record of a known tag, and then the record the format's
 * own mapping of that line would give.
 */
type CanonicalReader<R> = (
  bytes: Buffer,
  start: number,
  end: number,
  ascii: boolean,
) => R | undefined;

/** Where `FrameScanner` hands the lines it checked. */
export interface FrameSink<R> {
  /** The format's canonical reader (none: every line takes the generic path). */
  canonical?: CanonicalReader<R>;
  /** The header, and each record the canonical reader did not take, with its bytes (valid only during the call). */
  line(line: FramedLine, bytes: Buffer): Wait;
  /** A record the canonical reader took, with its 1-based line number. */
  record(record: R, line: number): Wait;
}

const TextMode = { ascii: 0, utf8: 1, invalid: 2 } as const;

/**
 * Checks a framed object a decompressed chunk at a time, with the rules and
 * error order of `FrameParser.line`, but without its per-line costs: the
 * UTF-8 check runs once over a chunk's complete lines (`isUtf8`, native),
 * the CRC once per chunk, and record lines in canonical form skip the
 * generic parse (`FrameSink.canonical`). A chunk that is not valid UTF-8 is
 * read line by line with `FrameParser.line`, so its first fault is reported
 * at the same line with the same message; a line split across chunks is
 * joined and read on its own.
 */
export class FrameScanner<R> {
  readonly #parser: FrameParser;
  #carry: Buffer[] = [];
  #carryBytes = 0;

  constructor(
    objectKey: string,
    format: FrameFormat,
    private readonly sink: FrameSink<R>,
  ) {
    this.#parser = new FrameParser(objectKey, format);
  }

  /**
   * Checks every line `chunk` completes. Synchronous unless the sink asks to
   * wait: then returns a promise that resolves once the sink has taken them
   * (the next chunk must wait for it).
   */
  push(chunk: Buffer): Wait {
    if (this.#carryBytes > 0 || this.#carry.length > 0) {
      const nl = chunk.indexOf(0x0a);
      if (nl === -1) {
        this.#carry.push(chunk);
        this.#carryBytes += chunk.length;
        return undefined;
      }
      const joined = Buffer.concat([...this.#carry, chunk.subarray(0, nl + 1)]);
      this.#carry = [];
      this.#carryBytes = 0;
      const wait = this.#lines(joined);
      if (wait) return wait.then(() => this.#rest(chunk, nl + 1));
      return this.#rest(chunk, nl + 1);
    }
    return this.#rest(chunk, 0);
  }

  /** Called at the end of input: fails unless the trailer was read and nothing follows it. */
  end(): void {
    this.#parser.end(this.#carryBytes);
  }

  /** The lines of `chunk` from `from` on; what follows its last `\n` is carried to the next chunk. */
  #rest(chunk: Buffer, from: number): Wait {
    const last = chunk.lastIndexOf(0x0a);
    if (last < from) {
      if (from < chunk.length) this.#keep(chunk.subarray(from));
      return undefined;
    }
    if (last + 1 < chunk.length) this.#keep(chunk.subarray(last + 1));
    return this.#lines(
      from === 0 && last === chunk.length - 1 ? chunk : chunk.subarray(from, last + 1),
    );
  }

  #keep(part: Buffer): void {
    this.#carry.push(part);
    this.#carryBytes += part.length;
  }

  /** Checks whole lines (`bytes` ends with `\n`), synchronously until the sink asks to wait. */
  #lines(bytes: Buffer): Wait {
    const mode = isAscii(bytes) ? TextMode.ascii : isUtf8(bytes) ? TextMode.utf8 : TextMode.invalid;
    if (mode === TextMode.invalid) return this.#linesOneByOne(bytes);
    return this.#linesFrom(bytes, 0, 0, mode === TextMode.ascii);
  }

  /** The loop of `#lines` from `start` (CRC absorbed up to `crcFrom`); resumes itself after a wait. */
  #linesFrom(bytes: Buffer, start: number, crcFrom: number, ascii: boolean): Wait {
    const parser = this.#parser;
    const { canonical } = this.sink;
    while (start < bytes.length) {
      const end = bytes.indexOf(0x0a, start);
      const line = parser.next();
      const record =
        line > 1 && canonical !== undefined ? canonical(bytes, start, end, ascii) : undefined;
      let wait: Wait;
      if (record !== undefined) {
        parser.countRecord();
        wait = this.sink.record(record, line);
      } else {
        // The trailer is checked against the CRC of every byte before it.
        parser.absorb(bytes.subarray(crcFrom, start));
        crcFrom = start;
        // latin1 is the cheapest exact decode of ASCII; otherwise the bytes are known valid UTF-8.
        const text = bytes.toString(ascii ? 'latin1' : 'utf8', start, end);
        const framed = parser.check(text, line);
        if (framed) wait = this.sink.line(framed, bytes.subarray(start, end));
      }
      start = end + 1;
      if (wait) {
        const [resume, from] = [start, crcFrom];
        return wait.then(() => this.#linesFrom(bytes, resume, from, ascii));
      }
    }
    parser.absorb(bytes.subarray(crcFrom));
    return undefined;
  }

  /** The per-line path, for bytes that are not all valid UTF-8: the first fault is found where `line` finds it. */
  #linesOneByOne(bytes: Buffer, start = 0): Wait {
    while (start < bytes.length) {
      const end = bytes.indexOf(0x0a, start);
      const line = bytes.subarray(start, end);
      const framed = this.#parser.line(line);
      start = end + 1;
      const wait = framed ? this.sink.line(framed, line) : undefined;
      if (wait) {
        const resume = start;
        return wait.then(() => this.#linesOneByOne(bytes, resume));
      }
    }
    return undefined;
  }
}
