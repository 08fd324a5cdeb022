/**
 * The condition grammar (ConditionExpression, FilterExpression,
 * KeyConditionExpression), with DynamoDB's precedence, loosest first:
 * OR, AND, NOT, then a comparison, BETWEEN, IN or a function; parentheses
 * group. Keywords are case-insensitive; function names are not.
 *
 *   condition := operand comparator operand
 *              | operand BETWEEN operand AND operand
 *              | operand IN ( operand {, operand} )
 *              | function ( operand {, operand} )
 *              | condition AND condition | condition OR condition
 *              | NOT condition | ( condition )
 *   operand   := path | :value | size ( path )
 */
import {
  COMPARATORS,
  type Comparator,
  type Condition,
  type Operand,
  type Parsed,
  type PathOperand,
} from './expression-ast.js';
import { ExpressionReader } from './expression-reader.js';

/** Boolean functions and how many operands each takes. */
const CONDITION_FUNCTIONS: Record<string, number> = {
  attribute_exists: 1,
  attribute_not_exists: 1,
  attribute_type: 2,
  begins_with: 2,
  contains: 2,
};
/** DynamoDB's cap on the operands of IN. */
const MAX_IN_OPERANDS = 100;

/** Parses a condition; throws ValidationException naming `label` when it is malformed. */
export function parseCondition(
  text: string,
  label: string,
  attributeNames: Record<string, string> | undefined,
): Parsed<Condition> {
  const reader = new ExpressionReader(text, label, attributeNames);
  const ast = or(reader);
  reader.finish();
  return { ast, names: reader.names, values: reader.values };
}

function or(reader: ExpressionReader): Condition {
  let left = and(reader);
  while (reader.atKeyword('OR')) {
    reader.next();
    left = { kind: 'or', left, right: and(reader) };
  }
  return left;
}

function and(reader: ExpressionReader): Condition {
  let left = not(reader);
  while (reader.atKeyword('AND')) {
    reader.next();
    left = { kind: 'and', left, right: not(reader) };
  }
  return left;
}

function not(reader: ExpressionReader): Condition {
  // NOT applies to one comparison, function or parenthesized group: `NOT NOT a` is a syntax error.
  if (reader.atKeyword('NOT')) {
    reader.next();
    return { kind: 'not', condition: primary(reader) };
  }
  return primary(reader);
}

function primary(reader: ExpressionReader): Condition {
  if (reader.atSymbol('(')) {
    // `(a) = :v`: a parenthesized operand, if a comparison follows; a group otherwise.
    const mark = reader.mark();
    try {
      const left = operand(reader);
      if (atComparison(reader)) return comparison(reader, left);
    } catch {
      // Not an operand: parse a group below.
    }
    reader.reset(mark);
    const open = reader.position;
    reader.next();
    const inner = or(reader);
    const close = reader.position;
    reader.expectSymbol(')');
    reader.group(open, close);
    return inner;
  }
  const head = reader.peek();
  if (head.kind === 'word' && reader.atSymbol('(', 1) && head.text !== 'size') {
    const condition = functionCondition(reader);
    if (!atComparison(reader)) return condition;
    reader.defer(
      'misusedFunction',
      `The function is not allowed to be used this way in an expression; function: ${head.text}`,
    );
    return comparison(reader, { kind: 'path', elements: [], text: head.text });
  }
  const left = operand(reader);
  if (atComparison(reader)) return comparison(reader, left);
  if (left.kind === 'size') {
    reader.defer(
      'misusedFunction',
      'The function is not allowed to be used this way in an expression; function: size',
    );
    return { kind: 'attribute_exists', path: left.path };
  }
  return reader.fail();
}

function atComparison(reader: ExpressionReader): boolean {
  const next = reader.peek();
  return (
    (next.kind === 'symbol' && (COMPARATORS as readonly string[]).includes(next.text)) ||
    reader.atKeyword('BETWEEN') ||
    reader.atKeyword('IN')
  );
}

/** The rest of a comparison, BETWEEN or IN whose first operand is `left`. */
function comparison(reader: ExpressionReader, left: Operand): Condition {
  const next = reader.next();
  if (next.kind === 'symbol') {
    const right = operand(reader);
    if (left.kind === 'path' && right.kind === 'path' && samePath(left, right)) {
      reader.defer(
        'operand',
        `The first operand must be distinct from the remaining operands for this operator or function; operator: ${next.text}, first operand: [${left.elements.join(', ')}]`,
      );
    }
    return { kind: 'compare', op: next.text as Comparator, left, right };
  }
  if (next.text.toUpperCase() === 'BETWEEN') {
    const lower = operand(reader);
    reader.expectKeyword('AND');
    return { kind: 'between', operand: left, lower, upper: operand(reader) };
  }
  reader.expectSymbol('(');
  const candidates = [operand(reader)];
  while (reader.acceptSymbol(',')) candidates.push(operand(reader));
  reader.expectSymbol(')');
  if (candidates.length > MAX_IN_OPERANDS) {
    reader.defer(
      'operand',
      `Too many operands for IN; maximum is ${MAX_IN_OPERANDS}, got ${candidates.length}`,
    );
  }
  return { kind: 'in', operand: left, candidates };
}

function functionCondition(reader: ExpressionReader): Condition {
  const name = reader.next().text;
  reader.expectSymbol('(');
  const args = [operand(reader)];
  while (reader.acceptSymbol(',')) args.push(operand(reader));
  reader.expectSymbol(')');
  const arity = CONDITION_FUNCTIONS[name];
  if (arity === undefined) {
    reader.defer('unknownFunction', `Invalid function name; function: ${name}`);
    return { kind: 'attribute_exists', path: { kind: 'path', elements: [], text: name } };
  }
  if (args.length !== arity) {
    reader.defer(
      'operand',
      `Incorrect number of operands for operator or function; operator or function: ${name}, number of operands: ${args.length}`,
    );
  }
  const [first, second] = args as [Operand, Operand | undefined];
  const path = (): PathOperand => {
    if (first.kind === 'path') return first;
    reader.defer(
      'operand',
      `Operator or function requires a document path; operator or function: ${name}`,
    );
    return { kind: 'path', elements: [], text: name };
  };
  switch (name) {
    case 'attribute_exists':
    case 'attribute_not_exists':
      return { kind: name, path: path() };
    case 'attribute_type':
      return { kind: 'attribute_type', path: path(), type: second ?? first };
    case 'begins_with':
      return { kind: 'begins_with', operand: first, prefix: second ?? first };
    default:
      return { kind: 'contains', operand: first, needle: second ?? first };
  }
}

function operand(reader: ExpressionReader): Operand {
  if (reader.acceptSymbol('(')) {
    const inner = operand(reader);
    reader.expectSymbol(')');
    return inner;
  }
  const token = reader.peek();
  if (token.kind === 'value') return reader.value();
  if (token.kind === 'word' && reader.atSymbol('(', 1)) {
    reader.next();
    reader.next();
    const path = reader.path();
    reader.expectSymbol(')');
    if (token.text !== 'size') {
      const known = CONDITION_FUNCTIONS[token.text] !== undefined;
      reader.defer(
        known ? 'misusedFunction' : 'unknownFunction',
        known
          ? `The function is not allowed to be used this way in an expression; function: ${token.text}`
          : `Invalid function name; function: ${token.text}`,
      );
    }
    return { kind: 'size', path };
  }
  return reader.path();
}

function samePath(a: PathOperand, b: PathOperand): boolean {
  return a.elements.length === b.elements.length && a.elements.every((e, i) => e === b.elements[i]);
}
