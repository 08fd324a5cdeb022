/**
 * `compareKeyIds` order with each id decoded once: `compareKeyIds` parses
 * both string ids on every call, which a sort of n keys or a writer checking
 * n entries would do O(n log n) or 2n times. Here an id becomes its sort
 * value once (`keyOrder`), and values compare exactly as `compareKeyIds`
 * compares their ids.
 */
import type { KeyId } from './key-id.js';

/** A key id's place in `compareKeyIds` order. */
export interface KeyOrder {
  /** A string key (these sort after every number key). */
  string: boolean;
  /** A string key's value, or a number key's id text. */
  value: string;
}

/** The sort value of `id`: the string key's value (decoded once), or the number key's text. */
export function keyOrder(id: KeyId): KeyOrder {
  if (!id.startsWith('"')) return { string: false, value: id };
  // Without a backslash a string literal's value is what lies between its quotes.
  const value = id.includes('\\') ? (JSON.parse(id) as string) : id.slice(1, -1);
  return { string: true, value };
}

/** Compares two sort values; the same sign as `compareKeyIds` of their ids. */
export function compareKeyOrders(a: KeyOrder, b: KeyOrder): number {
  if (a.string !== b.string) return a.string ? 1 : -1;
  return a.value < b.value ? -1 : a.value > b.value ? 1 : 0;
}

/** `entries` sorted by key id in `compareKeyIds` order (each id decoded once). */
export function sortByKeyId<T>(entries: Iterable<[KeyId, T]>): Array<[KeyId, T]> {
  const decorated: Array<{ order: KeyOrder; entry: [KeyId, T] }> = [];
  for (const entry of entries) decorated.push({ order: keyOrder(entry[0]), entry });
  decorated.sort((a, b) => compareKeyOrders(a.order, b.order));
  return decorated.map(({ entry }) => entry);
}
