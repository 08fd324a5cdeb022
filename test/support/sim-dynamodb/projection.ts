/**
 * ProjectionExpression (and UPDATED_OLD / UPDATED_NEW): a copy of the item
 * holding only the given paths. Nested paths keep their enclosing maps;
 * projected list elements keep their order, compacted, as DynamoDB returns them.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { cloneValue, type Item } from './attribute-values.js';
import { resolvePath } from './evaluate-condition.js';
import type { PathOperand } from './expression-ast.js';

/** A list under construction: elements by original index. */
interface SparseList {
  kind: 'list';
  elements: Map<number, Node>;
}
interface SparseMap {
  kind: 'map';
  entries: Map<string, Node>;
}
type Node = SparseList | SparseMap | { kind: 'leaf'; value: AttributeValue };

/** A deep copy of `item` restricted to `paths`. */
export function project(item: Item, paths: readonly PathOperand[]): Item {
  const root: SparseMap = { kind: 'map', entries: new Map() };
  for (const path of paths) {
    const value = resolvePath(item, path.elements);
    if (value === undefined) continue;
    let node: SparseMap | SparseList = root;
    path.elements.forEach((step, i) => {
      const last = i === path.elements.length - 1;
      const nextStep = path.elements[i + 1];
      const child: Node = last
        ? { kind: 'leaf', value }
        : typeof nextStep === 'number'
          ? { kind: 'list', elements: new Map() }
          : { kind: 'map', entries: new Map() };
      const existing =
        node.kind === 'map' ? node.entries.get(step as string) : node.elements.get(step as number);
      const target = existing && existing.kind !== 'leaf' && !last ? existing : child;
      if (node.kind === 'map') node.entries.set(step as string, target);
      else node.elements.set(step as number, target);
      if (target.kind !== 'leaf') node = target;
    });
  }
  const result: Item = {};
  for (const [name, node] of root.entries) result[name] = materialize(node);
  return result;
}

function materialize(node: Node): AttributeValue {
  if (node.kind === 'leaf') return cloneValue(node.value);
  if (node.kind === 'list') {
    const indexes = [...node.elements.keys()].sort((a, b) => a - b);
    return { L: indexes.map((i) => materialize(node.elements.get(i)!)) };
  }
  const map: Record<string, AttributeValue> = {};
  for (const [name, child] of node.entries) map[name] = materialize(child);
  return { M: map };
}
