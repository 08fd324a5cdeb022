/**
 * The newline-delimited form of a put body (NDJSON / JSON Lines): one row
 * object per line, read exactly like a row of the object form.
 *
 * 1. Lines end at LF; a CR before it belongs to the line ending. A raw LF
 *    cannot occur inside a JSON string (control characters must be
 *    escaped), so every LF ends a row.
 * 2. Lines of only whitespace are skipped; every other line must hold
 *    exactly one JSON object (`{"a":1} {"b":2}` on one line is refused:
 *    two rows on one line is not JSON Lines).
 * 3. Errors name the line, 1-based as editors count, and the char offset in
 *    it: `body line 3.id: ...`, `body line 3: unexpected ',' at char 7`.
 * 4. A byte order mark is skipped at the start of the body only (when the
 *    rules say so), as in the other forms.
 * 5. The row limit stops the scan at the first row past it.
 */
import { InvalidInputError } from '../errors.js';
import { InvalidJsonError, JsonProblem } from './errors.js';
import { BomPolicy, parseExact } from './exact-parse.js';
import { type ExactPutRow, notAnObject, type PutBodyRules, readRow } from './exact-put-row.js';

const CR = 0x0d;

/** True when `text[start, end)` is only JSON whitespace. */
function blank(text: string, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x09 && c !== CR) return false;
  }
  return true;
}

/** Reads one line as a row; `root` names it in errors (`body line 3`). */
function readLine(
  line: string,
  root: string,
  key: string | undefined,
  rules: PutBodyRules,
  bom: BomPolicy,
): ExactPutRow {
  let document: ReturnType<typeof parseExact>;
  try {
    document = parseExact(line, { maxDepth: rules.maxRowDepth, materializeDepth: 1, root, bom });
  } catch (error) {
    if (error instanceof InvalidJsonError && error.problem === JsonProblem.tooDeep) {
      throw new InvalidJsonError(
        root,
        [],
        error.problem,
        `nested deeper than ${rules.maxRowDepth} levels`,
        error.offset,
      );
    }
    throw error;
  }
  const place = { root, path: [] };
  if (document.root.kind !== 'object') throw notAnObject(place, document.root);
  return readRow(document, document.root, place, key, rules);
}

/** Validates an NDJSON put body and returns its rows exactly as sent. */
export function scanNdjsonBody(
  text: string,
  rules: PutBodyRules,
  key: string | undefined,
): ExactPutRow[] {
  const rows: ExactPutRow[] = [];
  let start = 0;
  let lineNumber = 0;
  while (start < text.length) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    lineNumber++;
    let lineEnd = end;
    if (lineEnd > start && text.charCodeAt(lineEnd - 1) === CR) lineEnd--;
    const bom = start === 0 && rules.bom === BomPolicy.ignore ? BomPolicy.ignore : BomPolicy.refuse;
    const from = bom === BomPolicy.ignore && text.charCodeAt(0) === 0xfeff ? 1 : start;
    if (!blank(text, from, lineEnd)) {
      if (rows.length === rules.maxRows) {
        throw new InvalidInputError(
          'body',
          `expected 1 to ${rules.maxRows} rows, got more (line ${lineNumber} is row ${rules.maxRows + 1})`,
        );
      }
      rows.push(readLine(text.slice(start, lineEnd), `body line ${lineNumber}`, key, rules, bom));
    }
    start = end + 1;
    if (end === text.length) break;
  }
  if (rows.length === 0) {
    throw new InvalidInputError(
      'body',
      `expected 1 to ${rules.maxRows} rows, one JSON object per line, got none`,
    );
  }
  return rows;
}
