/**
 * Rows exactly as they were sent. Contract of `lib/rows/` (docs/exact-rows.md):
 *
 * 1. A row is stored as its minified source text (`lib/json`): members keep
 *    their names, order and values, numbers their exact spelling, strings
 *    their escapes; only insignificant whitespace is gone. Nothing on the way
 *    from the put to the WAL, an export, a dump or a rebuild parses it into
 *    JavaScript values and back: it is copied as text.
 * 2. A key is identified by its JSON type and exact value. Its stored form
 *    (`KeyId`) is JSON text: a string key is its `JSON.stringify` literal, a
 *    number key its canonical decimal (`canonicalNumber`), so `"1"` and `1`
 *    are different keys and `1E2` and `100` the same one, and comparing ids
 *    compares keys.
 * 3. Where rows are framed in JSON Lines (WAL objects, exports, batch items),
 *    the row text and key id are spliced in raw (`RawJson`), and read back by
 *    slicing, never by `JSON.parse` of the row (`row-line.ts`).
 */
/**
 * One row as shardwal stores it: a keyless append (`text`), a keyed upsert
 * (`key` and `text`) or a keyed delete (`key` and `delete`).
 */
import type { KeyId } from './key-id.js';
import { RawJson, stringifyLine } from './raw-json.js';

/** A row exactly as sent (see the contract above). */
export interface Row {
  key?: KeyId;
  delete?: true;
  /** The row object's minified source text; absent on deletes. */
  text?: string;
}

/** True when `a` and `b` hold the same rows, byte for byte, in the same order. */
export function sameRows(a: readonly Row[], b: readonly Row[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x.key !== y.key || (x.delete === true) !== (y.delete === true) || x.text !== y.text) {
      return false;
    }
  }
  return true;
}

/** `{"key":<key>,"delete":true,"row":<row>}` with the key and row exactly as put (a dump line's shape). */
export function rowJson(row: Row): string {
  return stringifyLine({
    key: row.key === undefined ? undefined : new RawJson(row.key),
    delete: row.delete,
    row: row.text === undefined ? undefined : new RawJson(row.text),
  });
}
