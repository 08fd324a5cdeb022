/**
 * The put request body: `{"rows": [{...}, ...], "key"?: "<field>"}`, or
 * (HTTP, `BodyShape`) a bare array of rows or one row per line, read
 * exactly (`lib/json`): every row keeps its text as sent, and is refused,
 * naming the field, when it cannot be kept exactly (duplicate members, lone
 * surrogates, nesting too deep, bad JSON). With `key`, every row is keyed by
 * that field's value (a JSON string or number, compared by type and exact
 * value), and a row `{"<key>": ..., "$delete": true}` deletes the key.
 * Without `key`, rows are plain appends and `$delete` is refused.
 */
import { InvalidInputError } from '../errors.js';
import { type BodyShape, scanPutBody } from '../json/exact-put-body.js';
import type { ExactValue } from '../json/exact-tree.js';
import type { Row } from '../rows/row.js';

/** Member of a row that marks a keyed delete. */
export const DELETE_MEMBER = '$delete';
/** Longest key value accepted: a string's length, or a number's text length. */
export const MAX_KEY_CHARS = 1024;
/** Longest key field name accepted. */
const MAX_KEY_NAME_CHARS = 256;
/**
 * Deepest nesting accepted in a row (the row object is level 1). The scanner
 * is iterative, but stock JSON readers downstream (`jq`, DuckDB) recurse, so
 * rows stay readable by them.
 */
export const MAX_ROW_DEPTH = 100;

/** A validated put body, as batch rows. */
export interface ParsedPut {
  rows: Row[];
  /** Body members the caller allowed besides `rows` and `key` (SQS: `shard`). */
  others: ReadonlyMap<string, ExactValue>;
}

/**
 * Validates a put body's text and returns its rows exactly as sent. A
 * leading byte order mark is skipped (RFC 8259 lets a parser ignore it; it is
 * never part of a value). Throws InvalidInputError naming the first bad field.
 */
export function parsePutText(
  text: string,
  maxRows: number,
  otherMembers: readonly string[] = [],
  shape: BodyShape = {},
): ParsedPut {
  const body = scanPutBody(
    text,
    {
      maxRows,
      maxRowDepth: MAX_ROW_DEPTH,
      maxKeyChars: MAX_KEY_CHARS,
      maxKeyNameChars: MAX_KEY_NAME_CHARS,
      deleteMember: DELETE_MEMBER,
      otherMembers,
      bom: 'ignore',
    },
    shape,
  );
  const rows = body.rows.map((row): Row => {
    if (row.key === undefined) return { text: row.text };
    if (row.delete) return { key: row.key.id, delete: true };
    return { key: row.key.id, text: row.text };
  });
  return { rows, others: body.others };
}

/**
 * `parsePutText` for an in-process producer that holds the body as
 * JavaScript values (benchmarks, tests, an embedding application): it is
 * serialized with `JSON.stringify` first, which is exact for every value
 * JavaScript can hold.
 */
export function parsePutValue(body: unknown, maxRows: number): ParsedPut {
  return parsePutText(JSON.stringify(body) ?? '', maxRows);
}

/** Parses raw body text as plain JSON (control messages, not rows); InvalidInputError when malformed. */
export function parseJsonBody(text: string | undefined): unknown {
  if (text === undefined || text.trim() === '')
    throw new InvalidInputError('body', 'expected a JSON object, got an empty body');
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new InvalidInputError('body', `not valid JSON: ${(error as Error).message}`);
  }
}
