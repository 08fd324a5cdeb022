/**
 * Exact (lossless) JSON for the put path.
 *
 * Contract:
 * 1. A value is stored as its minified source: the text as sent minus
 *    insignificant whitespace (space, tab, CR, LF between tokens). Number
 *    spellings and string escapes are kept verbatim, so members keep their
 *    names, order and values, numbers their exact decimal value (`1e400`,
 *    `-0`, 20-digit ids), strings their code points.
 * 2. Refused with a typed invalid-input error naming the JSON path, the
 *    problem and the char (or byte) offset: anything RFC 8259 does not allow;
 *    duplicate member names in one object (compared decoded); surrogates
 *    that are not half of a pair, escaped or raw; nesting past a limit;
 *    ill-formed UTF-8; a leading byte order mark unless told to skip it.
 * 3. Numbers are never converted. They compare by exact decimal value
 *    through `canonicalNumber` (`1E2` = `100`, `-0` = `0`); keys compare by
 *    type and value (`"1"` ≠ `1`).
 * 4. Parsing is iterative: depth is bounded by the limit, never by the
 *    stack.
 */
export { InvalidJsonError, InvalidUtf8Error, JsonProblem } from './errors.js';
export { canonicalNumber, numberFitsDouble } from './exact-number.js';
export {
  BomPolicy,
  ExactParseDefaults,
  type ParseExactOptions,
  parseExact,
} from './exact-parse.js';
export {
  BodyForm,
  type BodyShape,
  type ExactKey,
  type ExactPutBody,
  type ExactPutRow,
  type PutBodyRules,
  scanPutBody,
} from './exact-put-body.js';
export {
  type ExactArray,
  type ExactBoolean,
  ExactDocument,
  type ExactNull,
  type ExactNumber,
  type ExactObject,
  type ExactRaw,
  type ExactSpan,
  type ExactString,
  type ExactValue,
  memberOf,
} from './exact-tree.js';
export { renderJsonPath } from './json-path.js';
export { decodeUtf8Strict, findInvalidUtf8 } from './utf8.js';
