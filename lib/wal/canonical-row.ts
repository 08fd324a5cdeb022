/**
 * Reads a WAL row line written in the exact form the encoder writes
 * (`lines-v1.ts`) straight from its UTF-8 bytes into a `WalRow`: no line
 * string, no `JSON.parse`, no intermediate fields object. The hot path of
 * replay and export; the only strings it makes are the key id and the row.
 *
 *   {"t":"r","s":<seq>,"o":<offset>[,"k":<key id>][,"d":1][,"row":<row text>]}
 *   {"t":"r"[,"k":<key id>][,"d":1][,"row":<row text>]}     (v3, `framed`: seq and
 *                                                           offset come from the frame)
 *
 * It takes a line only when every member is in its canonical spelling: the
 * members in that order, no whitespace, `s` and `o` plain integers of at most
 * 15 digits (exact doubles), `k` a JSON number or a string with no escape or
 * control character (in valid UTF-8, which holds no lone surrogate, such a
 * literal is its own `JSON.stringify`), `d` exactly `1`, and the row an
 * object that ends where the line's closing brace begins (`objectEndInBytes`:
 * the row is the last member). Any other line, valid or not, returns
 * undefined and goes through the generic path (`parseRawRecord`, then
 * `JSON.parse`), which judges it exactly as before: so for every line this
 * reader takes, it returns what `parseRow(parseRawRecord(text))` would. The
 * row's meaning is still checked by `WalChecker` (a delete has a key and no
 * row, a put an object row, seqs and offsets in order).
 */
import { objectEndInBytes } from '../rows/row-line.js';
import type { WalRow } from './format.js';

/** More digits than this may not be exact in a double; such lines take the generic path. */
const MAX_COUNT_DIGITS = 15;

/**
 * The `text` of a row read with `withText` false: the row's bytes were
 * checked to be one JSON object ending where the line does, and not copied.
 * Never a row's real text (a row object always has its braces and this is
 * the one instance), so a reader that sees it knows it asked for no text.
 */
export const ROW_TEXT_NOT_READ = '{}';

/**
 * A row for `readCanonicalRow` to fill instead of allocating one: every
 * member present (absent ones undefined), so refilling it keeps its shape.
 */
export function reusableRow(): WalRow {
  return {
    seq: 0,
    offset: 0,
    key: undefined,
    delete: undefined,
    text: undefined,
    ingestedAtMs: undefined,
  };
}

/**
 * The row on the line `bytes[start, end)` (valid UTF-8, without its `\n`;
 * `ascii` when it is all ASCII), when it is in canonical form; undefined to
 * let the generic path read it. A `framed` row (v3) has no seq or offset:
 * they come back as 0, for `BatchFrames.place` to set. With `into`
 * (`reusableRow`) the row is written there instead of a new object: for a
 * reader that keeps no row past its handling.
 */
export function readCanonicalRow(
  bytes: Buffer,
  start: number,
  end: number,
  ascii: boolean,
  framed = false,
  withText = true,
  into?: WalRow,
): WalRow | undefined {
  // Every position is a local and every pattern is compared byte by byte in
  // line: this runs once per row replayed, exported or tailed. A pattern never
  // holds `\n`, so a match cannot run past the line into the next one.
  if (!isRowTag(bytes, start)) return undefined;
  let at = start + ROW_TAG_BYTES;
  let seq = 0;
  let offset = 0;
  if (!framed) {
    // ,"s":<count>,"o":<count>
    if (!isMember(bytes, at, 0x73)) return undefined;
    const seqEnd = countEnd(bytes, at + MEMBER_BYTES);
    if (seqEnd < 0 || !isMember(bytes, seqEnd, 0x6f)) return undefined;
    const offsetEnd = countEnd(bytes, seqEnd + MEMBER_BYTES);
    if (offsetEnd < 0) return undefined;
    seq = countValue(bytes, at + MEMBER_BYTES, seqEnd);
    offset = countValue(bytes, seqEnd + MEMBER_BYTES, offsetEnd);
    at = offsetEnd;
  }
  let keyStart = -1;
  if (isMember(bytes, at, 0x6b)) {
    // ,"k":<plain string or number>
    keyStart = at + MEMBER_BYTES;
    at =
      bytes[keyStart] === 0x22 ? plainStringEnd(bytes, keyStart, end) : numberEnd(bytes, keyStart);
    if (at < 0) return undefined;
  }
  const keyEnd = at;
  let isDelete = false;
  if (isMember(bytes, at, 0x64) && bytes[at + MEMBER_BYTES] === 0x31) {
    // ,"d":1
    at += MEMBER_BYTES + 1;
    isDelete = true;
  }
  const last = end - 1;
  if (last <= start || bytes[last] !== 0x7d) return undefined;
  let rowStart = -1;
  if (at !== last) {
    // ,"row":<object>, ending where the line's closing brace begins
    if (!isRowMember(bytes, at)) return undefined;
    rowStart = at + ROW_MEMBER_BYTES;
    if (objectEndInBytes(bytes, rowStart, last) !== last) return undefined;
  }
  // The line is canonical: only now are strings made.
  const key = keyStart === -1 ? undefined : decode(bytes, ascii, keyStart, keyEnd);
  const text =
    rowStart === -1
      ? undefined
      : withText
        ? decode(bytes, ascii, rowStart, last)
        : ROW_TEXT_NOT_READ;
  if (into !== undefined) {
    into.seq = seq;
    into.offset = offset;
    into.key = key;
    into.delete = isDelete ? true : undefined;
    into.text = text;
    into.ingestedAtMs = undefined;
    return into;
  }
  // Each row made whole, in one of the shapes the encoder writes: members added
  // one by one would move them out of the object into a second allocation.
  if (!isDelete && text !== undefined) {
    return key === undefined ? { seq, offset, text } : { seq, offset, key, text };
  }
  const row: WalRow = { seq, offset };
  if (key !== undefined) row.key = key;
  if (isDelete) row.delete = true;
  if (text !== undefined) row.text = text;
  return row;
}

