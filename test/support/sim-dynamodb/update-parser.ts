/**
 * The UpdateExpression grammar and the ProjectionExpression list.
 *
 *   update    := clause {clause}, each of SET / REMOVE / ADD / DELETE at most once, any order
 *   SET       := path = value {, path = value}
 *   value     := operand | operand + operand | operand - operand
 *   operand   := path | :value | if_not_exists(path, operand) | list_append(operand, operand)
 *   REMOVE    := path {, path}
 *   ADD       := path :value {, path :value}     (DELETE alike)
 *   projection := path {, path}
 * No two paths of one update (or projection) may overlap.
 */
import type {
  Parsed,
  PathOperand,
  SetValue,
  UpdateActions,
  UpdateOperand,
} from './expression-ast.js';
import { checkDistinctPaths, ExpressionReader } from './expression-reader.js';

const CLAUSES = ['SET', 'REMOVE', 'ADD', 'DELETE'] as const;

/** Parses an UpdateExpression; throws ValidationException when it is malformed. */
export function parseUpdate(
  text: string,
  attributeNames: Record<string, string> | undefined,
): Parsed<UpdateActions> {
  const reader = new ExpressionReader(text, 'UpdateExpression', attributeNames);
  const actions: UpdateActions = { clauses: [], set: [], remove: [], add: [], delete: [] };
  const seen = new Set<string>();
  do {
    const clause = CLAUSES.find((c) => reader.atKeyword(c)) ?? reader.fail();
    reader.next();
    if (seen.has(clause)) {
      reader.defer(
        'operand',
        `The "${clause}" section can only be used once in an update expression;`,
      );
    }
    seen.add(clause);
    actions.clauses.push(clause);
    do {
      const path = reader.path();
      if (clause === 'SET') {
        reader.expectSymbol('=');
        actions.set.push({ path, value: setValue(reader) });
      } else if (clause === 'REMOVE') {
        actions.remove.push(path);
      } else if (clause === 'ADD') {
        actions.add.push({ path, value: reader.value() });
      } else {
        actions.delete.push({ path, value: reader.value() });
      }
    } while (reader.acceptSymbol(','));
  } while (reader.peek().kind !== 'end');
  checkDistinctPaths(reader, [
    ...actions.set.map((a) => a.path),
    ...actions.remove,
    ...actions.add.map((a) => a.path),
    ...actions.delete.map((a) => a.path),
  ]);
  reader.finish();
  return { ast: actions, names: reader.names, values: reader.values };
}

function setValue(reader: ExpressionReader): SetValue {
  const left = operand(reader);
  for (const op of ['+', '-'] as const) {
    if (reader.acceptSymbol(op)) return { kind: op, left, right: operand(reader) };
  }
  return left;
}

function operand(reader: ExpressionReader): UpdateOperand {
  const token = reader.peek();
  if (token.kind === 'value') return reader.value();
  if (!(token.kind === 'word' && reader.atSymbol('(', 1))) return reader.path();
  reader.next();
  reader.next();
  const args = [operand(reader)];
  while (reader.acceptSymbol(',')) args.push(operand(reader));
  reader.expectSymbol(')');
  const name = token.text;
  if (name !== 'if_not_exists' && name !== 'list_append') {
    reader.defer('unknownFunction', `Invalid function name; function: ${name}`);
    return args[0]!;
  }
  if (args.length !== 2) {
    reader.defer(
      'operand',
      `Incorrect number of operands for operator or function; operator or function: ${name}, number of operands: ${args.length}`,
    );
    return args[0]!;
  }
  const [first, second] = args as [UpdateOperand, UpdateOperand];
  if (name === 'list_append') return { kind: 'list_append', left: first, right: second };
  if (first.kind !== 'path') {
    reader.defer(
      'operand',
      'Operator or function requires a document path; operator or function: if_not_exists',
    );
    return second;
  }
  return { kind: 'if_not_exists', path: first, fallback: second };
}

/** Parses a ProjectionExpression into its paths. */
export function parseProjection(
  text: string,
  attributeNames: Record<string, string> | undefined,
): Parsed<PathOperand[]> {
  const reader = new ExpressionReader(text, 'ProjectionExpression', attributeNames);
  const paths = [reader.path()];
  while (reader.acceptSymbol(',')) paths.push(reader.path());
  checkDistinctPaths(reader, paths);
  reader.finish();
  return { ast: paths, names: reader.names, values: reader.values };
}
