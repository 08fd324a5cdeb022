/**
 * Typed columns: a top-level member of a row, stored in its declared type
 * only when the type holds it exactly. Otherwise the column is null for that
 * row and the value is counted as refused (metric and verify finding); the
 * `row` column keeps the text, so nothing is lost or altered.
 *
 * Exactly means: `long` an integer in [-2^63, 2^63-1]; `double` a number the
 * nearest double prints back to the same decimal value; `decimal(P,S)` a
 * number with at most S fraction digits (after removing trailing zeros) and
 * at most P digits; `string` a JSON string; `boolean` true or false;
 * `timestamptz` an RFC 3339 string with an offset and at most microsecond
 * precision; `date` a `YYYY-MM-DD` string. A missing member or JSON `null`
 * is null and not counted.
 */

import type { ExactValue } from '../json/index.js';
import { numberFitsDouble, parseExact } from '../json/index.js';
import { decimalOf, type TypedColumn } from './schema.js';

/** A projected value as the Parquet writer takes it. */
export type TypedValue = string | number | bigint | boolean | null;

/** The projection of one row. */
export interface Projection {
  values: TypedValue[];
  /** Names of the columns whose value could not be stored exactly. */
  refused: string[];
}

const JSON_NUMBER = /^(-?)(0|[1-9][0-9]*)(?:\.([0-9]+))?(?:[eE]([+-]?[0-9]+))?$/;
const LONG_MIN = -(2n ** 63n);
const LONG_MAX = 2n ** 63n - 1n;
/** Exponents past this are never exact in any column type (and would make BigInt huge). */
const MAX_EXPONENT = 400;

/** `text × 10^scale` as a BigInt when it is an integer, else undefined. */
function scaledInteger(text: string, scale: number): bigint | undefined {
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

const TIMESTAMP =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?([Zz]|[+-]\d{2}:\d{2})$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Milliseconds of a valid calendar date-time (UTC fields), or undefined. */
function utcMs(
  y: string,
  mo: string,
  d: string,
  h = '00',
  mi = '00',
  s = '00',
): number | undefined {
  const ms = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
  const back = new Date(ms);
  if (
    back.getUTCFullYear() !== Number(y) ||
    back.getUTCMonth() !== Number(mo) - 1 ||
    back.getUTCDate() !== Number(d) ||
    back.getUTCHours() !== Number(h) ||
    back.getUTCMinutes() !== Number(mi) ||
    back.getUTCSeconds() !== Number(s)
  ) {
    return undefined;
  }
  return ms;
}

/** Microseconds since the epoch of an RFC 3339 timestamp, when exact. */
function timestampMicros(text: string): bigint | undefined {
  const m = TIMESTAMP.exec(text);
  if (!m) return undefined;
  const ms = utcMs(m[1]!, m[2]!, m[3]!, m[4], m[5], m[6]);
  if (ms === undefined) return undefined;
  const fraction = (m[7] ?? '').padEnd(9, '0');
  if (fraction.slice(6) !== '000') return undefined;
  let offsetMin = 0;
  const zone = m[8]!;
  if (zone !== 'Z' && zone !== 'z') {
    const hours = Number(zone.slice(1, 3));
    const minutes = Number(zone.slice(4, 6));
    if (hours > 23 || minutes > 59) return undefined;
    offsetMin = (zone[0] === '-' ? -1 : 1) * (hours * 60 + minutes);
  }
  return BigInt(ms - offsetMin * 60_000) * 1000n + BigInt(fraction.slice(0, 6));
}

/** Days since the epoch of a `YYYY-MM-DD` date, when valid. */
function dateDays(text: string): number | undefined {
  const m = DATE.exec(text);
  if (!m) return undefined;
  const ms = utcMs(m[1]!, m[2]!, m[3]!);
  return ms === undefined ? undefined : ms / 86_400_000;
}

/** The exact typed value of `value`, or undefined when the type cannot hold it. */
function typed(type: string, value: ExactValue): TypedValue | undefined {
  const decimal = decimalOf(type);
  if (decimal) {
    if (value.kind !== 'number') return undefined;
    const unscaled = scaledInteger(value.text, decimal.scale);
    if (unscaled === undefined) return undefined;
    const bound = 10n ** BigInt(decimal.precision);
    return unscaled < bound && unscaled > -bound ? unscaled : undefined;
  }
  switch (type) {
    case 'string':
      return value.kind === 'string' ? value.value : undefined;
    case 'boolean':
      return value.kind === 'boolean' ? value.value : undefined;
    case 'long': {
      if (value.kind !== 'number') return undefined;
      const n = scaledInteger(value.text, 0);
      return n !== undefined && n >= LONG_MIN && n <= LONG_MAX ? n : undefined;
    }
    case 'double':
      return value.kind === 'number' && numberFitsDouble(value.text)
        ? Number(value.text)
        : undefined;
    case 'timestamptz':
      return value.kind === 'string' ? timestampMicros(value.value) : undefined;
    case 'date':
      return value.kind === 'string' ? dateDays(value.value) : undefined;
    default:
      return undefined;
  }
}

/** Projects `text` (a row's exact text; undefined for deletes) into `columns`. */
export function projectRow(columns: readonly TypedColumn[], text: string | undefined): Projection {
  const values: TypedValue[] = columns.map(() => null);
  const refused: string[] = [];
  if (columns.length === 0 || text === undefined) return { values, refused };
  const root = parseExact(text, { materializeDepth: 1 }).root;
  if (root.kind !== 'object') return { values, refused };
  columns.forEach((column, index) => {
    const member = root.members.find(([name]) => name === column.name)?.[1];
    if (member === undefined || member.kind === 'null') return;
    const value = typed(column.type, member);
    if (value === undefined) refused.push(column.name);
    else values[index] = value;
  });
  return { values, refused };
}
