/**
 * Reading a line that carries a row verbatim (`{"t":..,...,"k":<id>,"d":1,
 * "row":<text>}`, `row` always last) without parsing the row: the row's text
 * is a slice of the line. Only the members before it go through
 * `JSON.parse`, and a number key's id is sliced too, so nothing is rounded.
 *
 * Why the slice is exact: the members before `row` are numbers, tags, the
 * delete flag and at most one key, a JSON string or number. Inside a JSON
 * string a quote is always escaped, so the first `,"row":` in the line can
 * only be the `row` member itself; the line ends with the row's closing brace
 * and the line's own.
 */

/** A row line's members, the row as text. */
export interface RowLine {
  /** Members before `row`, parsed (`k` included, as JSON would read it). */
  fields: Record<string, unknown>;
  /** The `k` member's JSON text, when present (the key id, exact for numbers). */
  keyText: string | undefined;
  /** The `row` member's JSON text, when present. */
  rowText: string | undefined;
}

const ROW_MEMBER = ',"row":';
const KEY_MEMBER = ',"k":';

/**
 * Splits `line` into its leading members and its row text. Returns undefined
 * when the line is not shaped like a row line (the caller then reads it with
 * `JSON.parse` and reports what is wrong).
 */
export function readRowLine(line: string): RowLine | undefined {
  const last = line.length - 1;
  if (line.charCodeAt(0) !== 0x7b || line.charCodeAt(last) !== 0x7d) return undefined;
  const at = line.indexOf(ROW_MEMBER);
  const head = at === -1 ? line : `${line.slice(0, at)}}`;
  let fields: unknown;
  try {
    fields = JSON.parse(head);
  } catch {
    return undefined;
  }
  if (typeof fields !== 'object' || fields === null || Array.isArray(fields)) return undefined;
  let rowText: string | undefined;
  if (at !== -1) {
    const rowStart = at + ROW_MEMBER.length;
    if (objectEnd(line, rowStart, last) !== last) return undefined;
    rowText = line.slice(rowStart, last);
  }
  return { fields: fields as Record<string, unknown>, keyText: keyText(head, fields), rowText };
}

/** The `k` member's text in `head`, found after the fact: its value tells its shape. */
function keyText(head: string, fields: object): string | undefined {
  const key = (fields as { k?: unknown }).k;
  if (key === undefined) return undefined;
  // A string key was written by JSON.stringify, so writing it again gives its text back.
  if (typeof key === 'string') return JSON.stringify(key);
  const at = head.indexOf(KEY_MEMBER);
  if (at === -1) return undefined;
  const start = at + KEY_MEMBER.length;
  let end = start;
  while (end < head.length && head[end] !== ',' && head[end] !== '}') end++;
  return head.slice(start, end);
}

/**
 * Runs of JSON text with no brace or bracket outside a string: other
 * characters, and whole strings (an escape takes the character after its
 * backslash, whatever it is). Sticky: it matches from `lastIndex`, possibly
 * nothing, and never fails, so it never backtracks.
 */
const NOT_A_BRACKET = /(?:[^"{}[\]]+|"(?:[^"\\]|\\[\s\S])*")*/y;

/**
 * Where the object that starts at `from` in `text` ends (the index after its
 * closing brace), looking no further than `to` (default: the end), or -1
 * when no balanced object starts there. Strings are skipped whole (escapes
 * honoured), so braces inside them do not count. This is what makes "the row
 * is the last member" checkable without parsing it: anything after the row
 * object's brace is another member. The runs between brackets are skipped by
 * one sticky regular expression (native code) rather than a character loop:
 * most of a row is strings and scalars, and this scan runs on every row read.
 */
export function objectEnd(text: string, from = 0, to = text.length): number {
  if (text.charCodeAt(from) !== 0x7b) return -1;
  let depth = 0;
  let i = from;
  while (i < to) {
    const c = text.charCodeAt(i);
    if (c === 0x7b || c === 0x5b) depth++;
    else if (c === 0x7d || c === 0x5d) {
      if (--depth === 0) return i + 1;
    } else if (c === 0x22) {
      return -1; // a string that never closes
    }
    NOT_A_BRACKET.lastIndex = i + 1;
    NOT_A_BRACKET.test(text);
    i = NOT_A_BRACKET.lastIndex;
  }
  return -1;
}

/**
 * `objectEnd` over UTF-8 bytes: where the object that starts at `from` ends
 * (the index after its closing brace), looking no further than `to`, or -1.
 * The same answer as `objectEnd` on the decoded text, in bytes: every
 * character it looks at (braces, brackets, quotes, backslashes) is ASCII,
 * and no byte of a multi-byte UTF-8 sequence is below 0x80, so none is
 * mistaken for one.
 */
export function objectEndInBytes(bytes: Uint8Array, from: number, to: number): number {
  if (bytes[from] !== 0x7b) return -1;
  let depth = 0;
  for (let i = from; i < to; i++) {
    const c = bytes[i]!;
    if (c === 0x22) {
      // Skip the string: to the next quote not escaped by an odd run of backslashes.
      for (i++; i < to; i++) {
        const d = bytes[i]!;
        if (d === 0x5c) i++;
        else if (d === 0x22) break;
      }
    } else if (c === 0x7b || c === 0x5b) {
      depth++;
    } else if (c === 0x7d || c === 0x5d) {
      if (--depth === 0) return i + 1;
    }
  }
  return -1;
}
