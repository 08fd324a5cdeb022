/**
 * Applies a parsed UpdateExpression. Every SET value is computed from the
 * item as it was before the update (so `SET a = b, b = a` swaps), then the
 * clauses are applied, in the order written, to a copy: the stored item is never mutated, which is
 * what lets a failed update leave no trace and readers hold no live refs.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { type Item, typeOf, valuesEqual } from './attribute-values.js';
import { addNumbers } from './decimal.js';
import { resolvePath } from './evaluate-condition.js';
import type { PathOperand, SetValue, UpdateActions, UpdateOperand } from './expression-ast.js';
import { validationError } from './sdk-errors.js';

const WRONG_TYPE = 'An operand in the update expression has an incorrect data type';
const MISSING = 'The provided expression refers to an attribute that does not exist in the item';
const BAD_PATH = 'The document path provided in the update expression is invalid for update';

/** The paths an update touches (what UPDATED_OLD / UPDATED_NEW return). */
export function updatedPaths(actions: UpdateActions): PathOperand[] {
  return [
    ...actions.set.map((a) => a.path),
    ...actions.remove,
    ...actions.add.map((a) => a.path),
    ...actions.delete.map((a) => a.path),
  ];
}

/** Key attributes are not updatable: DynamoDB refuses the request whatever the item holds. */
export function checkKeyUpdates(actions: UpdateActions, keyNames: readonly string[]): void {
  for (const path of updatedPaths(actions)) {
    const head = path.elements[0] as string;
    if (!keyNames.includes(head)) continue;
    throw validationError(
      path.elements.length > 1
        ? `Key attributes must be scalars; list random access '[]' and map lookup '.' are not allowed: Key: ${head}`
        : `One or more parameter values were invalid: Cannot update attribute ${head}. This attribute is part of the key`,
    );
  }
}

/**
 * The errors DynamoDB raises from an update's values alone, before reading
 * the item: ADD takes a number or a set, DELETE a set, `+`/`-` numbers and
 * `list_append` lists.
 */
export function checkUpdateOperands(
  actions: UpdateActions,
  values: Record<string, AttributeValue>,
): void {
  const operandType = (operator: string, value: AttributeValue, allowed: string[]) => {
    if (!allowed.includes(typeOf(value))) {
      throw validationError(
        `Invalid UpdateExpression: Incorrect operand type for operator or function; operator: ${operator}, operand type: ${TYPE_WORDS[typeOf(value)] ?? typeOf(value)}`,
      );
    }
  };
  for (const { value } of actions.add)
    operandType('ADD', values[value.name]!, ['N', 'SS', 'NS', 'BS']);
  for (const { value } of actions.delete)
    operandType('DELETE', values[value.name]!, ['SS', 'NS', 'BS']);
  const visit = (operand: UpdateOperand | SetValue, required?: 'N' | 'L') => {
    if (operand.kind === 'value') {
      const value = values[operand.name]!;
      if (required && typeOf(value) !== required) {
        const fn = required === 'N' ? '+/-' : 'list_append';
        throw validationError(
          `Invalid UpdateExpression: Incorrect operand type for operator or function; operator or function: ${fn}, operand type: ${typeOf(value)}`,
        );
      }
    } else if (operand.kind === '+' || operand.kind === '-') {
      visit(operand.left, 'N');
      visit(operand.right, 'N');
    } else if (operand.kind === 'list_append') {
      visit(operand.left, 'L');
      visit(operand.right, 'L');
    } else if (operand.kind === 'if_not_exists') {
      visit(operand.fallback, required);
    }
  };
  for (const { value } of actions.set) visit(value);
}

const TYPE_WORDS: Partial<Record<string, string>> = {
  S: 'STRING',
  N: 'NUMBER',
  B: 'BINARY',
  NULL: 'NULL',
  BOOL: 'BOOLEAN',
  L: 'LIST',
  M: 'MAP',
};

/**
 * The item after `actions`, from `old` (or just `key` when there is no item).
 * Undefined when the item did not exist and the update only removes (REMOVE,
 * DELETE): DynamoDB then creates nothing (an empty update does create it) (dynalite would create a key-only item; see
 * scylladb/scylladb#5862 for the DynamoDB behaviour).
 */
export function applyUpdate(
  old: Item | undefined,
  key: Item,
  actions: UpdateActions,
  values: Record<string, AttributeValue>,
): Item | undefined {
  const before = old ?? key;
  const computed = actions.set.map(({ path, value }) => ({
    path,
    value: setValue(value, before, values),
  }));
  const onlyRemoves =
    computed.length === 0 &&
    actions.add.length === 0 &&
    actions.remove.length + actions.delete.length > 0;
  if (!old && onlyRemoves) return undefined;
  let item: Item = { ...before };
  // Clauses apply in the order written (as dynalite applies them).
  for (const clause of actions.clauses) {
    if (clause === 'SET') {
      for (const { path, value } of computed) item = change(item, path, () => value);
    } else if (clause === 'REMOVE') {
      for (const path of actions.remove) item = change(item, path, () => undefined);
    } else if (clause === 'ADD') {
      for (const { path, value } of actions.add) {
        item = change(item, path, (existing) => add(existing, values[value.name]!));
      }
    } else {
      for (const { path, value } of actions.delete) {
        item = change(item, path, (existing) => remove(existing, values[value.name]!));
      }
    }
  }
  return item;
}

