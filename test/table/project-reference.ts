/**
 * The reference projection the committer's one-pass `Projector`
 * (`lib/table/project.ts`) must agree with, for the property test: the
 * first version's reader (a regular expression per number and timestamp,
 * `Date` for calendars, `JSON.parse` for strings), kept as the oracle. Its
 * one change: years 0000-0099 are read as themselves (`Date.UTC` maps them
 * to 1900-1999, so the first version refused every such timestamp and date).
 */
import { numberFitsDouble } from '../../lib/json/exact-number.js';
import type { Projection, TypedValue } from '../../lib/table/project.js';
import { decimalOf, type TypedColumn } from '../../lib/table/schema.js';

const LONG_MIN = -(2n ** 63n);
const LONG_MAX = 2n ** 63n - 1n;
/** A nonzero value this many powers of ten up is past every column type (long: 10^19, decimal: 10^38). */
const PAST_EVERY_TYPE = 40;

/**
 * `text × 10^scale` as a BigInt when it is an integer, else undefined; `text`
 * is a JSON number's text. Worked apart from the committer's readers
 * (`lib/table/exact-values.ts`): the decimal point is moved as text, by the
 * exponent plus the scale, and what falls right of it must be zeros.
 */
function scaledInteger(text: string, scale: number): bigint | undefined {
  const [mantissa = '', exponentText = '0'] = text.toLowerCase().split('e');
  const negative = mantissa.startsWith('-');
  const [intPart = '', fracPart = ''] = (negative ? mantissa.slice(1) : mantissa).split('.');
  const digits = intPart + fracPart;
  if (!/[1-9]/.test(digits)) return 0n;
  // The value is 0.<digits> × 10^point.
  const point = intPart.length + Number(exponentText) + scale;
  if (point > digits.length + PAST_EVERY_TYPE) return undefined;
  if (point <= 0) return undefined; // nonzero and below 1
  const whole = digits.padEnd(point, '0').slice(0, point);
  if (/[1-9]/.test(digits.slice(point))) return undefined;
  const value = BigInt(whole);
  return negative ? -value : value;
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
  const back = new Date(0);
  back.setUTCFullYear(Number(y), Number(mo) - 1, Number(d));
  back.setUTCHours(Number(h), Number(mi), Number(s), 0);
  const ms = back.getTime();
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

/** A top-level member's value as the scanner finds it: its kind and its exact source slice. */
type Member = {
  kind: 'string' | 'number' | 'boolean' | 'null' | 'object' | 'array';
  slice: string;
};

/** End (exclusive) of the string literal starting at `i` (a `"`). */
function stringEnd(text: string, i: number): number {
  let j = i + 1;
  for (;;) {
    const c = text.charCodeAt(j);
    if (c === 0x22) return j + 1;
    j += c === 0x5c ? 2 : 1;
  }
}

/** End (exclusive) of the value starting at `i`. */
function valueEnd(text: string, i: number): number {
  const c = text[i];
  if (c === '"') return stringEnd(text, i);
  if (c === '{' || c === '[') {
    let depth = 0;
    let j = i;
    while (j < text.length) {
      const d = text[j];
      if (d === '"') {
        j = stringEnd(text, j);
        continue;
      }
      if (d === '{' || d === '[') depth += 1;
      else if (d === '}' || d === ']') {
        depth -= 1;
        if (depth === 0) return j + 1;
      }
      j += 1;
    }
    return j;
  }
  let j = i;
  while (j < text.length && text[j] !== ',' && text[j] !== '}') j += 1;
  return j;
}

const KIND: Record<string, Member['kind']> = {
  '"': 'string',
  '{': 'object',
  '[': 'array',
  t: 'boolean',
  f: 'boolean',
  n: 'null',
};

/**
 * The wanted top-level members of a row's text. Rows are stored minified and
 * were validated as exact JSON on the way in (`lib/json`), so a scan of the
 * top level suffices: nested values are skipped, never parsed.
 */
function topLevelMembers(text: string, wanted: ReadonlySet<string>): Map<string, Member> {
  const out = new Map<string, Member>();
  if (text[0] !== '{') return out;
  let i = 1;
  while (i < text.length && text[i] !== '}') {
    const keyEnd = stringEnd(text, i);
    const raw = text.slice(i + 1, keyEnd - 1);
    const name = raw.includes('\\') ? (JSON.parse(text.slice(i, keyEnd)) as string) : raw;
    const start = keyEnd + 1;
    const end = valueEnd(text, start);
    if (wanted.has(name))
      out.set(name, { kind: KIND[text[start]!] ?? 'number', slice: text.slice(start, end) });
    i = text[end] === ',' ? end + 1 : end;
  }
  return out;
}

/** The exact typed value of `member`, or undefined when the type cannot hold it. */
function typedMember(type: string, member: Member): TypedValue | undefined {
  const string = () => JSON.parse(member.slice) as string;
  const decimal = decimalOf(type);
  if (decimal) {
    if (member.kind !== 'number') return undefined;
    const unscaled = scaledInteger(member.slice, decimal.scale);
    if (unscaled === undefined) return undefined;
    const bound = 10n ** BigInt(decimal.precision);
    return unscaled < bound && unscaled > -bound ? unscaled : undefined;
  }
  switch (type) {
    case 'string':
      return member.kind === 'string' ? string() : undefined;
    case 'boolean':
      return member.kind === 'boolean' ? member.slice === 'true' : undefined;
    case 'long': {
      if (member.kind !== 'number') return undefined;
      const n = scaledInteger(member.slice, 0);
      return n !== undefined && n >= LONG_MIN && n <= LONG_MAX ? n : undefined;
    }
    case 'double':
      return member.kind === 'number' && numberFitsDouble(member.slice)
        ? Number(member.slice)
        : undefined;
    case 'timestamptz':
      return member.kind === 'string' ? timestampMicros(string()) : undefined;
    case 'date':
      return member.kind === 'string' ? dateDays(string()) : undefined;
    default:
      return undefined;
  }
}

/** Projects `text` (a row's exact text; undefined for deletes) into `columns`. */
export function projectRowReference(
  columns: readonly TypedColumn[],
  text: string | undefined,
): Projection {
  const values: TypedValue[] = columns.map(() => null);
  const refused: string[] = [];
  if (columns.length === 0 || text === undefined) return { values, refused };
  const members = topLevelMembers(text, new Set(columns.map((c) => c.name)));
  columns.forEach((column, index) => {
    const member = members.get(column.name);
    if (member === undefined || member.kind === 'null') return;
    const value = typedMember(column.type, member);
    if (value === undefined) refused.push(column.name);
    else values[index] = value;
  });
  return { values, refused };
}
