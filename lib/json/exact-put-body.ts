/**
 * The put body read exactly, in one of three forms (`BodyForm`):
 *
 * - `object`: `{"rows": [{...}, ...], "key"?: "<field>"}`; the member that
 *   holds the rows may be renamed (`rowsMember`, `?rows=logs`) for a shipper
 *   that wraps its batch as `{"logs": [...]}`.
 * - `array`: a bare JSON array of row objects, `[{...}, ...]`.
 * - `ndjson`: one row object per line (`exact-ndjson-body.ts`).
 *
 * One pass of `parseExact` builds only the body, its rows array and each
 * row's top-level members (deeper values stay raw text); each row comes out
 * as its minified source text, its key (type + exact value) and its delete
 * flag (`exact-put-row.ts`). Every form has the same rules and limits, so
 * the same rows give the same stored rows whichever form carried them. The
 * rules are the put path's (`lib/put/schema.ts`); its limits are passed in,
 * so this module stays below the put path.
 */
import { InvalidInputError } from '../errors.js';
import { InvalidJsonError, JsonProblem } from './errors.js';
import { scanNdjsonBody } from './exact-ndjson-body.js';
import { parseExact } from './exact-parse.js';
import {
  checkKeyName,
  type ExactPutRow,
  echo,
  kindOf,
  notAnObject,
  type PutBodyRules,
  readRow,
} from './exact-put-row.js';
import type { ExactDocument, ExactValue } from './exact-tree.js';
import { renderJsonPath } from './json-path.js';

export type { PutBodyRules } from './exact-put-row.js';

/** The body forms a put accepts. */
export const BodyForm = { object: 'object', array: 'array', ndjson: 'ndjson' } as const;
export type BodyForm = (typeof BodyForm)[keyof typeof BodyForm];

/** How to read a body: its form, the member holding the rows, a key field given outside the body. */
export interface BodyShape {
  /** Default `object`. */
  readonly form?: BodyForm;
  /** The object form's rows member; default `rows`. */
  readonly rowsMember?: string;
  /** The key field named outside the body (`?key=`), for every form. */
  readonly key?: string;
  /** Where `key` came from, for messages (default `key`). */
  readonly keyField?: string;
  /** How the caller can rename the rows member (`?rows=<member>`), named when a member is unknown. */
  readonly rowsMemberHint?: string;
}

/** A validated put body. */
export interface ExactPutBody {
  /** The key field name, when the rows are keyed. */
  readonly key?: string;
  readonly rows: readonly ExactPutRow[];
  /** Values of the accepted `otherMembers` that were present (object form). */
  readonly others: ReadonlyMap<string, ExactValue>;
}

/** The default member holding the rows. */
const ROWS = 'rows';
/** Levels built: the body object, its rows array, each row. */
const OBJECT_LEVELS = 3;
/** Levels built: the array, each row. */
const ARRAY_LEVELS = 2;
const ONLY_WHITESPACE = /^\uFEFF?[ \t\n\r]*$/;
const NO_OTHERS: ReadonlyMap<string, ExactValue> = new Map();

function parseBody(text: string, rules: PutBodyRules, levels: number): ExactDocument {
  const rowIndexAt = levels - 2;
  try {
    return parseExact(text, {
      maxDepth: rules.maxRowDepth + levels - 1,
      materializeDepth: levels,
      bom: rules.bom,
    });
  } catch (error) {
    // Depth is the row's business: name the row and the row limit, not the body's.
    if (
      error instanceof InvalidJsonError &&
      error.problem === JsonProblem.tooDeep &&
      typeof error.path[rowIndexAt] === 'number'
    ) {
      const problem = `nested deeper than ${rules.maxRowDepth} levels`;
      throw new InvalidJsonError(
        'body',
        error.path.slice(0, rowIndexAt + 1),
        error.problem,
        problem,
        error.offset,
      );
    }
    throw error;
  }
}

