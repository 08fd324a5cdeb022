/**
 * A fault found by one of the token scanners. It carries the problem, the
 * detail and the char offset; the parser, which knows where in the tree it
 * is, turns it into an InvalidJsonError naming the path.
 */
import type { JsonProblem } from './errors.js';

/** Internal: thrown by the token scanners, caught and re-thrown by the parser with its path. */
export class ScanFault {
  readonly problem: JsonProblem;
  readonly detail: string;
  readonly offset: number;
  constructor(problem: JsonProblem, detail: string, offset: number) {
    this.problem = problem;
    this.detail = detail;
    this.offset = offset;
  }
}

/** How a char reads in a message: `'x'`, `U+000A` for controls and surrogates, or end of text. */
export function describeChar(text: string, offset: number): string {
  if (offset >= text.length) return 'end of text';
  const code = text.charCodeAt(offset);
  if (code < 0x20 || code === 0x7f || (code >= 0xd800 && code <= 0xdfff) || code === 0xfeff) {
    return `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
  }
  const point = text.codePointAt(offset)!;
  return `'${String.fromCodePoint(point)}'`;
}
