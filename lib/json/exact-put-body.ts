/**
 * The put body read exactly: `{"rows": [{...}, ...], "key"?: "<field>"}`.
 * One pass of `parseExact` builds only the body, its `rows` array and each
 * row's top-level members (deeper values stay raw text); each row comes out
 * as its minified source text, its key (type + exact value) and its delete
 * flag. The rules are the put path's (`lib/put/schema.ts`); its limits are
 * passed in, so this module stays below the put path.
 */
import { InvalidInputError } from '../errors.js';
import { InvalidJsonError, JsonProblem } from './errors.js';
import { canonicalNumber } from './exact-number.js';
import { type BomPolicy, parseExact } from './exact-parse.js';
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
  bom?: BomPolicy;
}

/** A row's key: its JSON type and exact value. `id` is equal for equal keys, only for them. */
export type ExactKey =
  | { readonly type: 'string'; readonly value: string; readonly id: string }
  | { readonly type: 'number'; readonly text: string; readonly id: string };

/** One row of the body, ready to buffer. */
export interface ExactPutRow {
  /** The row object's minified source text: exactly what was sent, minus whitespace. */
  readonly text: string;
  readonly key?: ExactKey;
  readonly delete?: true;
}

/** A validated put body. */
export interface ExactPutBody {
  /** The key field name, when the rows are keyed. */
  readonly key?: string;
  readonly rows: readonly ExactPutRow[];
  /** Values of the accepted `otherMembers` that were present. */
  readonly others: ReadonlyMap<string, ExactValue>;
  /** The parsed body, to read `others` values as text. */
  readonly document: ExactDocument;
}

/** Levels built: the body object, `rows`, each row. */
const BUILT_LEVELS = 3;
const ONLY_WHITESPACE = /^[ \t\n\r]*$/;
/** Longest echo of a bad value in a message. */
const MAX_ECHO_CHARS = 64;

function kindOf(value: ExactValue): string {
  return value.kind === 'raw' ? value.of : value.kind;
}

function echo(document: ExactDocument, value: ExactValue): string {
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

function parseBody(text: string, rules: PutBodyRules): ExactDocument {
  try {
    return parseExact(text, {
      maxDepth: rules.maxRowDepth + BUILT_LEVELS - 1,
      materializeDepth: BUILT_LEVELS,
      bom: rules.bom,
    });
  } catch (error) {
    // Depth is the row's business: name the row and the row limit, not the body's.
    if (
      error instanceof InvalidJsonError &&
      error.problem === JsonProblem.tooDeep &&
      error.path[0] === 'rows' &&
      typeof error.path[1] === 'number'
    ) {
      const problem = `nested deeper than ${rules.maxRowDepth} levels`;
      throw new InvalidJsonError(
        'body',
        error.path.slice(0, 2),
        error.problem,
        problem,
        error.offset,
      );
    }
    throw error;
  }
}

function readRow(
  document: ExactDocument,
  row: ExactObject,
  index: number,
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
    const field = renderJsonPath('body', ['rows', index, rules.deleteMember]);
    if (deleteValue.kind !== 'boolean' || !deleteValue.value) {
      throw new InvalidInputError(field, 'must be true when present');
    }
    if (key === undefined) throw new InvalidInputError(field, 'deletes need a "key" field');
  }
  if (key === undefined) return { text };
  const exactKey = keyOf(keyValue, rules.maxKeyChars);
  if (exactKey === undefined) {
    throw new InvalidInputError(
      renderJsonPath('body', ['rows', index, key]),
      `expected a non-empty string or a number of at most ${rules.maxKeyChars} characters, got ${keyValue === undefined ? 'nothing' : echo(document, keyValue)}`,
    );
  }
  return deleteValue === undefined
    ? { text, key: exactKey }
    : { text, key: exactKey, delete: true };
}

/**
 * Validates a put body and returns its rows exactly as sent. Throws
 * InvalidJsonError (bad JSON: path, problem, char offset) or
 * InvalidInputError naming the field (`body.rows[2].id: ...`).
 */
export function scanPutBody(text: string, rules: PutBodyRules): ExactPutBody {
  if (ONLY_WHITESPACE.test(text))
    throw new InvalidInputError('body', 'expected a JSON object, got an empty body');
  const document = parseBody(text, rules);
  const body = document.root;
  if (body.kind !== 'object') {
    throw new InvalidInputError('body', `expected a JSON object, got ${kindOf(body)}`);
  }
  let rows: ExactValue | undefined;
  let keyValue: ExactValue | undefined;
  const others = new Map<string, ExactValue>();
  for (const [name, value] of body.members) {
    if (name === 'rows') rows = value;
    else if (name === 'key') keyValue = value;
    else if (rules.otherMembers?.includes(name)) others.set(name, value);
    else throw new InvalidInputError('body', `unknown member ${JSON.stringify(name)}`);
  }
  let key: string | undefined;
  if (keyValue !== undefined) {
    if (
      keyValue.kind !== 'string' ||
      keyValue.value.length === 0 ||
      keyValue.value.length > rules.maxKeyNameChars ||
      keyValue.value === rules.deleteMember
    ) {
      throw new InvalidInputError(
        'body.key',
        `expected a field name of 1 to ${rules.maxKeyNameChars} characters other than ${rules.deleteMember}, got ${echo(document, keyValue)}`,
      );
    }
    key = keyValue.value;
  }
  if (rows === undefined)
    throw new InvalidInputError('body.rows', 'expected an array of rows, got nothing');
  if (rows.kind !== 'array') {
    throw new InvalidInputError('body.rows', `expected an array of rows, got ${kindOf(rows)}`);
  }
  const count = rows.items.length;
  if (count === 0 || count > rules.maxRows) {
    throw new InvalidInputError('body.rows', `expected 1 to ${rules.maxRows} rows, got ${count}`);
  }
  const out: ExactPutRow[] = new Array(count);
  for (let index = 0; index < count; index++) {
    const row = rows.items[index]!;
    if (row.kind !== 'object') {
      throw new InvalidInputError(
        `body.rows[${index}]`,
        `expected a JSON object, got ${kindOf(row)}`,
      );
    }
    out[index] = readRow(document, row, index, key, rules);
  }
  return { key, rows: out, others, document };
}
