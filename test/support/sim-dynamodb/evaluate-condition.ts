/**
 * Evaluates a parsed condition against an item, as DynamoDB does: a
 * comparison with a missing attribute or of mismatched types is false (and
 * `<>` then true), never an error; the errors DynamoDB raises for a request
 * whatever the item holds (bad BETWEEN bounds, a bad attribute_type name) are
 * raised by `checkConditionValues` before any item is read.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import {
  type AttributeType,
  compareBytes,
  compareScalars,
  type Item,
  typeOf,
  valueSize,
  valuesEqual,
} from './attribute-values.js';
import type { Condition, Operand, ValueOperand } from './expression-ast.js';
import { validationError } from './sdk-errors.js';

/** The value at a document path, or undefined when any step is missing. */
export function resolvePath(
  item: Item,
  elements: readonly (string | number)[],
): AttributeValue | undefined {
  const head = elements[0] as string;
  let current = Object.hasOwn(item, head) ? item[head] : undefined;
  for (let i = 1; i < elements.length && current !== undefined; i++) {
    const step = elements[i]!;
    if (typeof step === 'number') current = current.L?.[step];
    else current = current.M && Object.hasOwn(current.M, step) ? current.M[step] : undefined;
  }
  return current;
}

function operandValue(
  operand: Operand,
  item: Item,
  values: Record<string, AttributeValue>,
): AttributeValue | undefined {
  if (operand.kind === 'value') return values[operand.name];
  if (operand.kind === 'path') return resolvePath(item, operand.elements);
  const target = resolvePath(item, operand.path.elements);
  const size = target === undefined ? undefined : sizeOf(target);
  return size === undefined ? undefined : { N: String(size) };
}

/** `size()`: bytes of a string or binary, elements of a set, list or map; undefined otherwise. */
function sizeOf(value: AttributeValue): number | undefined {
  if (value.S !== undefined || value.B !== undefined) return valueSize(value);
  const collection = value.SS ?? value.NS ?? value.BS ?? value.L;
  if (collection) return collection.length;
  return value.M ? Object.keys(value.M).length : undefined;
}

const ORDERED: ReadonlySet<AttributeType> = new Set(['S', 'N', 'B']);

function ordered(a: AttributeValue | undefined, b: AttributeValue | undefined): number | undefined {
  if (a === undefined || b === undefined) return undefined;
  const type = typeOf(a);
  if (type !== typeOf(b) || !ORDERED.has(type)) return undefined;
  return compareScalars(a, b);
}

/** True when `condition` holds for `item` (an absent item is `{}`). */
export function evaluateCondition(
  condition: Condition,
  item: Item,
  values: Record<string, AttributeValue>,
): boolean {
  switch (condition.kind) {
    case 'and':
      return (
        evaluateCondition(condition.left, item, values) &&
        evaluateCondition(condition.right, item, values)
      );
    case 'or':
      return (
        evaluateCondition(condition.left, item, values) ||
        evaluateCondition(condition.right, item, values)
      );
    case 'not':
      return !evaluateCondition(condition.condition, item, values);
    case 'attribute_exists':
      return resolvePath(item, condition.path.elements) !== undefined;
    case 'attribute_not_exists':
      return resolvePath(item, condition.path.elements) === undefined;
    case 'attribute_type': {
      const value = resolvePath(item, condition.path.elements);
      return value !== undefined && typeOf(value) === operandValue(condition.type, item, values)?.S;
    }
    case 'compare':
      return compare(
        condition.op,
        operandValue(condition.left, item, values),
        operandValue(condition.right, item, values),
      );
    case 'between': {
      const value = operandValue(condition.operand, item, values);
      const low = ordered(value, operandValue(condition.lower, item, values));
      const high = ordered(value, operandValue(condition.upper, item, values));
      return low !== undefined && high !== undefined && low >= 0 && high <= 0;
    }
    case 'in': {
      const value = operandValue(condition.operand, item, values);
      return (
        value !== undefined &&
        condition.candidates.some((candidate) => {
          const other = operandValue(candidate, item, values);
          return other !== undefined && valuesEqual(value, other);
        })
      );
    }
    case 'begins_with':
      return beginsWith(
        operandValue(condition.operand, item, values),
        operandValue(condition.prefix, item, values),
      );
    case 'contains':
      return contains(
        operandValue(condition.operand, item, values),
        operandValue(condition.needle, item, values),
      );
  }
}

