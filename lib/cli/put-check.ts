/**
 * The check `shardwal put` runs on every line before it sends any: the
 * service's own. Each line is framed as the put body it will travel in
 * (`{"rows":[<line>],"key":"<field>"}`) and read by `parsePutText`, the very
 * function the put path runs on every request (the exact scanner of
 * `lib/json`, its depth and key limits), so a line passes here exactly when
 * the service would take it: duplicate members, lone surrogates, numbers
 * and strings are judged the same way. A refusal names the line's column
 * (1-based, in UTF-16 code units, as editors count) and the field.
 *
 * Besides the body rules, a line must fit one batch (`maxRowBytes`: the
 * batch bytes less the frame around the rows).
 */
import { InvalidInputError } from '../errors.js';
import { InvalidJsonError } from '../json/errors.js';
import { findInvalidUtf8 } from '../json/utf8.js';
import { parsePutText } from '../put/schema.js';
import { UsageError } from './errors.js';

/** What a line must satisfy. */
export interface LineRules {
  keyField: string | undefined;
  /** The most bytes of JSON one row may have (a batch's bytes less its frame). */
  maxRowBytes: number;
}

/** A line that can be sent, or why it cannot. */
export type LineCheck =
  | { ok: true; rowText: string; rowBytes: number }
  | { ok: false; column: number; problem: string };

const BODY_START = '{"rows":[';

function bodyEnd(keyField: string | undefined): string {
  return keyField === undefined ? ']}' : `],"key":${JSON.stringify(keyField)}}`;
}

/** The row-relative name of a body field: `body.rows[0].id` → `id`, the row itself → `row`. */
function rowField(field: string): string {
  const prefix = 'body.rows[0]';
  if (field.startsWith(`${prefix}.`)) return field.slice(prefix.length + 1);
  if (field.startsWith(`${prefix}[`)) return `row${field.slice(prefix.length)}`;
  return 'row';
}

/** The row text `shardwal put` sends for a line: the line without surrounding whitespace. */
function rowTextOf(text: string): string {
  return text.trim();
}

/**
 * Refuses a key field the service would refuse (`--key-field`), before any
 * line is read: otherwise every line would be refused for it.
 */
export function assertKeyField(keyField: string | undefined): void {
  if (keyField === undefined) return;
  try {
    parsePutText(`${BODY_START}{${JSON.stringify(keyField)}:1}${bodyEnd(keyField)}`, 1);
  } catch (error) {
    if (error instanceof InvalidInputError && error.field === 'body.key') {
      throw new UsageError(`--key-field: ${error.message.slice('body.key: '.length)}`);
    }
    throw error;
  }
}

/** Checks one line's bytes (`text` undefined: not UTF-8, `bytes` say where). */
export function checkLine(
  text: string | undefined,
  bytes: Uint8Array,
  rules: LineRules,
): LineCheck {
  if (text === undefined) {
    const bad = findInvalidUtf8(bytes);
    return {
      ok: false,
      column: (bad?.offset ?? 0) + 1,
      problem: `not UTF-8: ${bad?.detail ?? 'ill-formed bytes'} (column counts bytes)`,
    };
  }
  const rowText = rowTextOf(text);
  const lead = text.length - text.trimStart().length;
  const rowBytes = Buffer.byteLength(rowText);
  if (rowBytes > rules.maxRowBytes) {
    return {
      ok: false,
      column: lead + 1,
      problem: `${rowBytes} bytes of JSON, more than a batch of --batch-bytes holds (${rules.maxRowBytes})`,
    };
  }
  const body = `${BODY_START}${rowText}${bodyEnd(rules.keyField)}`;
  let rows: ReturnType<typeof parsePutText>['rows'];
  try {
    rows = parsePutText(body, Number.MAX_SAFE_INTEGER).rows;
  } catch (error) {
    if (!(error instanceof InvalidInputError)) throw error;
    const detail = error.message.slice(error.field.length + 2);
    if (error instanceof InvalidJsonError) {
      const inRow = Math.min(Math.max(error.offset - BODY_START.length, 0), rowText.length);
      // Past the row is the frame around it: what the line lacks is its end.
      const what =
        error.offset - BODY_START.length >= rowText.length
          ? 'the line ends before the JSON does'
          : detail.replace(/ at char \d+$/, '');
      return { ok: false, column: lead + inRow + 1, problem: `${rowField(error.field)}: ${what}` };
    }
    const problem = detail.startsWith('deletes need a "key" field')
      ? 'a "$delete" row needs --key-field'
      : `${rowField(error.field)}: ${detail}`;
    return { ok: false, column: lead + 1, problem };
  }
  // One line is one row: a line holding `{...},{...}` would frame as two.
  if (rows.length !== 1) {
    return {
      ok: false,
      column: lead + 1,
      problem: `expected one JSON object per line, got ${rows.length}`,
    };
  }
  return { ok: true, rowText, rowBytes };
}
