/**
 * Global secondary index entries and the write units a table write costs in
 * each index. Rules from "Using Global Secondary Indexes in DynamoDB",
 * sections "Write capacity units" and "Storage considerations" (archived
 * guide, awsdocs/amazon-dynamodb-developer-guide doc_source/GSI.md,
 * 2023-06-15; live at
 * https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/GSI.html):
 *
 * - a write that puts an item into the index (new item, or a previously
 *   undefined index key now defined) costs one index write;
 * - changing an indexed key attribute (A to B) costs two: a delete of the old
 *   entry and a put of the new one;
 * - a write that removes an index key attribute costs one (the delete);
 * - "If an item is not present in the index before or after the item is
 *   updated, there is no additional write cost for the index" (sparse index);
 * - changing only projected attributes costs one write; a write that does
 *   not require an index update costs nothing there;
 * - these assume entries up to 1 KB; "Larger index entries require
 *   additional write capacity units", so each index write is rounded by the
 *   entry's size like a table write;
 * - an entry's size for storage is the table's primary key + the index key +
 *   the projected attributes + 100 bytes of overhead.
 *
 * The 100-byte overhead is documented for storage only, so index write units
 * are computed from the entry size without it.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { writeUnits } from './dynamodb-units.js';
import { type Item, itemSize, STORAGE_OVERHEAD_BYTES } from './item-size.js';

/** Which attributes an index copies besides the keys. */
export const ProjectionType = {
  keysOnly: 'KEYS_ONLY',
  include: 'INCLUDE',
  all: 'ALL',
} as const;
export type ProjectionType = (typeof ProjectionType)[keyof typeof ProjectionType];

/** A global secondary index as DescribeTable reports it. */
export interface IndexSchema {
  name: string;
  /** Partition key, then sort key if any. */
  keyNames: readonly string[];
  projection: ProjectionType;
  /** Projected non-key attributes when `projection` is INCLUDE. */
  nonKeyAttributes: readonly string[];
}

/** A table's primary key and global secondary indexes. */
export interface TableSchema {
  tableName: string;
  /** Partition key, then sort key if any. */
  keyNames: readonly string[];
  indexes: readonly IndexSchema[];
}

/**
 * The entry `item` has in `index`, or undefined when the item lacks one of
 * the index key attributes (then it is not in the index at all).
 */
export function indexEntry(
  item: Item | undefined,
  index: IndexSchema,
  tableKeyNames: readonly string[],
): Item | undefined {
  if (!item) return undefined;
  if (index.keyNames.some((name) => item[name] === undefined)) return undefined;
  if (index.projection === ProjectionType.all) return { ...item };
  const names = new Set([...tableKeyNames, ...index.keyNames]);
  if (index.projection === ProjectionType.include) {
    for (const name of index.nonKeyAttributes) names.add(name);
  }
  const entry: Item = {};
  for (const name of names) {
    const value = item[name];
    if (value !== undefined) entry[name] = value;
  }
  return entry;
}

/** What one table write did to one index. */
export interface IndexWrite {
  /** Index write units consumed. */
  units: number;
  puts: number;
  deletes: number;
}

/** Index writes caused by a table write that turned `before` into `after` (undefined = absent). */
export function indexWriteUnits(
  before: Item | undefined,
  after: Item | undefined,
  index: IndexSchema,
  tableKeyNames: readonly string[],
): IndexWrite {
  const old = indexEntry(before, index, tableKeyNames);
  const now = indexEntry(after, index, tableKeyNames);
  if (!old && !now) return { units: 0, puts: 0, deletes: 0 };
  if (!old && now) return { units: writeUnits(itemSize(now)), puts: 1, deletes: 0 };
  if (old && !now) return { units: writeUnits(itemSize(old)), puts: 0, deletes: 1 };
  const [o, n] = [old!, now!];
  if (!sameValues(o, n, index.keyNames)) {
    return { units: writeUnits(itemSize(o)) + writeUnits(itemSize(n)), puts: 1, deletes: 1 };
  }
  if (canonical(o) === canonical(n)) return { units: 0, puts: 0, deletes: 0 };
  // Same index key, changed projection: one write, by the larger entry as for a table update.
  return { units: writeUnits(Math.max(itemSize(o), itemSize(n))), puts: 1, deletes: 0 };
}

/** Storage bytes of an index entry: entry size plus the per-entry overhead. */
export function indexEntryStorageBytes(entry: Item): number {
  return itemSize(entry) + STORAGE_OVERHEAD_BYTES;
}

function sameValues(a: Item, b: Item, names: readonly string[]): boolean {
  return names.every((name) => canonical({ v: a[name]! }) === canonical({ v: b[name]! }));
}

/** A deterministic rendering of an item: names sorted, binary as base64, set members sorted. */
export function canonical(item: Item): string {
  return JSON.stringify(normalizeItem(item));
}

function normalizeItem(item: Item): unknown[] {
  return Object.keys(item)
    .sort()
    .map((name) => [name, normalizeValue(item[name]!)]);
}

function normalizeValue(value: AttributeValue): unknown {
  const b64 = (b: Uint8Array) =>
    Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('base64');
  if (value.B !== undefined) return { B: b64(value.B) };
  if (value.SS !== undefined) return { SS: [...value.SS].sort() };
  if (value.NS !== undefined) return { NS: [...value.NS].sort() };
  if (value.BS !== undefined) return { BS: value.BS.map(b64).sort() };
  if (value.L !== undefined) return { L: value.L.map(normalizeValue) };
  if (value.M !== undefined) return { M: normalizeItem(value.M) };
  return value;
}
