/**
 * Exact decimal identity of JSON numbers, without floats: two number texts
 * denote the same value exactly when their canonical forms are equal
 * (`1E2`, `100`, `100.0`, `1.00e2` → `100`; `-0`, `0` → `0`;
 * `12345678901234567890` ≠ `12345678901234567000`). Keys compare this way.
 *
 * The canonical form is the one ECMAScript's Number#toString uses, applied
 * to the exact decimal value: plain notation when the decimal point falls
 * within 21 digits (`100`, `0.000001`), else `d.ddde±n`. So for every
 * finite double `x`, `canonicalNumber(String(x)) === String(x)`, and key
 * ids of ordinary numbers read the way JavaScript prints them.
 */
import { InvalidInputError } from '../errors.js';

const JSON_NUMBER = /^(-?)(0|[1-9][0-9]*)(?:\.([0-9]+))?(?:[eE]([+-]?[0-9]+))?$/;

/** Beyond this many exponent digits, exponent arithmetic switches from Number to BigInt. */
const SAFE_EXPONENT_DIGITS = 15;

/** The decimal point position range printed in plain notation, as in Number#toString. */
const PLAIN_POINT = { min: -5, max: 21 } as const;

/** `digits` (no leading or trailing zeros, k ≥ 1) × 10^(point − k), formatted canonically. */
function format(negative: boolean, digits: string, point: number | bigint): string {
  const k = digits.length;
  let out: string;
  if (typeof point === 'number' && point >= PLAIN_POINT.min && point <= PLAIN_POINT.max) {
    if (point >= k) out = digits + '0'.repeat(point - k);
    else if (point > 0) out = `${digits.slice(0, point)}.${digits.slice(point)}`;
    else out = `0.${'0'.repeat(-point)}${digits}`;
  } else {
    const exponent = typeof point === 'number' ? point - 1 : point - 1n;
    const mantissa = k === 1 ? digits : `${digits[0]}.${digits.slice(1)}`;
    out = `${mantissa}e${exponent < 0 ? '-' : '+'}${exponent < 0 ? -exponent : exponent}`;
  }
  return negative ? `-${out}` : out;
}

/**
 * One canonical string per exact decimal value of a JSON number text. Any
 * size of mantissa or exponent; no float conversion. Throws InvalidInputError
 * when `text` is not a JSON number.
 */
export function canonicalNumber(text: string): string {
  const match = JSON_NUMBER.exec(text);
  if (match === null) {
    throw new InvalidInputError('number', `expected a JSON number, got ${JSON.stringify(text)}`);
  }
  const [, sign, integer, fraction = '', exponentText = '0'] = match;
  const all = integer! + fraction;
  let first = 0;
  while (first < all.length && all.charCodeAt(first) === 0x30) first++;
  if (first === all.length) return '0';
  let last = all.length;
  while (all.charCodeAt(last - 1) === 0x30) last--;
  const digits = all.slice(first, last);
  // Value = digits × 10^(exponent − fraction.length + trailing zeros); the point sits k places after that.
  const shift = digits.length - fraction.length + (all.length - last);
  const exponentDigits = exponentText.replace(/^[+-]?0*/, '');
  let point: number | bigint;
  if (exponentDigits.length <= SAFE_EXPONENT_DIGITS) {
    point = Number(exponentText) + shift;
  } else {
    const big = BigInt(exponentText.startsWith('+') ? exponentText.slice(1) : exponentText);
    point = big + BigInt(shift);
    if (point >= BigInt(PLAIN_POINT.min) && point <= BigInt(PLAIN_POINT.max)) point = Number(point);
  }
  return format(sign === '-', digits, point);
}

/**
 * True when `Number(text)` is finite and prints back to the same exact
 * value: `JSON.parse` then `JSON.stringify` would keep this number's value.
 * `0.1` fits; `12345678901234567890`, `1e400` and `1.00000000000000001` do not.
 */
export function numberFitsDouble(text: string): boolean {
  const value = Number(text);
  return Number.isFinite(value) && canonicalNumber(String(value)) === canonicalNumber(text);
}
