/**
 * The one line shape of a segment: `{"seq":S,"offset":O,"row":<row text>}`,
 * members in that order, the row spliced in verbatim (`lib/rows`) and read
 * back by slicing, never by `JSON.parse` of the row. It is also the shape of
 * a keyless line of `shardwal dump`, so a dump can copy it.
 */
import { objectEnd, readRowLine } from '../rows/row-line.js';
import { isCount, isObjectText, show } from '../wal/wal-check.js';
import type { SegmentRow } from './format.js';

/** The line of a keyless row, without its `\n`. */
export function segmentLine(seq: number, offset: number, text: string): string {
  return `{"seq":${seq},"offset":${offset},"row":${text}}`;
}

const SEQ_MEMBER = Buffer.from('{"seq":');
const OFFSET_MEMBER = Buffer.from(',"offset":');
const ROW_MEMBER = Buffer.from(',"row":');
const CLOSE = 0x7d;

/** Most bytes `writeSegmentLine` writes besides the row's: two counts of at most 16 digits, and the members. */
export const SEGMENT_LINE_FRAME_BYTES =
  SEQ_MEMBER.length + OFFSET_MEMBER.length + ROW_MEMBER.length + 2 * 16 + 1;

/**
 * Writes the UTF-8 bytes of `segmentLine(seq, offset, text)` into `buffer`
 * from `at` and returns where they end, without making the line's string
 * (an export writes one per keyless row). `seq` and `offset` must be
 * non-negative safe integers (what a WAL row carries), and the buffer must
 * hold `SEGMENT_LINE_FRAME_BYTES` plus three bytes per UTF-16 unit of `text`.
 */
export function writeSegmentLine(
  buffer: Buffer,
  at: number,
  seq: number,
  offset: number,
  text: string,
): number {
  let end = copyAscii(buffer, at, SEQ_MEMBER);
  end = writeCount(buffer, end, seq);
  end = copyAscii(buffer, end, OFFSET_MEMBER);
  end = writeCount(buffer, end, offset);
  end = copyAscii(buffer, end, ROW_MEMBER);
  end += buffer.write(text, end, 'utf8');
  buffer[end] = CLOSE;
  return end + 1;
}

function copyAscii(buffer: Buffer, at: number, bytes: Buffer): number {
  for (let i = 0; i < bytes.length; i++) buffer[at + i] = bytes[i]!;
  return at + bytes.length;
}

/** The decimal digits of `n` (a non-negative safe integer, so `%` and the division are exact). */
function writeCount(buffer: Buffer, at: number, n: number): number {
  let end = at + 1;
  for (let rest = n; rest >= 10; rest = Math.floor(rest / 10)) end += 1;
  let rest = n;
  for (let i = end - 1; i >= at; i--) {
    buffer[i] = 0x30 + (rest % 10);
    rest = Math.floor(rest / 10);
  }
  return end;
}

/**
 * Reads a segment line; `fail` names what is wrong. A line in the writer's
 * exact form is read by `canonicalSegmentLine`; any other goes through the
 * generic parse, which judges it as before.
 */
export function parseSegmentLine(text: string, fail: (problem: string) => never): SegmentRow {
  return canonicalSegmentLine(text) ?? parseAnySegmentLine(text, fail);
}

const SEQ_PREFIX = '{"seq":';
const OFFSET_INFIX = ',"offset":';
const ROW_INFIX = ',"row":';
/** More digits than this may not be exact in a double; such lines take the generic parse. */
const MAX_COUNT_DIGITS = 15;

/**
 * The row of `text` when it is exactly `segmentLine(seq, offset, row)`: the
 * members in that order, `seq` a positive and `offset` a non-negative integer
 * of at most 15 digits with no leading zero, and the row one JSON object
 * ending where the line's closing brace begins (`objectEnd`). Such a line is
 * one the generic parse accepts with this same row (its canonical-form check
 * rebuilds the same text), so no `JSON.parse` and no rebuilt line are needed;
 * undefined for any other line. Exported for its equivalence test.
 */
export function canonicalSegmentLine(text: string): SegmentRow | undefined {
  if (!text.startsWith(SEQ_PREFIX)) return undefined;
  const seqEnd = countEnd(text, SEQ_PREFIX.length);
  if (seqEnd < 0 || !text.startsWith(OFFSET_INFIX, seqEnd)) return undefined;
  const offsetStart = seqEnd + OFFSET_INFIX.length;
  const offsetEnd = countEnd(text, offsetStart);
  if (offsetEnd < 0 || !text.startsWith(ROW_INFIX, offsetEnd)) return undefined;
  const seq = Number(text.slice(SEQ_PREFIX.length, seqEnd));
  if (seq < 1) return undefined;
  const rowStart = offsetEnd + ROW_INFIX.length;
  const last = text.length - 1;
  if (text.charCodeAt(last) !== CLOSE || objectEnd(text, rowStart, last) !== last) return undefined;
  return {
    seq,
    offset: Number(text.slice(offsetStart, offsetEnd)),
    text: text.slice(rowStart, last),
  };
}

/** Where the count at `from` ends: `0`, or at most 15 digits without a leading zero; -1 otherwise. */
function countEnd(text: string, from: number): number {
  let i = from;
  while (i < text.length && isDigit(text.charCodeAt(i))) i++;
  const digits = i - from;
  if (digits === 0 || digits > MAX_COUNT_DIGITS) return -1;
  return digits > 1 && text.charCodeAt(from) === 0x30 ? -1 : i;
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

/**
 * Reads any segment line the generic way: `JSON.parse` of its members, then
 * its canonical form (exported as the oracle of `canonicalSegmentLine`'s test).
 */
export function parseAnySegmentLine(text: string, fail: (problem: string) => never): SegmentRow {
  const line = readRowLine(text);
  if (!line || line.rowText === undefined) return fail(`not a segment line: ${show(text)}`);
  const { seq, offset, ...rest } = line.fields as { seq?: unknown; offset?: unknown };
  const extra = Object.keys(rest);
  if (extra.length > 0) fail(`unknown fields [${extra.join(', ')}]`);
  if (!isCount(seq) || seq < 1) fail(`seq must be a positive integer, got ${show(seq)}`);
  if (!isCount(offset)) fail(`offset must be a non-negative integer, got ${show(offset)}`);
  if (!isObjectText(line.rowText)) fail(`row must be a JSON object, got ${show(line.rowText)}`);
  // The exact shape, so a line a stock tool reads is the line this writer writes.
  if (segmentLine(seq, offset, line.rowText) !== text) fail(`not in canonical form: ${show(text)}`);
  return { seq, offset, text: line.rowText };
}
