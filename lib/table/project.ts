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
 *
 * The committer projects every row it commits, so a `Projector` reads a row
 * in one pass over its text: the top level is walked once (nested values
 * skipped by bracket depth, strings by their closing quote), the wanted
 * members are remembered by position, and each is read in place
 * (`exact-values.ts`); no `JSON.parse` of the row, no slice but a string
 * column's value.
 */

import { numberFitsDouble } from '../json/exact-number.js';
import { dateDays, scaledInteger, scaledSmall, timestampMicros } from './exact-values.js';
import { decimalOf, type TypedColumn } from './schema.js';

/** A projected value as the Parquet writer takes it. */
export type TypedValue = string | number | bigint | boolean | null;

/** The projection of one row. */
export interface Projection {
  values: TypedValue[];
  /** Names of the columns whose value could not be stored exactly. */
  refused: string[];
}

const LONG_MIN = -(2n ** 63n);
const LONG_MAX = 2n ** 63n - 1n;
const NO_REFUSALS: string[] = [];

const Kind = { string: 0, number: 1, boolean: 2, null: 3, object: 4, array: 5 } as const;
type Kind = (typeof Kind)[keyof typeof Kind];

function kindAt(c: number): Kind {
  if (c === 0x22) return Kind.string;
  if (c === 0x7b) return Kind.object;
  if (c === 0x5b) return Kind.array;
  if (c === 0x74 || c === 0x66) return Kind.boolean;
  if (c === 0x6e) return Kind.null;
  return Kind.number;
}

/** End (exclusive) of the string literal starting at `i` (a `"`). */
function stringEnd(text: string, i: number): number {
  let j = text.indexOf('"', i + 1);
  for (;;) {
    if (j === -1) return text.length;
    // The quote closes the string unless an odd run of backslashes escapes it.
    let k = j - 1;
    while (text.charCodeAt(k) === 0x5c) k--;
    if ((j - 1 - k) % 2 === 0) return j + 1;
    j = text.indexOf('"', j + 1);
  }
}

/** End (exclusive) of the value starting at `i`. */
function valueEnd(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c === 0x22) return stringEnd(text, i);
  if (c === 0x7b || c === 0x5b) {
    let depth = 0;
    let j = i;
    while (j < text.length) {
      const d = text.charCodeAt(j);
      if (d === 0x22) {
        j = stringEnd(text, j);
        continue;
      }
      if (d === 0x7b || d === 0x5b) depth += 1;
      else if (d === 0x7d || d === 0x5d) {
        depth -= 1;
        if (depth === 0) return j + 1;
      }
      j += 1;
    }
    return j;
  }
  let j = i;
  while (j < text.length) {
    const d = text.charCodeAt(j);
    if (d === 0x2c || d === 0x7d) break;
    j += 1;
  }
  return j;
}

/** A column's type, decided once. */
type ColumnReader =
  | { type: 'decimal'; precision: number; scale: number; bound: bigint; smallBound: number }
  | { type: 'string' | 'boolean' | 'long' | 'double' | 'timestamptz' | 'date' | 'unknown' };

function readerOf(type: string): ColumnReader {
  const decimal = decimalOf(type);
  if (decimal) {
    return {
      type: 'decimal',
      ...decimal,
      bound: 10n ** BigInt(decimal.precision),
      smallBound: 10 ** Math.min(decimal.precision, 16),
    };
  }
  switch (type) {
    case 'string':
    case 'boolean':
    case 'long':
    case 'double':
    case 'timestamptz':
    case 'date':
      return { type };
    default:
      return { type: 'unknown' };
  }
}

/** True when `text[from, to)` holds a backslash (an escape). */
function hasEscape(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (text.charCodeAt(i) === 0x5c) return true;
  return false;
}

/** A string member's value: its text between the quotes, unescaped only when it has an escape. */
function stringValue(text: string, start: number, end: number): string {
  return hasEscape(text, start + 1, end - 1)
    ? (JSON.parse(text.slice(start, end)) as string)
    : text.slice(start + 1, end - 1);
}

/** The exact typed value of the member at `text[start, end)`, or undefined when the type cannot hold it. */
function typedMember(
  reader: ColumnReader,
  kind: Kind,
  text: string,
  start: number,
  end: number,
): TypedValue | undefined {
  switch (reader.type) {
    case 'decimal': {
      if (kind !== Kind.number) return undefined;
      const small = scaledSmall(text, start, end, reader.scale);
      if (small === undefined) return undefined;
      if (!Number.isNaN(small)) {
        return small < reader.smallBound && small > -reader.smallBound ? BigInt(small) : undefined;
      }
      const unscaled = scaledInteger(text.slice(start, end), reader.scale);
      if (unscaled === undefined) return undefined;
      return unscaled < reader.bound && unscaled > -reader.bound ? unscaled : undefined;
    }
    case 'string':
      return kind === Kind.string ? stringValue(text, start, end) : undefined;
    case 'boolean':
      return kind === Kind.boolean ? text.charCodeAt(start) === 0x74 : undefined;
    case 'long': {
      if (kind !== Kind.number) return undefined;
      const small = scaledSmall(text, start, end, 0);
      if (small === undefined) return undefined;
      if (!Number.isNaN(small)) return BigInt(small);
      const n = scaledInteger(text.slice(start, end), 0);
      return n !== undefined && n >= LONG_MIN && n <= LONG_MAX ? n : undefined;
    }
    case 'double': {
      if (kind !== Kind.number) return undefined;
      const slice = text.slice(start, end);
      return numberFitsDouble(slice) ? Number(slice) : undefined;
    }
    case 'timestamptz': {
      if (kind !== Kind.string) return undefined;
      if (!hasEscape(text, start, end)) return timestampMicros(text, start + 1, end - 1);
      const value = stringValue(text, start, end);
      return timestampMicros(value, 0, value.length);
    }
    case 'date': {
      if (kind !== Kind.string) return undefined;
      if (!hasEscape(text, start, end)) return dateDays(text, start + 1, end - 1);
      const value = stringValue(text, start, end);
      return dateDays(value, 0, value.length);
    }
    default:
      return undefined;
  }
}

