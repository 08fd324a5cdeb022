/**
 * AttributeValues as DynamoDB treats them: one type tag per value, numbers
 * canonical, strings ordered by UTF-8 bytes, binaries by bytes, sets
 * unordered. Stored values are never mutated after they are stored (every
 * write builds new objects), so only what crosses the API boundary is copied.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { canonicalNumber, compareNumbers, significantDigits } from './decimal.js';
import { validationError } from './sdk-errors.js';

/** A raw DynamoDB item. */
export type Item = Record<string, AttributeValue>;

/** The type tags of AttributeValue. */
const ATTRIBUTE_TYPES = ['S', 'N', 'B', 'SS', 'NS', 'BS', 'M', 'L', 'NULL', 'BOOL'] as const;
/** One type tag. */
export type AttributeType = (typeof ATTRIBUTE_TYPES)[number];
const ATTRIBUTE_TAGS: ReadonlySet<string> = new Set(ATTRIBUTE_TYPES);

/** The type tag of a (validated) value. */
export function typeOf(value: AttributeValue): AttributeType {
  if (value.S !== undefined) return 'S';
  if (value.N !== undefined) return 'N';
  if (value.B !== undefined) return 'B';
  if (value.M !== undefined) return 'M';
  if (value.L !== undefined) return 'L';
  if (value.SS !== undefined) return 'SS';
  if (value.NS !== undefined) return 'NS';
  if (value.BS !== undefined) return 'BS';
  if (value.BOOL !== undefined) return 'BOOL';
  return 'NULL';
}

/** Orders strings by their UTF-8 bytes (= code points), which is how DynamoDB sorts and compares them. */
function compareUtf8(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // UTF-16 puts U+E000..U+FFFF above surrogates; code-point order puts them below.
    return codePointRank(x) < codePointRank(y) ? -1 : 1;
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

function codePointRank(unit: number): number {
  if (unit >= 0xd800 && unit <= 0xdfff) return unit + 0x2000;
  return unit >= 0xe000 ? unit - 0x800 : unit;
}

/** Orders byte strings lexicographically. */
export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

/** Orders two scalars of the same type `S`, `N` or `B`. */
export function compareScalars(a: AttributeValue, b: AttributeValue): number {
  if (a.S !== undefined) return compareUtf8(a.S, b.S!);
  if (a.N !== undefined) return compareNumbers(a.N, b.N!);
  return compareBytes(a.B!, b.B!);
}

function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && compareBytes(a, b) === 0;
}

/** DynamoDB's `=`: same type and same value; sets compare as sets, lists in order, maps by key. */
export function valuesEqual(a: AttributeValue, b: AttributeValue): boolean {
  const type = typeOf(a);
  if (type !== typeOf(b)) return false;
  switch (type) {
    case 'S':
      return a.S === b.S;
    case 'N':
      return compareNumbers(a.N!, b.N!) === 0;
    case 'B':
      return bytesEqual(a.B!, b.B!);
    case 'BOOL':
      return a.BOOL === b.BOOL;
    case 'NULL':
      return true;
    case 'SS':
      return a.SS!.length === b.SS!.length && a.SS!.every((s) => b.SS!.includes(s));
    case 'NS':
      return (
        a.NS!.length === b.NS!.length &&
        a.NS!.every((x) => b.NS!.some((y) => compareNumbers(x, y) === 0))
      );
    case 'BS':
      return (
        a.BS!.length === b.BS!.length && a.BS!.every((x) => b.BS!.some((y) => bytesEqual(x, y)))
      );
    case 'L':
      return a.L!.length === b.L!.length && a.L!.every((x, i) => valuesEqual(x, b.L![i]!));
    case 'M': {
      const keys = Object.keys(a.M!);
      if (keys.length !== Object.keys(b.M!).length) return false;
      return keys.every((k) => b.M![k] !== undefined && valuesEqual(a.M![k]!, b.M![k]!));
    }
  }
}

/** A deep copy, so a caller never holds a reference into the store. */
export function cloneValue(value: AttributeValue): AttributeValue {
  if (value.S !== undefined) return { S: value.S };
  if (value.N !== undefined) return { N: value.N };
  if (value.B !== undefined) return { B: new Uint8Array(value.B) };
  if (value.M !== undefined) return { M: cloneItem(value.M) };
  if (value.L !== undefined) return { L: value.L.map(cloneValue) };
  if (value.SS !== undefined) return { SS: [...value.SS] };
  if (value.NS !== undefined) return { NS: [...value.NS] };
  if (value.BS !== undefined) return { BS: value.BS.map((b) => new Uint8Array(b)) };
  if (value.BOOL !== undefined) return { BOOL: value.BOOL };
  return { NULL: true };
}

