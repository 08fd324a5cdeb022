/**
 * One row as shardwal stores it: a keyless append (`text`), a keyed upsert
 * (`key` and `text`) or a keyed delete (`key` and `delete`).
 */
import type { KeyId } from './key-id.js';
import { RawJson, stringifyLine } from './raw-json.js';

/** A row exactly as sent (see `index.ts`). */
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
