/** Helpers of the exact JSON tests. */
import { expect } from 'vitest';
import type { ExactDocument, ExactValue } from '../../lib/json/exact-tree.js';

/** The error `fn` throws, checked to be an instance of `type`. */
export function caught<T extends Error>(
  type: abstract new (...args: never[]) => T,
  fn: () => unknown,
): T {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(type);
    return error as T;
  }
  throw new Error(`expected a ${type.name}, got none`);
}

/** What `JSON.parse` would give for `value` (numbers through Number, raw subtrees through JSON.parse). */
export function toPlain(document: ExactDocument, value: ExactValue): unknown {
  switch (value.kind) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const [name, member] of value.members) {
        // defineProperty: an own "__proto__" member must stay a member.
        Object.defineProperty(out, name, {
          value: toPlain(document, member),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      return out;
    }
    case 'array':
      return value.items.map((item) => toPlain(document, item));
    case 'number':
      return Number(value.text);
    case 'string':
    case 'boolean':
      return value.value;
    case 'null':
      return null;
    case 'raw':
      return JSON.parse(document.minified(value));
  }
}
