/**
 * Parsed DynamoDB expressions. Attribute names are resolved at parse time
 * (`#name` placeholders included); `:value` placeholders stay symbolic so one
 * parse serves every request that sends the same expression.
 */

/** A document path: attribute names and list indexes, outermost first. */
export interface PathOperand {
  kind: 'path';
  elements: (string | number)[];
  /** As written, for error messages. */
  text: string;
}

/** A `:value` placeholder. */
export interface ValueOperand {
  kind: 'value';
  name: string;
}

/** `size(path)`. */
interface SizeOperand {
  kind: 'size';
  path: PathOperand;
}

/** An operand of a condition. */
export type Operand = PathOperand | ValueOperand | SizeOperand;

/** The comparison operators. */
export const COMPARATORS = ['=', '<>', '<', '<=', '>', '>='] as const;
/** One comparison operator. */
export type Comparator = (typeof COMPARATORS)[number];

/** A condition (ConditionExpression, FilterExpression, KeyConditionExpression). */
export type Condition =
  | { kind: 'compare'; op: Comparator; left: Operand; right: Operand }
  | { kind: 'between'; operand: Operand; lower: Operand; upper: Operand }
  | { kind: 'in'; operand: Operand; candidates: Operand[] }
  | { kind: 'and' | 'or'; left: Condition; right: Condition }
  | { kind: 'not'; condition: Condition }
  | { kind: 'attribute_exists' | 'attribute_not_exists'; path: PathOperand }
  | { kind: 'attribute_type'; path: PathOperand; type: Operand }
  | { kind: 'begins_with'; operand: Operand; prefix: Operand }
  | { kind: 'contains'; operand: Operand; needle: Operand };

/** An operand of an update's SET value. */
export type UpdateOperand =
  | PathOperand
  | ValueOperand
  | { kind: 'if_not_exists'; path: PathOperand; fallback: UpdateOperand }
  | { kind: 'list_append'; left: UpdateOperand; right: UpdateOperand };

/** The right-hand side of a SET action. */
export type SetValue =
  | UpdateOperand
  | { kind: '+' | '-'; left: UpdateOperand; right: UpdateOperand };

/** A parsed UpdateExpression, by clause. */
export interface UpdateActions {
  /** The clauses in the order written (the order their actions apply). */
  clauses: ('SET' | 'REMOVE' | 'ADD' | 'DELETE')[];
  set: { path: PathOperand; value: SetValue }[];
  remove: PathOperand[];
  add: { path: PathOperand; value: ValueOperand }[];
  delete: { path: PathOperand; value: ValueOperand }[];
}

/** A parse result with the placeholders it used (for the "unused placeholder" check). */
export interface Parsed<T> {
  ast: T;
  names: ReadonlySet<string>;
  values: ReadonlySet<string>;
}
