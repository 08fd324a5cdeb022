/**
 * The number token (RFC 8259 §6):
 * `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`. Only the grammar
 * is checked: any valid number is kept as its text, however large, small or
 * precise (`1e400`, `-0`, 40 digits), never converted.
 */
import { JsonProblem } from './errors.js';
import { describeChar, ScanFault } from './scan-fault.js';

const MINUS = 0x2d;
const ZERO = 0x30;

function isDigit(c: number): boolean {
  return c >= ZERO && c <= 0x39;
}

function expectDigit(text: string, at: number, after: string): void {
  if (!isDigit(text.charCodeAt(at))) {
    throw new ScanFault(
      JsonProblem.syntax,
      `invalid number: expected a digit after ${after}, got ${describeChar(text, at)}`,
      at,
    );
  }
}

/** Scans the number token starting at `start`; returns the index after it. Throws ScanFault. */
export function scanNumber(text: string, start: number): number {
  let i = start;
  if (text.charCodeAt(i) === MINUS) {
    i++;
    expectDigit(text, i, "'-'");
  }
  if (text.charCodeAt(i) === ZERO) {
    i++;
    if (isDigit(text.charCodeAt(i))) {
      throw new ScanFault(JsonProblem.syntax, 'invalid number: leading zero', start);
    }
  } else {
    while (isDigit(text.charCodeAt(i))) i++;
  }
  if (text.charCodeAt(i) === 0x2e) {
    i++;
    expectDigit(text, i, "'.'");
    while (isDigit(text.charCodeAt(i))) i++;
  }
  const e = text.charCodeAt(i);
  if (e === 0x65 || e === 0x45) {
    i++;
    const sign = text.charCodeAt(i);
    if (sign === 0x2b || sign === MINUS) i++;
    expectDigit(text, i, 'the exponent mark');
    while (isDigit(text.charCodeAt(i))) i++;
  }
  return i;
}