function setValue(
  value: SetValue,
  item: Item,
  values: Record<string, AttributeValue>,
): AttributeValue {
  if (value.kind === '+' || value.kind === '-') {
    // Operands are checked left to right: a wrong left type is reported before a missing right.
    const left = setValue(value.left, item, values);
    if (left.N === undefined) throw validationError(WRONG_TYPE);
    const right = setValue(value.right, item, values);
    if (right.N === undefined) throw validationError(WRONG_TYPE);
    return { N: addNumbers(left.N, right.N, value.kind === '-') };
  }
  if (value.kind === 'value') return values[value.name]!;
  if (value.kind === 'path') {
    const found = resolvePath(item, value.elements);
    if (found === undefined) throw validationError(MISSING);
    return found;
  }
  if (value.kind === 'if_not_exists') {
    return resolvePath(item, value.path.elements) ?? setValue(value.fallback, item, values);
  }
  const left = setValue(value.left, item, values);
  if (left.L === undefined) throw validationError(WRONG_TYPE);
  const right = setValue(value.right, item, values);
  if (right.L === undefined) throw validationError(WRONG_TYPE);
  return { L: [...left.L, ...right.L] };
}

function add(existing: AttributeValue | undefined, value: AttributeValue): AttributeValue {
  if (existing === undefined) return value;
  const type = typeOf(value);
  if (typeOf(existing) !== type) throw validationError(WRONG_TYPE);
  if (type === 'N') return { N: addNumbers(existing.N!, value.N!) };
  return setOf(type, [...members(existing), ...members(value)]);
}

function remove(
  existing: AttributeValue | undefined,
  value: AttributeValue,
): AttributeValue | undefined {
  if (existing === undefined) return undefined;
  const type = typeOf(value);
  if (typeOf(existing) !== type) throw validationError(WRONG_TYPE);
  const drop = members(value);
  const kept = members(existing).filter((m) => !drop.some((d) => valuesEqual(m, d)));
  return kept.length === 0 ? undefined : setOf(type, kept);
}

/** Set elements as scalar AttributeValues. */
function members(set: AttributeValue): AttributeValue[] {
  if (set.SS) return set.SS.map((S) => ({ S }));
  if (set.NS) return set.NS.map((N) => ({ N }));
  return set.BS!.map((B) => ({ B }));
}

function setOf(type: string, elements: AttributeValue[]): AttributeValue {
  const unique = elements.filter((e, i) => !elements.slice(0, i).some((f) => valuesEqual(e, f)));
  if (type === 'SS') return { SS: unique.map((e) => e.S!) };
  if (type === 'NS') return { NS: unique.map((e) => e.N!) };
  return { BS: unique.map((e) => e.B!) };
}

/**
 * A copy of `item` with the value at `path` replaced by `fn(current)`
 * (undefined removes it). Containers on the way are copied, never mutated.
 */
function change(
  item: Item,
  path: PathOperand,
  fn: (current: AttributeValue | undefined) => AttributeValue | undefined,
): Item {
  const [head, ...rest] = path.elements as [string, ...(string | number)[]];
  const current = Object.hasOwn(item, head) ? item[head] : undefined;
  const next = rest.length === 0 ? fn(current) : changeIn(current, rest, fn);
  if (next === undefined) {
    const { [head]: _removed, ...others } = item;
    return others;
  }
  return { ...item, [head]: next };
}

function changeIn(
  container: AttributeValue | undefined,
  steps: (string | number)[],
  fn: (current: AttributeValue | undefined) => AttributeValue | undefined,
): AttributeValue {
  const [step, ...rest] = steps as [string | number, ...(string | number)[]];
  if (typeof step === 'number') {
    if (container?.L === undefined) throw validationError(BAD_PATH);
    const list = [...container.L];
    const next = rest.length === 0 ? fn(list[step]) : changeIn(list[step], rest, fn);
    if (next === undefined) {
      if (step < list.length) list.splice(step, 1);
    } else if (step < list.length) {
      list[step] = next;
    } else {
      // DynamoDB appends an element set past the end of a list.
      list.push(next);
    }
    return { L: list };
  }
  if (container?.M === undefined) throw validationError(BAD_PATH);
  const map = { ...container.M };
  const current = Object.hasOwn(map, step) ? map[step] : undefined;
  const next = rest.length === 0 ? fn(current) : changeIn(current, rest, fn);
  if (next === undefined) delete map[step];
  else map[step] = next;
  return { M: map };
}
