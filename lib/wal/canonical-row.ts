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

const PREFIX = Buffer.from('{"t":"r"');
const SEQ = Buffer.from(',"s":');
const OFFSET = Buffer.from(',"o":');
const KEY = Buffer.from(',"k":');
const DELETE = Buffer.from(',"d":1');
const ROW = Buffer.from(',"row":');
/** More digits than this may not be exact in a double; such lines take the generic path. */
const MAX_COUNT_DIGITS = 15;

/**
 * The `text` of a row read with `withText` false: the row's bytes were
 * checked to be one JSON object ending where the line does, and not copied.
 * Never a row's real text (a row object always has its braces and this is
 * the one instance), so a reader that sees it knows it asked for no text.
 */
export const ROW_TEXT_NOT_READ = '{}';

/** Where the reader stands in the line (module state: the reader is synchronous and not re-entered). */
let at = 0;

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
  // A pattern never holds `\n`, so a match cannot run past the line into the next one.
  if (!matches(bytes, start, PREFIX)) return undefined;
  at = start + PREFIX.length;
  let seq = 0;
  let offset = 0;
  if (!framed) {
    if (!matches(bytes, at, SEQ)) return undefined;
    at += SEQ.length;
    seq = count(bytes);
    if (seq < 0 || !matches(bytes, at, OFFSET)) return undefined;
    at += OFFSET.length;
    offset = count(bytes);
    if (offset < 0) return undefined;
  }
  let keyStart = -1;
  let keyEnd = -1;
  if (matches(bytes, at, KEY)) {
    at += KEY.length;
    keyStart = at;
    if (!(bytes[at] === 0x22 ? plainString(bytes, end) : number(bytes))) return undefined;
    keyEnd = at;
  }
  let isDelete = false;
  if (matches(bytes, at, DELETE)) {
    at += DELETE.length;
    isDelete = true;
  }
  const last = end - 1;
  if (last <= start || bytes[last] !== 0x7d) return undefined;
  let rowStart = -1;
  if (at !== last) {
    if (!matches(bytes, at, ROW)) return undefined;
    rowStart = at + ROW.length;
    if (objectEndInBytes(bytes, rowStart, last) !== last) return undefined;
  }
  // The line is canonical: only now are strings made.
  const encoding = ascii ? 'latin1' : 'utf8';
  const key = keyStart === -1 ? undefined : bytes.toString(encoding, keyStart, keyEnd);
  const text =
    rowStart === -1
      ? undefined
      : withText
        ? bytes.toString(encoding, rowStart, last)
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
  const row: WalRow = { seq, offset };
  if (key !== undefined) row.key = key;
  if (isDelete) row.delete = true;
  if (text !== undefined) row.text = text;
  return row;
}

function matches(bytes: Buffer, from: number, pattern: Buffer): boolean {
  for (let k = 0; k < pattern.length; k++) {
    if (bytes[from + k] !== pattern[k]) return false;
  }
  return true;
}

/** A count: `0`, or up to 15 digits without a leading zero; -1 when the bytes are not one. */
function count(bytes: Buffer): number {
  let c = bytes[at]!;
  if (c === 0x30) {
    at += 1;
    return isDigit(bytes[at]!) ? -1 : 0;
  }
  const from = at;
  let value = 0;
  while (isDigit(c)) {
    value = value * 10 + (c - 0x30);
    c = bytes[++at]!;
  }
  const digits = at - from;
  return digits === 0 || digits > MAX_COUNT_DIGITS ? -1 : value;
}

/** A string literal with no escape and no control character; moves past its closing quote. */
function plainString(bytes: Buffer, end: number): boolean {
  for (let i = at + 1; i < end; i++) {
    const c = bytes[i]!;
    if (c === 0x22) {
      at = i + 1;
      return true;
    }
    if (c === 0x5c || c < 0x20) return false;
  }
  return false;
}

/** A JSON number (`-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?`); moves past it. */
function number(bytes: Buffer): boolean {
  let i = at;
  if (bytes[i] === 0x2d) i++;
  const c = bytes[i]!;
  if (c === 0x30) i++;
  else if (c >= 0x31 && c <= 0x39) i = digitsFrom(bytes, i + 1);
  else return false;
  if (bytes[i] === 0x2e) {
    const from = i + 1;
    i = digitsFrom(bytes, from);
    if (i === from) return false;
  }
  const e = bytes[i];
  if (e === 0x65 || e === 0x45) {
    i++;
    const sign = bytes[i];
    if (sign === 0x2b || sign === 0x2d) i++;
    const from = i;
    i = digitsFrom(bytes, from);
    if (i === from) return false;
  }
  at = i;
  return true;
}

function digitsFrom(bytes: Buffer, from: number): number {
  let i = from;
  while (isDigit(bytes[i]!)) i++;
  return i;
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}