/** The slicing methods every Node `Buffer` has, which `toString(encoding, start, end)` calls after checking its arguments. */
interface BufferSlices {
  latin1Slice(start: number, end: number): string;
  utf8Slice(start: number, end: number): string;
}

/**
 * `bytes.toString(ascii ? 'latin1' : 'utf8', from, to)` for a span known to
 * lie within `bytes` and, unless ASCII, to be valid UTF-8: the slice itself,
 * without `toString`'s encoding lookup and bounds checks, which cost about as
 * much as the copy for a row's few hundred bytes (latin1 is the cheapest
 * exact decode of ASCII).
 */
function decode(bytes: Buffer, ascii: boolean, from: number, to: number): string {
  const slices = bytes as unknown as BufferSlices;
  return ascii ? slices.latin1Slice(from, to) : slices.utf8Slice(from, to);
}

/** `{"t":"r"` (8 bytes). */
const ROW_TAG_BYTES = 8;

function isRowTag(bytes: Buffer, i: number): boolean {
  return (
    bytes[i] === 0x7b &&
    bytes[i + 1] === 0x22 &&
    bytes[i + 2] === 0x74 &&
    bytes[i + 3] === 0x22 &&
    bytes[i + 4] === 0x3a &&
    bytes[i + 5] === 0x22 &&
    bytes[i + 6] === 0x72 &&
    bytes[i + 7] === 0x22
  );
}

/** `,"x":` for a one-letter member name `x` (5 bytes). */
const MEMBER_BYTES = 5;

function isMember(bytes: Buffer, i: number, name: number): boolean {
  return (
    bytes[i] === 0x2c &&
    bytes[i + 1] === 0x22 &&
    bytes[i + 2] === name &&
    bytes[i + 3] === 0x22 &&
    bytes[i + 4] === 0x3a
  );
}

/** `,"row":` (7 bytes). */
const ROW_MEMBER_BYTES = 7;

function isRowMember(bytes: Buffer, i: number): boolean {
  return (
    bytes[i] === 0x2c &&
    bytes[i + 1] === 0x22 &&
    bytes[i + 2] === 0x72 &&
    bytes[i + 3] === 0x6f &&
    bytes[i + 4] === 0x77 &&
    bytes[i + 5] === 0x22 &&
    bytes[i + 6] === 0x3a
  );
}

/** Where a count starting at `i` ends: `0`, or up to 15 digits without a leading zero; -1 when the bytes are not one. */
function countEnd(bytes: Buffer, i: number): number {
  if (bytes[i] === 0x30) return isDigit(bytes[i + 1]!) ? -1 : i + 1;
  const to = digitsFrom(bytes, i);
  return to === i || to - i > MAX_COUNT_DIGITS ? -1 : to;
}

/** The value of the digits `bytes[from, to)` (at most 15: exact in a double). */
function countValue(bytes: Buffer, from: number, to: number): number {
  let value = 0;
  for (let i = from; i < to; i++) value = value * 10 + (bytes[i]! - 0x30);
  return value;
}

/** Where a string literal starting at `i` with no escape and no control character ends (after its quote); -1 otherwise. */
function plainStringEnd(bytes: Buffer, i: number, end: number): number {
  for (let k = i + 1; k < end; k++) {
    const c = bytes[k]!;
    if (c === 0x22) return k + 1;
    if (c === 0x5c || c < 0x20) return -1;
  }
  return -1;
}

/** Where a JSON number (`-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?`) starting at `from` ends; -1 when there is none. */
function numberEnd(bytes: Buffer, from: number): number {
  let i = from;
  if (bytes[i] === 0x2d) i++;
  const c = bytes[i]!;
  if (c === 0x30) i++;
  else if (c >= 0x31 && c <= 0x39) i = digitsFrom(bytes, i + 1);
  else return -1;
  if (bytes[i] === 0x2e) {
    const fraction = i + 1;
    i = digitsFrom(bytes, fraction);
    if (i === fraction) return -1;
  }
  const e = bytes[i];
  if (e === 0x65 || e === 0x45) {
    i++;
    const sign = bytes[i];
    if (sign === 0x2b || sign === 0x2d) i++;
    const exponent = i;
    i = digitsFrom(bytes, exponent);
    if (i === exponent) return -1;
  }
  return i;
}

function digitsFrom(bytes: Buffer, from: number): number {
  let i = from;
  while (isDigit(bytes[i]!)) i++;
  return i;
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}
