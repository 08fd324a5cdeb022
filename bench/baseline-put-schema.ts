/**
 * BASELINE for `bench/json-scan.ts` only: the put body validation as it was
 * before exact rows (JSON.parse, then zod), kept verbatim so the benchmark
 * measures the old path beside the new one. Not used by the service.
 *
 * The put request body, validated with zod. Rows are JSON objects. A request
 * may name a `key` field: every row is then keyed by that field's value
 * (string or number), and a row `{"<key>": ..., "$delete": true}` deletes the
 * key. Without `key`, rows are plain appends and `$delete` is refused.
 */
import { z } from 'zod';
import { InvalidInputError } from '../lib/errors.js';

type JsonObject = Record<string, unknown>;
interface BatchRow {
  key?: string;
  delete?: true;
  row?: JsonObject;
}

/** Member of a row that marks a keyed delete. */
export const DELETE_MEMBER = '$delete';
/** Longest key accepted, in characters. */
export const MAX_KEY_CHARS = 1024;
/**
 * Deepest nesting accepted in a row (the row object is level 1). Deeper
 * values overflow the stack of the JSON encoders downstream, so they are
 * refused here as bad input rather than failing later as a 500.
 */
export const MAX_ROW_DEPTH = 100;

function kindOf(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
}

// Not `z.record`: that copies each row by assignment, so an own `__proto__`
// member would become the copy's prototype and silently vanish from the data.
const rowSchema = z.custom<Record<string, unknown>>(
  (value) => typeof value === 'object' && value !== null && !Array.isArray(value),
  { error: (issue) => `expected a JSON object, got ${kindOf(issue.input)}` },
);

/** True when `value` nests objects or arrays deeper than `limit` levels (iterative: no recursion). */
function nestsDeeperThan(value: unknown, limit: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!;
    if (typeof item !== 'object' || item === null) continue;
    if (depth > limit) return true;
    for (const child of Object.values(item)) stack.push([child, depth + 1]);
  }
  return false;
}

const keyName = z
  .string()
  .min(1)
  .max(256)
  .refine((name) => name !== DELETE_MEMBER, `must not be ${DELETE_MEMBER}`);

function bodySchema(maxRows: number) {
  return z
    .object({
      rows: z.array(rowSchema).min(1).max(maxRows),
      key: keyName.optional(),
    })
    .strict()
    .superRefine((body, ctx) => {
      body.rows.forEach((row, index) => {
        if (nestsDeeperThan(row, MAX_ROW_DEPTH)) {
          ctx.addIssue({
            code: 'custom',
            path: ['rows', index],
            message: `nested deeper than ${MAX_ROW_DEPTH} levels`,
          });
          return;
        }
        const isDelete = row[DELETE_MEMBER];
        if (isDelete !== undefined && isDelete !== true) {
          ctx.addIssue({
            code: 'custom',
            path: ['rows', index, DELETE_MEMBER],
            message: 'must be true when present',
          });
        }
        if (body.key === undefined) {
          if (isDelete !== undefined) {
            ctx.addIssue({
              code: 'custom',
              path: ['rows', index, DELETE_MEMBER],
              message: 'deletes need a "key" field',
            });
          }
          return;
        }
        const value = row[body.key];
        const ok =
          (typeof value === 'string' && value.length > 0 && value.length <= MAX_KEY_CHARS) ||
          (typeof value === 'number' && Number.isFinite(value));
        if (!ok) {
          ctx.addIssue({
            code: 'custom',
            path: ['rows', index, body.key],
            message: `expected a non-empty string of at most ${MAX_KEY_CHARS} characters or a finite number, got ${JSON.stringify(value) ?? 'nothing'}`,
          });
        }
      });
    });
}

const schemas = new Map<number, ReturnType<typeof bodySchema>>();

function fieldPath(path: readonly PropertyKey[]): string {
  let out = 'body';
  for (const part of path) out += typeof part === 'number' ? `[${part}]` : `.${String(part)}`;
  return out;
}

/** A validated put body, as batch rows. */
export interface ParsedPut {
  rows: BatchRow[];
}

/** Validates a parsed JSON body; throws InvalidInputError naming the first bad field. */
export function parsePutBody(body: unknown, maxRows: number): ParsedPut {
  let schema = schemas.get(maxRows);
  if (!schema) {
    schema = bodySchema(maxRows);
    schemas.set(maxRows, schema);
  }
  const result = schema.safeParse(body);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    throw new InvalidInputError(fieldPath(issue.path), issue.message);
  }
  const { key } = result.data;
  const rows = result.data.rows.map((row): BatchRow => {
    if (key === undefined) return { row: row as JsonObject };
    const keyValue = String(row[key]);
    if (row[DELETE_MEMBER] === true) return { key: keyValue, delete: true };
    return { key: keyValue, row: row as JsonObject };
  });
  return { rows };
}
