/**
 * One table's items: partitions by hash key, each sorted by range key, plus
 * every global secondary index kept in step on each write (strongly
 * consistent, unlike DynamoDB's eventually consistent GSIs; see memory-dynamodb.ts).
 *
 * Scan order follows dynalite exactly (partitions ordered by a 6-hex-digit
 * MD5 prefix of the hash key, then by its bytes), so Scan pages of the two are
 * comparable item for item; it is as arbitrary-looking as DynamoDB's own.
 */
import { createHash } from 'node:crypto';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { compareScalars, type Item, itemSize } from './attribute-values.js';
import { type IndexSchema, type KeySchema, keyToken, type TableSchema } from './table-schema.js';

/** The items sharing one hash key value, ascending by range key. */
export interface Partition {
  hash: AttributeValue;
  /** Sort token of the partition in Scan order. */
  token: string;
  items: Item[];
}

/** First position in `items` (sorted by `compare`) whose entry is not below `probe`. */
export function lowerBound<T>(items: readonly T[], compare: (entry: T) => number): number {
  let lo = 0;
  let hi = items.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compare(items[mid]!) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Position of `probe` in `items` (sorted by `order`): the first entry not below it. */
function searchBy<T>(items: readonly T[], order: (a: T, b: T) => number, probe: T): number {
  let lo = 0;
  let hi = items.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (order(items[mid]!, probe) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function hashBytes(value: AttributeValue): Buffer {
  return value.B !== undefined
    ? Buffer.from(value.B)
    : Buffer.from(value.S ?? value.N ?? '', 'utf8');
}

function scanToken(value: AttributeValue): string {
  const bytes = hashBytes(value);
  const prefix = createHash('md5').update('Outliers').update(bytes).digest('hex').slice(0, 6);
  return prefix + bytes.toString('hex');
}

/** Orders items of one partition (same hash key) by their range key, if any. */
function rangeOrder(key: KeySchema): (a: Item, b: Item) => number {
  const range = key.range?.name;
  return range ? (a, b) => compareScalars(a[range]!, b[range]!) : () => 0;
}

/** A sorted collection of partitions keyed by the hash value of `key`. */
export class Partitions {
  readonly #key: KeySchema;
  readonly #order: (a: Item, b: Item) => number;
  readonly #byHash = new Map<string, Partition>();
  #scanOrder: Partition[] | undefined;

  constructor(key: KeySchema, order: (a: Item, b: Item) => number) {
    this.#key = key;
    this.#order = order;
  }

  /** The partition of `hash`, if it holds any item. */
  get(hash: AttributeValue): Partition | undefined {
    return this.#byHash.get(keyToken(hash));
  }

  /** Inserts `item`, replacing the entry the order finds equal; returns the replaced entry. */
  insert(item: Item): Item | undefined {
    const hash = item[this.#key.hash.name]!;
    const token = keyToken(hash);
    let partition = this.#byHash.get(token);
    if (!partition) {
      partition = { hash, token: scanToken(hash), items: [] };
      this.#byHash.set(token, partition);
      this.#scanOrder = undefined;
    }
    const at = searchBy(partition.items, this.#order, item);
    const found = partition.items[at];
    if (found && this.#order(found, item) === 0) {
      partition.items[at] = item;
      return found;
    }
    partition.items.splice(at, 0, item);
    return undefined;
  }

  /** Removes the entry equal to `probe`; returns it. */
  remove(probe: Item): Item | undefined {
    const token = keyToken(probe[this.#key.hash.name]!);
    const partition = this.#byHash.get(token);
    if (!partition) return undefined;
    const at = searchBy(partition.items, this.#order, probe);
    const found = partition.items[at];
    if (!found || this.#order(found, probe) !== 0) return undefined;
    partition.items.splice(at, 1);
    if (partition.items.length === 0) {
      this.#byHash.delete(token);
      this.#scanOrder = undefined;
    }
    return found;
  }

  /** Where a partition of `hash` sorts in Scan order (whether or not it exists). */
  tokenOf(hash: AttributeValue): string {
    return this.get(hash)?.token ?? scanToken(hash);
  }

  /** Partitions in Scan order. */
  scanOrder(): Partition[] {
    this.#scanOrder ??= [...this.#byHash.values()].sort((a, b) =>
      a.token < b.token ? -1 : a.token > b.token ? 1 : 0,
    );
    return this.#scanOrder;
  }
}

/** One global secondary index: entries are the table's own (immutable) items. */
export class IndexStore {
  readonly schema: IndexSchema;
  readonly partitions: Partitions;
  /** Orders entries of one index partition. */
  readonly order: (a: Item, b: Item) => number;

  constructor(schema: IndexSchema, table: KeySchema) {
    this.schema = schema;
    const byIndexRange = rangeOrder(schema.key);
    const byTableHash = (a: Item, b: Item) =>
      compareScalars(a[table.hash.name]!, b[table.hash.name]!);
    const byTableRange = rangeOrder(table);
    // Index range, then the table key: entries with equal index keys stay distinct.
    this.order = (a, b) => byIndexRange(a, b) || byTableHash(a, b) || byTableRange(a, b);
    this.partitions = new Partitions(schema.key, this.order);
  }

  /** True when `item` carries every key attribute of this index (a sparse index skips the rest). */
  covers(item: Item): boolean {
    const { hash, range } = this.schema.key;
    return Object.hasOwn(item, hash.name) && (!range || Object.hasOwn(item, range.name));
  }
}

/** A table's data. */
export class TableStore {
  readonly schema: TableSchema;
  /** Orders items of one partition. */
  get order(): (a: Item, b: Item) => number {
    return this.#order;
  }
  /** The TTL setting recorded by UpdateTimeToLive. */
  ttl: { attributeName: string; enabled: boolean } | undefined;
  readonly partitions: Partitions;
  readonly indexes = new Map<string, IndexStore>();
  readonly #order: (a: Item, b: Item) => number;
  #count = 0;

  constructor(schema: TableSchema) {
    this.schema = schema;
    this.#order = rangeOrder(schema.key);
    this.partitions = new Partitions(schema.key, this.#order);
    for (const index of schema.indexes.values()) {
      this.indexes.set(index.name, new IndexStore(index, schema.key));
    }
  }

  /** Number of items. */
  get count(): number {
    return this.#count;
  }

  /** The item with `key` (a validated key), or undefined. */
  get(key: Item): Item | undefined {
    const partition = this.partitions.get(key[this.schema.key.hash.name]!);
    if (!partition) return undefined;
    const at = searchBy(partition.items, this.#order, key);
    const found = partition.items[at];
    return found && this.#order(found, key) === 0 ? found : undefined;
  }

  /** Stores `item` (which the store now owns and never mutates); returns the item it replaced. */
  put(item: Item): Item | undefined {
    const old = this.partitions.insert(item);
    if (!old) this.#count++;
    this.#reindex(old, item);
    return old;
  }

  /** Deletes the item with `key`; returns it. */
  delete(key: Item): Item | undefined {
    const old = this.partitions.remove(key);
    if (old) {
      this.#count--;
      this.#reindex(old, undefined);
    }
    return old;
  }

  /** Total item bytes (DescribeTable's TableSizeBytes). */
  sizeBytes(): number {
    let bytes = 0;
    for (const partition of this.partitions.scanOrder()) {
      for (const item of partition.items) bytes += itemSize(item);
    }
    return bytes;
  }

  #reindex(old: Item | undefined, item: Item | undefined): void {
    for (const index of this.indexes.values()) {
      if (old && index.covers(old)) index.partitions.remove(old);
      if (item && index.covers(item)) index.partitions.insert(item);
    }
  }
}
