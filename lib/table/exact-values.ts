/**
 * The exact value of a JSON scalar in a typed column's type, read from the
 * row's text in place (`text[start, end)`, the member's source slice): the
 * committer projects every row, so the common spellings are read with
 * integer arithmetic on char codes, no regular expression, no `Date`, no
 * slice; anything else (exponents, more than 15 digits, escapes) takes the
 * general path, which decides. Every reader returns undefined when the type
 * cannot hold the value exactly (`project.ts` states what exactly means).
 */

const JSON_NUMBER = /^(-?)(0|[1-9][0-9]*)(?:\.([0-9]+))?(?:[eE]([+-]?[0-9]+))?$/;
/** Exponents past this are never exact in any column type (and would make BigInt huge). */
const MAX_EXPONENT = 400;
/** Digits a double holds exactly as an integer (10^15 < 2^53). */
const SAFE_DIGITS = 15;
const POW10 = Array.from({ length: SAFE_DIGITS + 1 }, (_, k) => 10 ** k);

/** `text × 10^scale` as a BigInt when it is an integer, else undefined (the general path). */
export function scaledInteger(text: string, scale: number): bigint | undefined {
  const match = JSON_NUMBER.exec(text);
  if (!match) return undefined;
  const [, sign, integer, fraction = '', exponentText = '0'] = match;
  const digits = (integer! + fraction).replace(/^0+/, '');
  if (digits === '') return 0n;
  const exponent = Number(exponentText) - fraction.length + scale;
  if (!Number.isSafeInteger(exponent) || Math.abs(exponent) > MAX_EXPONENT) return undefined;
  let value = BigInt(digits);
  if (exponent >= 0) value *= 10n ** BigInt(exponent);
  else {
    const divisor = 10n ** BigInt(-exponent);
    if (value % divisor !== 0n) return undefined;
    value /= divisor;
  }
  return sign === '-' ? -value : value;
}

const isDigit = (c: number) => c >= 0x30 && c <= 0x39;

/**
 * `text[start, end) × 10^scale` when it is an integer, for a number spelled
 * `-?(0|[1-9][0-9]*)(\.[0-9]+)?` whose scaled value has at most 15 digits;
 * NaN for any other spelling (the caller then takes `scaledInteger`),
 * undefined when the value is not an integer at this scale (exactly what
 * `scaledInteger` says of it). Negative zero comes back as 0.
 */
export function scaledSmall(
  text: string,
  start: number,
  end: number,
  scale: number,
): number | undefined {
  let i = start;
  const negative = text.charCodeAt(i) === 0x2d;
  if (negative) i++;
  const first = text.charCodeAt(i);
  if (!isDigit(first) || (first === 0x30 && i + 1 < end && isDigit(text.charCodeAt(i + 1)))) {
    return Number.NaN;
  }
  let value = 0;
  let digits = 0;
  for (; i < end; i++) {
    const c = text.charCodeAt(i);
    if (!isDigit(c)) break;
    value = value * 10 + (c - 0x30);
    if (value > 0) digits++;
  }
  let fraction = 0;
  let inexact = false;
  if (i < end) {
    if (text.charCodeAt(i) !== 0x2e) return Number.NaN;
    i++;
    const from = i;
    for (; i < end; i++) {
      const c = text.charCodeAt(i);
      if (!isDigit(c)) return Number.NaN;
      if (fraction < scale) {
        value = value * 10 + (c - 0x30);
        if (value > 0) digits++;
        fraction++;
      } else if (c !== 0x30) inexact = true; // a digit past the scale: not this scale's integer
    }
    if (i === from) return Number.NaN;
  }
  if (inexact) return undefined;
  if (digits + (scale - fraction) > SAFE_DIGITS) return Number.NaN;
  value *= POW10[scale - fraction]!;
  return negative && value !== 0 ? -value : value;
}

/** Days from 1970-01-01 to the proleptic Gregorian date `y-m-d` (m 1-12). */
function daysFromCivil(y: number, m: number, d: number): number {
  const year = m <= 2 ? y - 1 : y;
  const era = Math.floor(year / 400);
  const yoe = year - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146_097 + doe - 719_468;
}

