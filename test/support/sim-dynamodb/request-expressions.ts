/**
 * The expressions of one request, parsed (through a cache: the same text and
 * names always parse the same), with DynamoDB's placeholder rules: every
 * `:value` used must be given, and every `#name` and `:value` given must be
 * used by some expression of the request; and the errors an expression's
 * values alone cause (a bad BETWEEN, an ADD of a string), raised in the order
 * DynamoDB checks the expressions.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { checkUpdateOperands } from './apply-update.js';
import { acceptValue } from './attribute-values.js';
import { parseCondition } from './condition-parser.js';
import { checkConditionValues } from './evaluate-condition.js';
import type { Condition, Parsed, PathOperand, UpdateActions } from './expression-ast.js';
import { validationError } from './sdk-errors.js';
import { parseProjection, parseUpdate } from './update-parser.js';

/** The expression parameters a request may carry. */
export interface ExpressionInput {
  ConditionExpression?: string;
  FilterExpression?: string;
  KeyConditionExpression?: string;
  UpdateExpression?: string;
  ProjectionExpression?: string;
  ExpressionAttributeNames?: Record<string, string>;
  ExpressionAttributeValues?: Record<string, AttributeValue>;
}

/** One request's parsed expressions and its (validated, canonical) values. */
export interface RequestExpressions {
  condition?: Condition;
  filter?: Condition;
  keyCondition?: Condition;
  update?: UpdateActions;
  projection?: PathOperand[];
  values: Record<string, AttributeValue>;
}

type ExpressionParam = Exclude<
  keyof ExpressionInput,
  'ExpressionAttributeNames' | 'ExpressionAttributeValues'
>;

const PARSERS: Record<
  ExpressionParam,
  (text: string, names: Record<string, string> | undefined) => Parsed<unknown>
> = {
  ConditionExpression: (text, names) => parseCondition(text, 'ConditionExpression', names),
  FilterExpression: (text, names) => parseCondition(text, 'FilterExpression', names),
  KeyConditionExpression: (text, names) => parseCondition(text, 'KeyConditionExpression', names),
  UpdateExpression: parseUpdate,
  ProjectionExpression: parseProjection,
};

const FIELDS: Record<ExpressionParam, keyof Omit<RequestExpressions, 'values'>> = {
  ConditionExpression: 'condition',
  FilterExpression: 'filter',
  KeyConditionExpression: 'keyCondition',
  UpdateExpression: 'update',
  ProjectionExpression: 'projection',
};

const ORDER: readonly ExpressionParam[] = [
  'UpdateExpression',
  'ConditionExpression',
  'KeyConditionExpression',
  'FilterExpression',
  'ProjectionExpression',
];

const cache = new Map<string, Parsed<unknown>>();
/** Randomized tests make many distinct expressions; a bounded cache keeps memory flat. */
const MAX_CACHED = 20_000;

function parseCached(
  param: ExpressionParam,
  text: string,
  names: Record<string, string> | undefined,
): Parsed<unknown> {
  const key = `${param}\u0001${text}\u0001${names ? JSON.stringify(names) : ''}`;
  let parsed = cache.get(key);
  if (!parsed) {
    parsed = PARSERS[param](text, names);
    if (cache.size >= MAX_CACHED) cache.clear();
    cache.set(key, parsed);
  }
  return parsed;
}

/**
 * Parses the expressions among `allowed` that `input` carries. Throws
 * ValidationException as DynamoDB does for a malformed expression, a
 * missing, unused or invalid placeholder.
 */
export function requestExpressions(
  input: ExpressionInput,
  allowed: readonly ExpressionParam[],
): RequestExpressions {
  const names = input.ExpressionAttributeNames;
  const rawValues = input.ExpressionAttributeValues;
  const present = allowed.filter((param) => input[param] !== undefined && input[param] !== null);
  if (names !== undefined)
    checkPlaceholderKeys(names, 'ExpressionAttributeNames', /^#[0-9a-zA-Z_]+$/);
  if (rawValues !== undefined) {
    checkPlaceholderKeys(rawValues, 'ExpressionAttributeValues', /^:[0-9a-zA-Z_]+$/);
  }
  if (names !== undefined && present.length === 0) {
    throw validationError('ExpressionAttributeNames can only be specified when using expressions');
  }
  const valueParams = allowed.filter((param) => param !== 'ProjectionExpression');
  if (rawValues !== undefined && !valueParams.some((param) => present.includes(param))) {
    throw validationError(
      `ExpressionAttributeValues can only be specified when using expressions: ${valueParams.join(' and ')} ${valueParams.length > 1 ? 'are' : 'is'} null`,
    );
  }
  const values: Record<string, AttributeValue> = {};
  for (const [key, value] of Object.entries(rawValues ?? {})) {
    try {
      values[key] = acceptValue(value);
    } catch (error) {
      throw validationError(
        `ExpressionAttributeValues contains invalid value: ${(error as Error).message} for key ${key}`,
      );
    }
  }
  const result: RequestExpressions = { values };
  const usedNames = new Set<string>();
  const usedValues = new Set<string>();
  // DynamoDB reports the first bad expression in this order, whatever the request's field order.
  for (const param of ORDER.filter((p) => present.includes(p))) {
    const parsed = parseCached(param, input[param] as string, names);
    for (const value of parsed.values) {
      if (values[value] === undefined) {
        throw validationError(
          `Invalid ${param}: An expression attribute value used in expression is not defined; attribute value: ${value}`,
        );
      }
      usedValues.add(value);
    }
    for (const name of parsed.names) usedNames.add(name);
    if (param === 'UpdateExpression') checkUpdateOperands(parsed.ast as UpdateActions, values);
    else if (param !== 'ProjectionExpression') {
      checkConditionValues(parsed.ast as Condition, values, param);
    }
    (result as unknown as Record<string, unknown>)[FIELDS[param]] = parsed.ast;
  }
  const unusedNames = Object.keys(names ?? {}).filter((name) => !usedNames.has(name));
  if (unusedNames.length > 0) {
    throw validationError(
      `Value provided in ExpressionAttributeNames unused in expressions: keys: {${unusedNames.join(', ')}}`,
    );
  }
  const unusedValues = Object.keys(values).filter((value) => !usedValues.has(value));
  if (unusedValues.length > 0) {
    throw validationError(
      `Value provided in ExpressionAttributeValues unused in expressions: keys: {${unusedValues.join(', ')}}`,
    );
  }
  return result;
}

function checkPlaceholderKeys(map: object, what: string, pattern: RegExp): void {
  const keys = Object.keys(map);
  if (keys.length === 0) throw validationError(`${what} must not be empty`);
  const bad = keys.find((key) => !pattern.test(key));
  if (bad !== undefined) {
    throw validationError(`${what} contains invalid key: Syntax error; key: "${bad}"`);
  }
}