/**
 * Projects rows into a fixed list of typed columns. Rows are stored minified
 * and were validated as exact JSON on the way in (`lib/json`), so a scan of
 * the top level suffices; a member named twice takes its last value, as
 * `JSON.parse` would.
 */
export class Projector {
  readonly #columns: readonly TypedColumn[];
  readonly #readers: ColumnReader[];
  /** Column indexes by name length (index), then name, for a match without slicing the member's name. */
  readonly #byLength: Array<Array<[string, number]> | undefined> = [];
  readonly #byName = new Map<string, number>();
  /** Per column, the last member found in the current row: start (-1: none) and end. */
  readonly #starts: Int32Array;
  readonly #ends: Int32Array;

  constructor(columns: readonly TypedColumn[]) {
    this.#columns = columns;
    this.#readers = columns.map((c) => readerOf(c.type));
    columns.forEach((column, index) => {
      const same = this.#byLength[column.name.length] ?? [];
      same.push([column.name, index]);
      this.#byLength[column.name.length] = same;
      this.#byName.set(column.name, index);
    });
    this.#starts = new Int32Array(columns.length);
    this.#ends = new Int32Array(columns.length);
  }

  /** Projects `text` (a row's exact text; undefined for deletes). */
  project(text: string | undefined): Projection {
    const count = this.#columns.length;
    const values: TypedValue[] = new Array(count).fill(null);
    if (count === 0 || text === undefined) return { values, refused: NO_REFUSALS };
    this.#find(text);
    let refused = NO_REFUSALS;
    for (let index = 0; index < count; index++) {
      const value = this.#value(text, index);
      if (value === undefined) {
        if (refused === NO_REFUSALS) refused = [];
        refused.push(this.#columns[index]!.name);
      } else values[index] = value;
    }
    return { values, refused };
  }

  /**
   * `project`, appending each column's value to `out[column]` (null when
   * absent or refused) and counting refusals in `refused` by column name:
   * the committer's form, with nothing allocated per row but the values.
   */
  projectInto(
    text: string | undefined,
    out: readonly TypedValue[][],
    refused: Record<string, number>,
  ): void {
    const count = this.#columns.length;
    if (count === 0) return;
    if (text === undefined) {
      for (let index = 0; index < count; index++) out[index]!.push(null);
      return;
    }
    this.#find(text);
    for (let index = 0; index < count; index++) {
      const value = this.#value(text, index);
      if (value === undefined) {
        const name = this.#columns[index]!.name;
        refused[name] = (refused[name] ?? 0) + 1;
        out[index]!.push(null);
      } else out[index]!.push(value);
    }
  }

  /** Column `index`'s value in `text` (after `#find`): null when absent or JSON null, undefined when refused. */
  #value(text: string, index: number): TypedValue | undefined {
    const start = this.#starts[index]!;
    if (start < 0) return null;
    const kind = kindAt(text.charCodeAt(start));
    if (kind === Kind.null) return null;
    return typedMember(this.#readers[index]!, kind, text, start, this.#ends[index]!);
  }

  /** Walks the top level of `text`, remembering where each wanted member's value is. */
  #find(text: string): void {
    this.#starts.fill(-1);
    if (text.charCodeAt(0) !== 0x7b) return;
    // Most rows hold no escape at all: then no member name needs decoding.
    const escapes = text.indexOf('\\') !== -1;
    let i = 1;
    while (i < text.length && text.charCodeAt(i) !== 0x7d) {
      const keyEnd = stringEnd(text, i);
      const start = keyEnd + 1;
      const end = valueEnd(text, start);
      const index = this.#wanted(text, i + 1, keyEnd - 1, escapes);
      if (index >= 0) {
        this.#starts[index] = start;
        this.#ends[index] = end;
      }
      i = text.charCodeAt(end) === 0x2c ? end + 1 : end;
    }
  }

  /** The column index of the member name at `text[from, to)` (its raw text between the quotes; `escapes` when the row holds any), or -1. */
  #wanted(text: string, from: number, to: number, escapes: boolean): number {
    if (escapes && hasEscape(text, from, to)) {
      const name = JSON.parse(text.slice(from - 1, to + 1)) as string;
      return this.#byName.get(name) ?? -1;
    }
    const same = this.#byLength[to - from];
    if (same === undefined) return -1;
    for (let k = 0; k < same.length; k++) {
      const [name, index] = same[k]!;
      if (text.startsWith(name, from)) return index;
    }
    return -1;
  }
}

/** Projects `text` (a row's exact text; undefined for deletes) into `columns`. */
export function projectRow(columns: readonly TypedColumn[], text: string | undefined): Projection {
  return new Projector(columns).project(text);
}