/** Reads the rows of an array value; `path` is where the array sits below `body`. */
function readRows(
  document: ExactDocument,
  rows: ExactValue,
  path: readonly (string | number)[],
  key: string | undefined,
  rules: PutBodyRules,
): ExactPutRow[] {
  const field = renderJsonPath('body', path);
  if (rows.kind !== 'array') {
    throw new InvalidInputError(field, `expected an array of rows, got ${kindOf(rows)}`);
  }
  const count = rows.items.length;
  if (count === 0 || count > rules.maxRows) {
    throw new InvalidInputError(field, `expected 1 to ${rules.maxRows} rows, got ${count}`);
  }
  const out: ExactPutRow[] = new Array(count);
  for (let index = 0; index < count; index++) {
    const row = rows.items[index]!;
    const place = { root: 'body', path: [...path, index] };
    if (row.kind !== 'object') throw notAnObject(place, row);
    out[index] = readRow(document, row, place, key, rules);
  }
  return out;
}

/** The key field: the body's `key` member, the shape's, or both when they agree. */
function keyField(
  document: ExactDocument,
  member: ExactValue | undefined,
  shape: BodyShape,
  rules: PutBodyRules,
): string | undefined {
  let fromBody: string | undefined;
  if (member !== undefined) {
    if (member.kind !== 'string') {
      throw new InvalidInputError(
        'body.key',
        `expected a field name of 1 to ${rules.maxKeyNameChars} characters other than ${rules.deleteMember}, got ${echo(document, member)}`,
      );
    }
    fromBody = checkKeyName(member.value, 'body.key', rules);
  }
  if (shape.key !== undefined && fromBody !== undefined && shape.key !== fromBody) {
    throw new InvalidInputError(
      shape.keyField ?? 'key',
      `names ${JSON.stringify(shape.key)} but body.key names ${JSON.stringify(fromBody)}`,
    );
  }
  return fromBody ?? shape.key;
}

function scanObjectBody(text: string, rules: PutBodyRules, shape: BodyShape): ExactPutBody {
  const document = parseBody(text, rules, OBJECT_LEVELS);
  const body = document.root;
  if (body.kind !== 'object') {
    throw new InvalidInputError('body', `expected a JSON object, got ${kindOf(body)}`);
  }
  const rowsMember = shape.rowsMember ?? ROWS;
  let rows: ExactValue | undefined;
  let keyValue: ExactValue | undefined;
  const others = new Map<string, ExactValue>();
  for (const [name, value] of body.members) {
    if (name === rowsMember) rows = value;
    else if (name === 'key') keyValue = value;
    else if (rules.otherMembers?.includes(name)) others.set(name, value);
    else {
      const hint =
        shape.rowsMemberHint === undefined || shape.rowsMember !== undefined
          ? ''
          : ` (rows wrapped in another member are read with ${shape.rowsMemberHint})`;
      throw new InvalidInputError('body', `unknown member ${JSON.stringify(name)}${hint}`);
    }
  }
  const key = keyField(document, keyValue, shape, rules);
  if (rows === undefined) {
    throw new InvalidInputError(
      renderJsonPath('body', [rowsMember]),
      'expected an array of rows, got nothing',
    );
  }
  return { key, rows: readRows(document, rows, [rowsMember], key, rules), others };
}

function scanArrayBody(text: string, rules: PutBodyRules, shape: BodyShape): ExactPutBody {
  const document = parseBody(text, rules, ARRAY_LEVELS);
  return {
    key: shape.key,
    rows: readRows(document, document.root, [], shape.key, rules),
    others: NO_OTHERS,
  };
}

/**
 * Validates a put body and returns its rows exactly as sent. Throws
 * InvalidJsonError (bad JSON: path, problem, char offset) or
 * InvalidInputError naming the field (`body.rows[2].id: ...`,
 * `body[2].id: ...`, `body line 3.id: ...`).
 */
export function scanPutBody(
  text: string,
  rules: PutBodyRules,
  shape: BodyShape = {},
): ExactPutBody {
  if (shape.key !== undefined) checkKeyName(shape.key, shape.keyField ?? 'key', rules);
  const form = shape.form ?? BodyForm.object;
  if (form === BodyForm.ndjson) {
    return { key: shape.key, rows: scanNdjsonBody(text, rules, shape.key), others: NO_OTHERS };
  }
  if (ONLY_WHITESPACE.test(text)) {
    const expected = form === BodyForm.array ? 'a JSON array of rows' : 'a JSON object';
    throw new InvalidInputError('body', `expected ${expected}, got an empty body`);
  }
  return form === BodyForm.array
    ? scanArrayBody(text, rules, shape)
    : scanObjectBody(text, rules, shape);
}
