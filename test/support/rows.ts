/**
 * Rows for tests: build stored rows (`Row`, exact text and key ids) from the
 * JavaScript objects a test writes, and read stored rows back as objects for
 * assertions (exact only for values JavaScript can hold: tests that need the
 * text compare `text` itself).
 */
import { parsePutValue } from '../../lib/put/schema.js';
import type { Row } from '../../lib/rows/row.js';

/** The rows a put of `rows` (keyed by `key` when given) buffers. */
export function rowsOf(rows: readonly object[], key?: string): Row[] {
  return parsePutValue(key === undefined ? { rows } : { key, rows }, rows.length).rows;
}

/** One keyless row as stored. */
export function rowOf(row: object): Row {
  return { text: JSON.stringify(row) };
}

/** A stored row's value, parsed (undefined for a delete). */
export function rowValue(row: { text?: string }): unknown {
  return row.text === undefined ? undefined : JSON.parse(row.text);
}
