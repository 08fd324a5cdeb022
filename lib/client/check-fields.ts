/**
 * The run-time check of an answer against its field table (`api-types.ts`):
 * the client believes a response body only once every field has its spec's
 * JSON type, so a service or proxy answering something else is a
 * `MalformedResponseError`, not a wrong value read later.
 */
import type { FieldSpec, JsonType } from './api-types.js';
import { MalformedResponseError } from './errors.js';

function typeOf(value: unknown): JsonType | 'other' {
  if (value === null) return 'null';
  if (typeof value === 'string') return 'string';
  if (typeof value === 'boolean') return 'boolean';
  if (typeof value === 'number') return Number.isSafeInteger(value) ? 'integer' : 'other';
  if (typeof value === 'object' && !Array.isArray(value)) return 'object';
  return 'other';
}

/**
 * `value` as `T` once every field in `fields` has its type (required fields
 * present). Unknown members are kept: the spec only ever adds fields.
 */
export function checkFields<T>(
  value: unknown,
  fields: Readonly<Record<string, FieldSpec>>,
  what: string,
): T {
  if (typeOf(value) !== 'object') {
    throw new MalformedResponseError(what, `expected a JSON object, got ${JSON.stringify(value)}`);
  }
  const object = value as Record<string, unknown>;
  for (const [name, spec] of Object.entries(fields)) {
    if (!(name in object)) {
      if (spec.required) throw new MalformedResponseError(what, `missing field ${name}`);
      continue;
    }
    const allowed: readonly JsonType[] = typeof spec.type === 'string' ? [spec.type] : spec.type;
    const got = typeOf(object[name]);
    if (got === 'other' || !allowed.includes(got)) {
      throw new MalformedResponseError(
        what,
        `field ${name}: expected ${allowed.join(' or ')}, got ${JSON.stringify(object[name])}`,
      );
    }
  }
  return object as T;
}