function compare(
  op: string,
  a: AttributeValue | undefined,
  b: AttributeValue | undefined,
): boolean {
  if (op === '=') return a !== undefined && b !== undefined && valuesEqual(a, b);
  if (op === '<>') return !(a !== undefined && b !== undefined && valuesEqual(a, b));
  const order = ordered(a, b);
  if (order === undefined) return false;
  if (op === '<') return order < 0;
  if (op === '<=') return order <= 0;
  if (op === '>') return order > 0;
  return order >= 0;
}

function beginsWith(
  value: AttributeValue | undefined,
  prefix: AttributeValue | undefined,
): boolean {
  if (value?.S !== undefined && prefix?.S !== undefined) return value.S.startsWith(prefix.S);
  if (value?.B !== undefined && prefix?.B !== undefined) {
    return (
      value.B.length >= prefix.B.length &&
      compareBytes(value.B.subarray(0, prefix.B.length), prefix.B) === 0
    );
  }
  return false;
}

function contains(value: AttributeValue | undefined, needle: AttributeValue | undefined): boolean {
  if (value === undefined || needle === undefined) return false;
  if (value.S !== undefined) return needle.S !== undefined && value.S.includes(needle.S);
  if (value.B !== undefined) {
    return needle.B !== undefined && Buffer.from(value.B).includes(Buffer.from(needle.B));
  }
  if (value.SS !== undefined) return needle.S !== undefined && value.SS.includes(needle.S);
  if (value.NS !== undefined)
    return needle.N !== undefined && value.NS.some((n) => valuesEqual({ N: n }, needle));
  if (value.BS !== undefined)
    return needle.B !== undefined && value.BS.some((b) => valuesEqual({ B: b }, needle));
  if (value.L !== undefined) return value.L.some((element) => valuesEqual(element, needle));
  return false;
}

/** The value of a `:value` operand; undefined for paths and size(). */
function given(
  operand: Operand,
  values: Record<string, AttributeValue>,
): AttributeValue | undefined {
  return operand.kind === 'value' ? values[(operand as ValueOperand).name] : undefined;
}

const TYPE_NAMES: readonly string[] = ['S', 'N', 'B', 'NULL', 'SS', 'BOOL', 'L', 'BS', 'NS', 'M'];

/** The errors DynamoDB raises from a condition's values alone, before reading any item. */
export function checkConditionValues(
  condition: Condition,
  values: Record<string, AttributeValue>,
  label: string,
): void {
  switch (condition.kind) {
    case 'and':
    case 'or':
      checkConditionValues(condition.left, values, label);
      checkConditionValues(condition.right, values, label);
      return;
    case 'not':
      checkConditionValues(condition.condition, values, label);
      return;
    case 'between': {
      const lower = given(condition.lower, values);
      const upper = given(condition.upper, values);
      if (!lower || !upper) return;
      const show = (v: AttributeValue) => {
        const raw = Object.values(v)[0];
        return `AttributeValue: {${typeOf(v)}:${raw instanceof Uint8Array ? Buffer.from(raw).toString('base64') : raw}}`;
      };
      if (typeOf(lower) !== typeOf(upper)) {
        throw validationError(
          `Invalid ${label}: The BETWEEN operator requires same data type for lower and upper bounds; lower bound operand: ${show(lower)}, upper bound operand: ${show(upper)}`,
        );
      }
      if ((ordered(lower, upper) ?? 0) > 0) {
        throw validationError(
          `Invalid ${label}: The BETWEEN operator requires upper bound to be greater than or equal to lower bound; lower bound operand: ${show(lower)}, upper bound operand: ${show(upper)}`,
        );
      }
      return;
    }
    case 'attribute_type': {
      const type = given(condition.type, values);
      if (condition.type.kind !== 'value' || (type && type.S === undefined)) {
        throw validationError(
          `Invalid ${label}: Incorrect operand type for operator or function; operator or function: attribute_type, operand type: ${type ? typeOf(type) : 'path'}`,
        );
      }
      if (type?.S !== undefined && !TYPE_NAMES.includes(type.S)) {
        throw validationError(
          `Invalid ${label}: Invalid attribute type name found; type: ${type.S}, valid types: {B,NULL,SS,BOOL,L,BS,N,NS,S,M}`,
        );
      }
      return;
    }
    case 'begins_with':
      for (const operand of [condition.operand, condition.prefix]) {
        const value = given(operand, values);
        if (value && value.S === undefined && value.B === undefined) {
          throw validationError(
            `Invalid ${label}: Incorrect operand type for operator or function; operator or function: begins_with, operand type: ${typeOf(value)}`,
          );
        }
      }
      return;
    default:
      return;
  }
}
