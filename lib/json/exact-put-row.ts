/**
 * One put row read exactly, whichever body form carried it: its minified
 * source text, its key (type + exact value) and its delete flag. The body
 * forms (`exact-put-body.ts`, `exact-ndjson-body.ts`) differ only in where a
 * row sits, so each passes a `RowPlace` that names it in error messages:
 * `body.rows[2].id`, `body[2].id`, `body line 3.id`.
 */
import { InvalidInputError } from '../errors.js';
import { canonicalNumber } from './exact-number.js';
import type { ExactDocument, ExactObject, ExactValue } from './exact-tree.js';
import { renderJsonPath } from './json-path.js';

/** The put path's limits and names. */
export interface PutBodyRules {
  maxRows: number;
  /** Deepest nesting in a row; the row object is level 1. */
  maxRowDepth: number;
  /** Longest key value: string length in UTF-16 units, or number text length. */
  maxKeyChars: number;
  /** Longest key field name. */
  maxKeyNameChars: number;
  /** The member that marks a keyed delete (`$delete`). */
  deleteMember: string;
  /** Body members accepted besides `rows` and `key` (the SQS message's `shard`). */
  otherMembers?: readonly string[];
  /** A leading byte order mark; refused unless `ignore`. */
  bom?: 'refuse' | 'ignore';
}

/** A row's key: its JSON type and exact value. `id` is equal for equal keys, only for them. */
type ExactKey =
  | { readonly type: 'string'; readonly value: string; readonly id: string }
  | { readonly type: 'number'; readonly text: string; readonly id: string };

/** One row of the body, ready to buffer. */
export interface ExactPutRow {
  /** The row object's minified source text: exactly what was sent, minus whitespace. */
  readonly text: string;
  readonly key?: ExactKey;
  readonly delete?: true;
}

/** Where a row sits, for error messages: a root and the path below it. */
export interface RowPlace {
  readonly root: string;
  readonly path: readonly (string | number)[];
}

/** Longest echo of a bad value in a message. */
const MAX_ECHO_CHARS = 64;

/** The JSON type of `value` as messages name it. */
export function kindOf(value: ExactValue): string {
  return value.kind === 'raw' ? value.of : value.kind;
}

/** `value`'s minified text, cut to a bounded length for a message. */
export function echo(document: ExactDocument, value: ExactValue): string {
  const text = document.minified(value);
  return text.length > MAX_ECHO_CHARS ? `${text.slice(0, MAX_ECHO_CHARS)}…` : text;
}

/** The key of `value`, or undefined when it cannot be a key. */
function keyOf(value: ExactValue | undefined, maxKeyChars: number): ExactKey | undefined {
  if (value?.kind === 'string' && value.value.length > 0 && value.value.length <= maxKeyChars) {
    return { type: 'string', value: value.value, id: JSON.stringify(value.value) };
  }
  if (value?.kind === 'number' && value.text.length <= maxKeyChars) {
    return { type: 'number', text: value.text, id: canonicalNumber(value.text) };
  }
  return undefined;
}

/**
 * Checks a key field name (the body's `key` member or the `key` query
 * parameter) and returns it; `field` names where it came from.
 */
export function checkKeyName(name: string, field: string, rules: PutBodyRules): string {
  if (name.length === 0 || name.length > rules.maxKeyNameChars || name === rules.deleteMember) {
    throw new InvalidInputError(
      field,
      `expected a field name of 1 to ${rules.maxKeyNameChars} characters other than ${rules.deleteMember}, got ${JSON.stringify(name.slice(0, MAX_ECHO_CHARS))}`,
    );
  }
  return name;
}

/** The refusal of a value that is not a row object. */
export function notAnObject(place: RowPlace, value: ExactValue): InvalidInputError {
  return new InvalidInputError(
    renderJsonPath(place.root, place.path),
    `expected a JSON object, got ${kindOf(value)}`,
  );
}

/** Reads one row object: its text, and with `key` its key and delete flag. */
export function readRow(
  document: ExactDocument,
  row: ExactObject,
  place: RowPlace,
  key: string | undefined,
  rules: PutBodyRules,
): ExactPutRow {
  const text = document.minified(row);
  let deleteValue: ExactValue | undefined;
  let keyValue: ExactValue | undefined;
  for (const [name, value] of row.members) {
    if (name === rules.deleteMember) deleteValue = value;
    if (name === key) keyValue = value;
  }
  if (deleteValue !== undefined) {
    const field = renderJsonPath(place.root, [...place.path, rules.deleteMember]);
    if (deleteValue.kind !== 'boolean' || !deleteValue.value) {
      throw new InvalidInputError(field, 'must be true when present');
    }
    if (key === undefined) {
      throw new InvalidInputError(field, 'deletes need a "key" field');
    }
  }
  if (key === undefined) return { text };
  const exactKey = keyOf(keyValue, rules.maxKeyChars);
  if (exactKey === undefined) {
    throw new InvalidInputError(
      renderJsonPath(place.root, [...place.path, key]),
      `expected a non-empty string or a number of at most ${rules.maxKeyChars} characters, got ${keyValue === undefined ? 'nothing' : echo(document, keyValue)}`,
    );
  }
  return deleteValue === undefined
    ? { text, key: exactKey }
    : { text, key: exactKey, delete: true };
}
