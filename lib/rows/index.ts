/**
 * Rows exactly as they were sent. Contract (docs/exact-rows.md):
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
export { compareKeyIds, type KeyId, keyIdOfLegacy, keyIdText } from './key-id.js';
export { RawJson, stringifyLine } from './raw-json.js';
export { type Row, rowJson, sameRows } from './row.js';
export { type RowLine, readRowLine } from './row-line.js';
