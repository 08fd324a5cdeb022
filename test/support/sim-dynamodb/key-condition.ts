/**
 * A Query's KeyConditionExpression reduced to what it selects: one hash key
 * value and at most one range condition (=, <, <=, >, >=, BETWEEN,
 * begins_with), with DynamoDB's errors for anything else.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { compareScalars, type Item, typeOf } from './attribute-values.js';
import type { Comparator, Condition, Operand } from './expression-ast.js';
import { validationError } from './sdk-errors.js';
import type { KeySchema } from './table-schema.js';

/** The range part of a key condition. */
export type RangeCondition =
  | { op: Exclude<Comparator, '<>'>; value: AttributeValue }
  | { op: 'between'; lower: AttributeValue; upper: AttributeValue }
  | { op: 'begins_with'; prefix: AttributeValue };

/** What a key condition selects. */
export interface KeySelection {
  hash: AttributeValue;
  range?: RangeCondition;
}

const FLIPPED: Record<string, Exclude<Comparator, '<>'>> = {
  '=': '=',
  '<': '>',
  '<=': '>=',
  '>': '<',
  '>=': '<=',
};

const invalid = (message: string) => validationError(`Invalid KeyConditionExpression: ${message}`);

/** Reduces `condition` against `key`; throws ValidationException as DynamoDB does. */
export function selectKeys(
  condition: Condition,
  key: KeySchema,
  values: Record<string, AttributeValue>,
): KeySelection {
  const leaves: Condition[] = [];
  const collect = (c: Condition) => {
    if (c.kind === 'and') {
      collect(c.left);
      collect(c.right);
    } else {
      leaves.push(c);
    }
  };
  collect(condition);
  const found = new Map<string, RangeCondition>();
  for (const leaf of leaves) {
    const [name, range] = leafCondition(leaf, values);
    if (found.has(name))
      throw invalid('KeyConditionExpressions must only contain one condition per key');
    found.set(name, range);
  }
  const hash = found.get(key.hash.name);
  if (!hash) throw validationError(`Query condition missed key schema element: ${key.hash.name}`);
  const range = key.range ? found.get(key.range.name) : undefined;
  if (found.size !== (range ? 2 : 1)) throw validationError('Query key condition not supported');
  if (hash.op !== '=') throw validationError('Query key condition not supported');
  const typed = (value: AttributeValue, type: string) => {
    if (typeOf(value) !== type) {
      throw validationError(
        'One or more parameter values were invalid: Condition parameter type does not match schema type',
      );
    }
  };
  typed(hash.value, key.hash.type);
  if (range && key.range) {
    for (const value of rangeValues(range)) typed(value, key.range.type);
  }
  return range ? { hash: hash.value, range } : { hash: hash.value };
}

function rangeValues(range: RangeCondition): AttributeValue[] {
  if (range.op === 'between') return [range.lower, range.upper];
  if (range.op === 'begins_with') return [range.prefix];
  return [range.value];
}

function leafCondition(
  leaf: Condition,
  values: Record<string, AttributeValue>,
): [string, RangeCondition] {
  const keyName = (operand: Operand): string | undefined => {
    if (operand.kind === 'size')
      throw invalid('KeyConditionExpressions cannot contain nested operations');
    if (operand.kind !== 'path') return undefined;
    if (operand.elements.length > 1) {
      throw invalid('KeyConditionExpressions cannot have conditions on nested attributes');
    }
    return operand.elements[0] as string;
  };
  const value = (operand: Operand): AttributeValue => {
    if (operand.kind !== 'value') {
      throw invalid('Multiple attribute names used in one condition');
    }
    return values[operand.name]!;
  };
  switch (leaf.kind) {
    case 'compare': {
      if (leaf.op === '<>') throw invalid('Invalid operator used in KeyConditionExpression: <>');
      const left = keyName(leaf.left);
      if (left !== undefined) return [left, { op: leaf.op, value: value(leaf.right) }];
      const right = keyName(leaf.right);
      if (right === undefined) throw invalid('No key attribute specified');
      return [right, { op: FLIPPED[leaf.op]!, value: value(leaf.left) }];
    }
    case 'between': {
      const name = keyName(leaf.operand);
      if (name === undefined) {
        throw invalid('BETWEEN operator must have the key attribute as its first operand');
      }
      return [name, { op: 'between', lower: value(leaf.lower), upper: value(leaf.upper) }];
    }
    case 'begins_with': {
      const name = keyName(leaf.operand);
      if (name === undefined) {
        throw invalid('begins_with operator must have the key attribute as its first operand');
      }
      return [name, { op: 'begins_with', prefix: value(leaf.prefix) }];
    }
    case 'or':
    case 'not':
    case 'in':
      throw validationError(
        `Invalid operator used in KeyConditionExpression: ${leaf.kind.toUpperCase()}`,
      );
    default:
      throw validationError(`Invalid operator used in KeyConditionExpression: ${leaf.kind}`);
  }
}

/**
 * The bounds of `range` over a partition's entries, as two monotone tests for
 * a binary search: `below(entry)` holds for entries before the selection,
 * `beyond(entry)` for entries after it.
 */
export function rangeBounds(
  range: RangeCondition | undefined,
  attribute: string | undefined,
): { below: (entry: Item) => boolean; beyond: (entry: Item) => boolean } {
  if (!range || !attribute) return { below: () => false, beyond: () => false };
  const cmp = (entry: Item, value: AttributeValue) => compareScalars(entry[attribute]!, value);
  switch (range.op) {
    case '=':
      return { below: (e) => cmp(e, range.value) < 0, beyond: (e) => cmp(e, range.value) > 0 };
    case '<':
      return { below: () => false, beyond: (e) => cmp(e, range.value) >= 0 };
    case '<=':
      return { below: () => false, beyond: (e) => cmp(e, range.value) > 0 };
    case '>':
      return { below: (e) => cmp(e, range.value) <= 0, beyond: () => false };
    case '>=':
      return { below: (e) => cmp(e, range.value) < 0, beyond: () => false };
    case 'between':
      return { below: (e) => cmp(e, range.lower) < 0, beyond: (e) => cmp(e, range.upper) > 0 };
    case 'begins_with':
      return {
        below: (e) => cmp(e, range.prefix) < 0,
        beyond: (e) => cmp(e, range.prefix) > 0 && !startsWith(e[attribute]!, range.prefix),
      };
  }
}

function startsWith(value: AttributeValue, prefix: AttributeValue): boolean {
  if (value.S !== undefined) return value.S.startsWith(prefix.S ?? '\u0000');
  if (value.B === undefined || prefix.B === undefined || value.B.length < prefix.B.length) {
    return false;
  }
  return compareScalars({ B: value.B.subarray(0, prefix.B.length) }, prefix) === 0;
}