/** A deep copy of an item. */
export function cloneItem(item: Item): Item {
  const copy: Item = {};
  for (const name of Object.keys(item)) copy[name] = cloneValue(item[name]!);
  return copy;
}

function toBytes(value: unknown): Uint8Array {
  // The SDK serializer also accepts a string for a binary, as its UTF-8 bytes.
  if (typeof value === 'string') return new TextEncoder().encode(value);
  if (value instanceof Uint8Array) return new Uint8Array(value);
  throw validationError('Supplied AttributeValue has an invalid binary value');
}

function noDuplicates<T>(values: T[], same: (a: T, b: T) => boolean, what: string): T[] {
  if (values.length === 0) {
    throw validationError(
      `One or more parameter values were invalid: An ${what} set  may not be empty`,
    );
  }
  for (let i = 1; i < values.length; i++) {
    if (values.slice(0, i).some((earlier) => same(earlier, values[i]!))) {
      throw validationError('Input collection contains duplicates');
    }
  }
  return values;
}

/**
 * Checks a value from a request and returns the copy the store keeps:
 * exactly one type, numbers canonical, sets non-empty and duplicate-free.
 */
export function acceptValue(value: AttributeValue | undefined): AttributeValue {
  const present: AttributeType[] = [];
  for (const type in value ?? {}) {
    const tag = type as AttributeType;
    if (
      ATTRIBUTE_TAGS.has(tag) &&
      (value as unknown as Record<string, unknown>)[tag] !== undefined
    ) {
      present.push(tag);
    }
  }
  if (present.length === 0) {
    throw validationError(
      'Supplied AttributeValue is empty, must contain exactly one of the supported datatypes',
    );
  }
  if (present.length > 1) {
    throw validationError(
      'Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes',
    );
  }
  const v = value!;
  switch (present[0]!) {
    case 'S':
      return { S: String(v.S) };
    case 'N':
      return { N: canonicalNumber(String(v.N)) };
    case 'B':
      return { B: toBytes(v.B) };
    case 'BOOL':
      return { BOOL: Boolean(v.BOOL) };
    case 'NULL':
      if (v.NULL !== true) {
        throw validationError(
          'One or more parameter values were invalid: Null attribute value types must have the value of true',
        );
      }
      return { NULL: true };
    case 'SS':
      return { SS: noDuplicates([...v.SS!].map(String), (a, b) => a === b, 'string') };
    case 'NS': {
      const numbers = v.NS!.map((n) => canonicalNumber(String(n)));
      return { NS: noDuplicates(numbers, (a, b) => a === b, 'number') };
    }
    case 'BS':
      return { BS: noDuplicates(v.BS!.map(toBytes), bytesEqual, 'binary') };
    case 'L':
      return { L: v.L!.map(acceptValue) };
    case 'M':
      return { M: acceptItem(v.M!) };
  }
}

/** `acceptValue` for every attribute of an item. */
export function acceptItem(item: Record<string, AttributeValue>): Item {
  const copy: Item = {};
  for (const name of Object.keys(item)) {
    if (item[name] !== undefined) copy[name] = acceptValue(item[name]);
  }
  return copy;
}

const utf8 = new TextEncoder();

function utf8Length(text: string): number {
  // ASCII fast path: one byte per code unit.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the ASCII range is the point
  return /^[\x00-\x7f]*$/.test(text) ? text.length : utf8.encode(text).length;
}

/** Bytes of a value by DynamoDB's published item-size rules (an estimate for numbers). */
export function valueSize(value: AttributeValue): number {
  if (value.S !== undefined) return utf8Length(value.S);
  if (value.N !== undefined) return Math.ceil(significantDigits(value.N) / 2) + 1;
  if (value.B !== undefined) return value.B.length;
  if (value.SS !== undefined) return value.SS.reduce((n, s) => n + utf8Length(s), 0);
  if (value.NS !== undefined) return value.NS.reduce((n, x) => n + valueSize({ N: x }), 0);
  if (value.BS !== undefined) return value.BS.reduce((n, b) => n + b.length, 0);
  if (value.L !== undefined) return value.L.reduce((n, v) => n + 1 + valueSize(v), 3);
  if (value.M !== undefined) return 3 + itemSize(value.M) + Object.keys(value.M).length;
  return 1;
}

/** Bytes of an item: attribute names plus values (DynamoDB's 400 KB limit applies to this). */
export function itemSize(item: Item): number {
  let size = 0;
  for (const name of Object.keys(item)) size += utf8Length(name) + valueSize(item[name]!);
  return size;
}

/** DynamoDB's item size limit (400 KB). */
export const MAX_ITEM_BYTES = 400 * 1024;
