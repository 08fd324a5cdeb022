/**
 * DynamoDB item size, the quantity every capacity unit and storage byte is
 * billed by. Rules from "DynamoDB item sizes and formats", Amazon DynamoDB
 * Developer Guide,
 * https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/CapacityUnitCalculations.html
 * (read 2026-11-30; the same text is in the archived guide,
 * awsdocs/amazon-dynamodb-developer-guide doc_source/CapacityUnitCalculations.md, 2023-06-15):
 *
 * - the size of an item is the sum of its attribute names' UTF-8 bytes and
 *   its values' sizes;
 * - S: UTF-8 bytes; B: raw bytes (not base64); BOOL and NULL: 1 byte;
 * - N: "approximately 1 byte per two significant digits, plus 1 byte",
 *   leading and trailing zeroes trimmed (see `numberSize`);
 * - L and M: 3 bytes of overhead, plus each element's size, plus 1 byte per
 *   element (a map element's size includes its name);
 * - storage: plus 100 bytes of per-item overhead (`STORAGE_OVERHEAD_BYTES`).
 *
 * The page states no rule for sets; SS, NS and BS are taken as the sum of
 * their elements by the S, N and B rules, with no per-element overhead.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { InvalidInputError } from '../../../lib/errors.js';

/** A raw DynamoDB item. */
export type Item = Record<string, AttributeValue>;

/** Bytes of per-item (and per-index-entry) storage overhead ("100 bytes ... for indexing"). */
export const STORAGE_OVERHEAD_BYTES = 100;

const CONTAINER_OVERHEAD_BYTES = 3;
const ELEMENT_OVERHEAD_BYTES = 1;

/** UTF-8 byte length of `text` (what names and S values are billed by). */
function utf8Bytes(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/**
 * Size of an N value: ceil(significant digits / 2) + 1, after trimming the
 * sign, the decimal point, the exponent and leading and trailing zeroes. The
 * docs call this approximate; it is the documented rule, not a model of the
 * internal encoding.
 */
export function numberSize(value: string): number {
  const match = /^[+-]?(\d*)(?:\.(\d*))?(?:[eE][+-]?\d+)?$/.exec(value.trim());
  if (!match || (match[1] === '' && (match[2] ?? '') === '')) {
    throw new InvalidInputError('N', `expected a decimal number, got ${JSON.stringify(value)}`);
  }
  const digits = `${match[1]}${match[2] ?? ''}`.replace(/^0+/, '').replace(/0+$/, '');
  return Math.ceil(digits.length / 2) + 1;
}

/** Size of one attribute value (without its name). */
export function valueSize(value: AttributeValue): number {
  if (value.S !== undefined) return utf8Bytes(value.S);
  if (value.N !== undefined) return numberSize(value.N);
  if (value.B !== undefined) return value.B.byteLength;
  if (value.BOOL !== undefined || value.NULL !== undefined) return 1;
  if (value.SS !== undefined) return sum(value.SS.map(utf8Bytes));
  if (value.NS !== undefined) return sum(value.NS.map(numberSize));
  if (value.BS !== undefined) return sum(value.BS.map((b) => b.byteLength));
  if (value.L !== undefined) {
    return (
      CONTAINER_OVERHEAD_BYTES + sum(value.L.map((v) => valueSize(v) + ELEMENT_OVERHEAD_BYTES))
    );
  }
  if (value.M !== undefined) {
    return (
      CONTAINER_OVERHEAD_BYTES +
      sum(Object.entries(value.M).map(([n, v]) => attributeSize(n, v) + ELEMENT_OVERHEAD_BYTES))
    );
  }
  throw new InvalidInputError('AttributeValue', `unknown type in ${JSON.stringify(value)}`);
}

/** Size of one named attribute: name bytes plus value size. */
export function attributeSize(name: string, value: AttributeValue): number {
  return utf8Bytes(name) + valueSize(value);
}

/** Size of an item as DynamoDB bills reads and writes of it. */
export function itemSize(item: Item): number {
  return sum(Object.entries(item).map(([name, value]) => attributeSize(name, value)));
}

/** Bytes an item occupies for storage billing: its size plus the per-item overhead. */
export function itemStorageBytes(item: Item): number {
  return itemSize(item) + STORAGE_OVERHEAD_BYTES;
}

function sum(values: readonly number[]): number {
  let total = 0;
  for (const v of values) total += v;
  return total;
}
