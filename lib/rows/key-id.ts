/**
 * Key ids: a key's JSON type and exact value as JSON text (rule 2 of
 * the contract in `row.ts`). Equal ids mean equal keys and nothing else.
 */

/** A key's identity and stored form: a JSON string literal, or a canonical JSON number. */
export type KeyId = string;

/**
 * The id of a key read from a v1 object, where every key was stored as a
 * string (numbers included, as their `String()` form): v1 never told the
 * types apart, so neither does its id.
 */
export function keyIdOfLegacy(key: string): KeyId {
  return JSON.stringify(key);
}

/**
 * The order keyed rows are written in (exports, snapshots): number keys
 * first, by their id text; then string keys by their value, code unit by code
 * unit (as v1 exports sorted them, so their order still checks).
 */
export function compareKeyIds(a: KeyId, b: KeyId): number {
  const aString = a.startsWith('"');
  const bString = b.startsWith('"');
  if (aString !== bString) return aString ? 1 : -1;
  const x = aString ? (JSON.parse(a) as string) : a;
  const y = bString ? (JSON.parse(b) as string) : b;
  return x < y ? -1 : x > y ? 1 : 0;
}
