/**
 * DynamoDB numbers: decimal strings of up to 38 significant digits with a
 * magnitude in [1e-130, 1e126), compared and added exactly. DynamoDB stores
 * and returns them in a canonical plain form ("1.50" -> "1.5", "1e3" ->
 * "1000", "-0" -> "0"); so does this module. Arithmetic is exact (BigInt);
 * a result DynamoDB cannot store is refused with its ValidationException.
 */
import { validationError } from './sdk-errors.js';

/** A decimal `coefficient × 10^exponent`, normalized (no trailing zeros in the coefficient). */
interface Decimal {
  coefficient: bigint;
  exponent: number;
}

const NUMBER_PATTERN = /^(-)?(\d+(?:\.\d*)?|\.\d+)(?:[eE]([+-]?\d+))?$/;
/** Integers this small are compared and added as doubles, exactly (the common case). */
const SMALL_INTEGER = /^-?\d{1,15}$/;
const MAX_DIGITS = 38;
const MAX_EXPONENT = 125;
const MIN_EXPONENT = -130;

function parse(text: string): Decimal {
  const match = NUMBER_PATTERN.exec(text);
  if (!match) {
    throw validationError(`The parameter cannot be converted to a numeric value: ${text}`);
  }
  const [, minus, digits = '', exp] = match;
  const point = digits.indexOf('.');
  const whole = point < 0 ? digits : digits.slice(0, point) + digits.slice(point + 1);
  const fractionDigits = point < 0 ? 0 : digits.length - point - 1;
  return normalize(BigInt(whole) * (minus ? -1n : 1n), Number(exp ?? 0) - fractionDigits);
}

function normalize(coefficient: bigint, exponent: number): Decimal {
  if (coefficient === 0n) return { coefficient, exponent: 0 };
  let c = coefficient;
  let e = exponent;
  while (c % 10n === 0n) {
    c /= 10n;
    e += 1;
  }
  return { coefficient: c, exponent: e };
}

function digitCount(coefficient: bigint): number {
  return (coefficient < 0n ? -coefficient : coefficient).toString().length;
}

/** Refuses what DynamoDB cannot store, with its messages; returns the canonical string. */
function format(value: Decimal): string {
  const { coefficient, exponent } = value;
  if (coefficient === 0n) return '0';
  const digits = digitCount(coefficient);
  const magnitude = exponent + digits - 1;
  if (digits > MAX_DIGITS) {
    throw validationError('Attempting to store more than 38 significant digits in a Number');
  }
  if (magnitude > MAX_EXPONENT) {
    throw validationError(
      'Number overflow. Attempting to store a number with magnitude larger than supported range',
    );
  }
  if (magnitude < MIN_EXPONENT) {
    throw validationError(
      'Number underflow. Attempting to store a number with magnitude smaller than supported range',
    );
  }
  const sign = coefficient < 0n ? '-' : '';
  const body = (coefficient < 0n ? -coefficient : coefficient).toString();
  if (exponent >= 0) return sign + body + '0'.repeat(exponent);
  const padded = body.padStart(-exponent + 1, '0');
  return `${sign}${padded.slice(0, exponent)}.${padded.slice(exponent)}`;
}

/** The canonical form DynamoDB stores for `text`; throws ValidationException when it is not storable. */
export function canonicalNumber(text: string): string {
  if (SMALL_INTEGER.test(text)) return String(Number(text) + 0);
  return format(parse(text));
}

/** -1, 0 or 1 as `a` is below, equal to or above `b` (both valid number strings). */
export function compareNumbers(a: string, b: string): number {
  if (SMALL_INTEGER.test(a) && SMALL_INTEGER.test(b)) return Math.sign(Number(a) - Number(b));
  const x = parse(a);
  const y = parse(b);
  const shift = Math.min(x.exponent, y.exponent);
  const left = x.coefficient * 10n ** BigInt(x.exponent - shift);
  const right = y.coefficient * 10n ** BigInt(y.exponent - shift);
  return left < right ? -1 : left > right ? 1 : 0;
}

/** `a + b` (or `a - b` with `negate`), exact; throws ValidationException when not storable. */
export function addNumbers(a: string, b: string, negate = false): string {
  if (SMALL_INTEGER.test(a) && SMALL_INTEGER.test(b)) {
    const sum = Number(a) + (negate ? -Number(b) : Number(b));
    if (Number.isSafeInteger(sum)) return String(sum + 0);
  }
  const x = parse(a);
  const y = parse(b);
  const shift = Math.min(x.exponent, y.exponent);
  const left = x.coefficient * 10n ** BigInt(x.exponent - shift);
  const right = y.coefficient * 10n ** BigInt(y.exponent - shift);
  return format(normalize(negate ? left - right : left + right, shift));
}

/** Significant digits of a canonical number (for the item-size estimate). */
export function significantDigits(canonical: string): number {
  let first = -1;
  let last = -1;
  let digits = 0;
  for (let i = 0; i < canonical.length; i++) {
    const c = canonical.charCodeAt(i);
    if (c < 48 || c > 57) continue;
    if (c !== 48) {
      if (first < 0) first = digits;
      last = digits;
    }
    digits++;
  }
  return first < 0 ? 1 : last - first + 1;
}