function daysInMonth(y: number, m: number): number {
  if (m === 2) return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0 ? 29 : 28;
  return m === 4 || m === 6 || m === 9 || m === 11 ? 30 : 31;
}

/** The number of `count` ASCII digits at `text[at]`, or -1. */
function digitsAt(text: string, at: number, count: number): number {
  let value = 0;
  for (let k = 0; k < count; k++) {
    const c = text.charCodeAt(at + k);
    if (!isDigit(c)) return -1;
    value = value * 10 + (c - 0x30);
  }
  return value;
}

/** Days since the epoch of the valid calendar date `YYYY-MM-DD` at `text[at]`, or undefined. */
function dateAt(text: string, at: number): number | undefined {
  const y = digitsAt(text, at, 4);
  const m = digitsAt(text, at + 5, 2);
  const d = digitsAt(text, at + 8, 2);
  if (y < 0 || m < 1 || m > 12 || d < 1 || d > daysInMonth(y, m)) return undefined;
  if (text.charCodeAt(at + 4) !== 0x2d || text.charCodeAt(at + 7) !== 0x2d) return undefined;
  return daysFromCivil(y, m, d);
}

/** Days since the epoch of a `YYYY-MM-DD` date (`text[start, end)`, unquoted), when valid. */
export function dateDays(text: string, start: number, end: number): number | undefined {
  return end - start === 10 ? dateAt(text, start) : undefined;
}

/** Largest |ms| whose microseconds stay a safe integer (about the year 2255). */
const SAFE_MS = 9e12;

/**
 * Microseconds since the epoch of an RFC 3339 timestamp (`text[start, end)`,
 * unquoted): `YYYY-MM-DD`, `T`, `t` or a space, `hh:mm:ss`, an optional
 * fraction of 1-9 digits (those past the 6th zero), then `Z`, `z` or
 * `±hh:mm` (hh ≤ 23, mm ≤ 59); a valid calendar date, hh ≤ 23, mm and ss ≤ 59.
 */
export function timestampMicros(text: string, start: number, end: number): bigint | undefined {
  if (end - start < 20) return undefined;
  const days = dateAt(text, start);
  if (days === undefined) return undefined;
  const sep = text.charCodeAt(start + 10);
  if (sep !== 0x54 && sep !== 0x74 && sep !== 0x20) return undefined;
  const h = digitsAt(text, start + 11, 2);
  const mi = digitsAt(text, start + 14, 2);
  const s = digitsAt(text, start + 17, 2);
  if (h < 0 || h > 23 || mi < 0 || mi > 59 || s < 0 || s > 59) return undefined;
  if (text.charCodeAt(start + 13) !== 0x3a || text.charCodeAt(start + 16) !== 0x3a) {
    return undefined;
  }
  let i = start + 19;
  let micros = 0;
  if (text.charCodeAt(i) === 0x2e) {
    i++;
    let k = 0;
    for (; i < end && isDigit(text.charCodeAt(i)); i++, k++) {
      const digit = text.charCodeAt(i) - 0x30;
      if (k < 6) micros += digit * POW10[5 - k]!;
      else if (digit !== 0) return undefined;
    }
    if (k === 0 || k > 9) return undefined;
  }
  let offsetMin = 0;
  const zone = text.charCodeAt(i);
  if (zone === 0x5a || zone === 0x7a) {
    if (end - i !== 1) return undefined;
  } else if (zone === 0x2b || zone === 0x2d) {
    if (end - i !== 6 || text.charCodeAt(i + 3) !== 0x3a) return undefined;
    const oh = digitsAt(text, i + 1, 2);
    const om = digitsAt(text, i + 4, 2);
    if (oh < 0 || oh > 23 || om < 0 || om > 59) return undefined;
    offsetMin = (zone === 0x2d ? -1 : 1) * (oh * 60 + om);
  } else return undefined;
  const ms = days * 86_400_000 + (h * 3600 + mi * 60 + s) * 1000 - offsetMin * 60_000;
  if (Math.abs(ms) < SAFE_MS) return BigInt(ms * 1000 + micros);
  return BigInt(ms) * 1000n + BigInt(micros);
}
