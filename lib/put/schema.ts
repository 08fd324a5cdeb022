/**
 * The put request body, validated with zod. Rows are JSON objects. A request
 * may name a `key` field: every row is then keyed by that field's value
 * (string or number), and a row `{"<key>": ..., "$delete": true}` deletes the
 * key. Without `key`, rows are plain appends and `$delete` is refused.
 */
import { z } from 'zod';
import { InvalidInputError } from '../errors.js';
import type { BatchRow } from '../memtable/batch-codec.js';
import type { JsonObject } from '../wal/format.js';

/** Member of a row that marks a keyed delete. */
export const DELETE_MEMBER = '$delete';
/** Longest key accepted, in characters. */
export const MAX_KEY_CHARS = 1024;

const keyName = z
  .string()
  .min(1)
  .max(256)
  .refine((name) => name !== DELETE_MEMBER, `must not be ${DELETE_MEMBER}`);

function bodySchema(maxRows: number) {
  return z
    .object({
      rows: z.array(z.record(z.string(), z.unknown())).min(1).max(maxRows),
      key: keyName.optional(),
    })
    .strict()
    .superRefine((body, ctx) => {
      body.rows.forEach((row, index) => {
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

/** Parses raw body text as JSON; throws InvalidInputError on malformed JSON. */
export function parseJsonBody(text: string | undefined): unknown {
  if (text === undefined || text.trim() === '')
    throw new InvalidInputError('body', 'expected a JSON object, got an empty body');
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new InvalidInputError('body', `not valid JSON: ${(error as Error).message}`);
  }
}
