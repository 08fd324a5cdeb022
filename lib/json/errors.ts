/**
 * Errors of the exact JSON scanner. Both are invalid input (a 400 on the put
 * path): the field names the JSON path of the offending value, the message
 * says what is wrong and where (a 0-based UTF-16 char offset into the text,
 * or a 0-based byte offset into the body), like `JSON.parse` positions.
 */
import { InvalidInputError } from '../errors.js';
import { renderJsonPath } from './json-path.js';

/** Why a JSON text was refused. */
export const JsonProblem = {
  /** Not JSON as RFC 8259 defines it: a bad token, a missing comma, trailing text, … */
  syntax: 'syntax',
  /** Two members of one object with the same decoded name. */
  duplicateMember: 'duplicate_member',
  /** A surrogate code unit that is not half of a pair, escaped or raw. */
  loneSurrogate: 'lone_surrogate',
  /** Objects and arrays nested deeper than the limit. */
  tooDeep: 'too_deep',
} as const;
export type JsonProblem = (typeof JsonProblem)[keyof typeof JsonProblem];

/** A JSON text refused by the exact scanner; names the path, the problem and the char offset. */
export class InvalidJsonError extends InvalidInputError {
  readonly problem: JsonProblem;
  /** The path as segments: member names and array indexes below the root. */
  readonly path: readonly (string | number)[];
  /** 0-based offset, in UTF-16 code units, of the offending char in the text. */
  readonly offset: number;
  constructor(
    root: string,
    path: readonly (string | number)[],
    problem: JsonProblem,
    detail: string,
    offset: number,
  ) {
    super(renderJsonPath(root, path), `${detail} at char ${offset}`);
    this.name = 'InvalidJsonError';
    this.problem = problem;
    this.path = path;
    this.offset = offset;
  }
}

/** Bytes that are not well-formed UTF-8; names the first bad byte's offset. */
export class InvalidUtf8Error extends InvalidInputError {
  /** 0-based offset of the first byte of the ill-formed sequence. */
  readonly byteOffset: number;
  constructor(field: string, byteOffset: number, detail: string) {
    super(field, `invalid UTF-8 at byte ${byteOffset}: ${detail}`);
    this.name = 'InvalidUtf8Error';
    this.byteOffset = byteOffset;
  }
}
