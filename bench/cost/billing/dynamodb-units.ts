/**
 * DynamoDB read and write capacity units per request, as DynamoDB bills them
 * (the same figures are on-demand request units and provisioned capacity
 * units). Sizes come from `item-size.ts`; GSI writes from `index-units.ts`.
 *
 * Sources (read 2026-11-30):
 * [RW]  "DynamoDB read and write operations", Developer Guide,
 *       https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/read-write-operations.html
 * [PT]  "Managing settings on DynamoDB provisioned capacity tables" (archived guide,
 *       awsdocs/amazon-dynamodb-developer-guide doc_source/ProvisionedThroughput.md, 2023-06-15),
 *       sections "Capacity unit consumption for reads/writes"
 * [CW]  "Capacity units consumed by conditional writes" (archived guide,
 *       doc_source/WorkingWithItems.md#WorkingWithItems.ConditionalWrites.ReturnConsumedCapacity)
 * [OD]  "Pricing for On-Demand Capacity", https://aws.amazon.com/dynamodb/pricing/on-demand/
 *       (transactional requests cost two units)
 */
import { InvalidInputError } from '../../../lib/errors.js';

/** Bytes per write unit: "A write capacity unit represents one write ... for an item up to 1 KB" [PT]. */
const WRITE_UNIT_BYTES = 1024;
/** Bytes per read unit: "one strongly consistent read ... for an item up to 4 KB" [PT]. */
export const READ_UNIT_BYTES = 4096;

/** How a read is served; eventually consistent reads cost half, transactional twice [RW][OD]. */
export const ReadConsistency = {
  strong: 'strong',
  eventual: 'eventual',
  transactional: 'transactional',
} as const;
export type ReadConsistency = (typeof ReadConsistency)[keyof typeof ReadConsistency];

/** How a write is served; transactional writes cost twice [OD]. */
export const WriteKind = { standard: 'standard', transactional: 'transactional' } as const;
export type WriteKind = (typeof WriteKind)[keyof typeof WriteKind];

const READ_FACTOR: Record<ReadConsistency, number> = { strong: 1, eventual: 0.5, transactional: 2 };
const WRITE_FACTOR: Record<WriteKind, number> = { standard: 1, transactional: 2 };

/**
 * Write units for one item of `sizeBytes`: sizes round up to the next 1 KB,
 * "writing a 500-byte item consumes the same throughput as writing a 1 KB
 * item" [PT], so every write costs at least one unit.
 */
export function writeUnits(sizeBytes: number, kind: WriteKind = WriteKind.standard): number {
  assertSize(sizeBytes);
  return Math.max(1, Math.ceil(sizeBytes / WRITE_UNIT_BYTES)) * WRITE_FACTOR[kind];
}

/** PutItem: "If an item with the same primary key exists ... the item size that matters is the larger of the two" [PT]. */
export function putItemWriteUnits(newSize: number, oldSize?: number): number {
  return writeUnits(Math.max(newSize, oldSize ?? 0));
}

/** UpdateItem: "the larger of the 'before' and 'after' item sizes", even for a one-attribute update [PT]. */
export function updateItemWriteUnits(afterSize: number, beforeSize?: number): number {
  return writeUnits(Math.max(afterSize, beforeSize ?? 0));
}

/**
 * DeleteItem: "based on the size of the deleted item" [PT]. Deleting an item
 * that is not there is taken as the one-unit minimum of any write.
 */
export function deleteItemWriteUnits(deletedSize?: number): number {
  return writeUnits(deletedSize ?? 0);
}

/**
 * A write whose ConditionExpression evaluates to false still consumes write
 * units [CW][PT]: one unit when the item does not exist; when it does,
 * units by item size ("a failed conditional write of a 1 KB item would
 * consume one write capacity unit. If the item were twice that size ... two").
 * [CW] says the size of the existing item, [PT] the size of the new item; the
 * larger of the two is taken here, which is what the consumed-capacity rule
 * of the successful write would charge. An UpdateItem has no "new item" when
 * its condition fails, so it passes only `existingSize`.
 */
export function failedConditionalWriteUnits(existingSize?: number, newSize?: number): number {
  if (existingSize === undefined) return writeUnits(0);
  return writeUnits(Math.max(existingSize, newSize ?? 0));
}

/**
 * BatchWriteItem: each put or delete is billed as its own PutItem or
 * DeleteItem, each rounded up before summing ("a 500-byte item and a 3.5 KB
 * item ... 5 KB (1 KB + 4 KB), not 4 KB") [PT]. `sizes` are the billed size
 * of each request (larger of old and new for a put, deleted size for a delete).
 */
export function batchWriteItemUnits(sizes: readonly number[]): number {
  let units = 0;
  for (const size of sizes) units += writeUnits(size);
  return units;
}

/** Read units for `sizeBytes` read in one unit of work: rounded up to the next 4 KB [PT]. */
export function readUnits(
  sizeBytes: number,
  consistency: ReadConsistency = ReadConsistency.strong,
): number {
  assertSize(sizeBytes);
  return Math.max(1, Math.ceil(sizeBytes / READ_UNIT_BYTES)) * READ_FACTOR[consistency];
}

/**
 * GetItem: the item size rounded up to 4 KB; reading an item that does not
 * exist still costs one unit (half when eventually consistent) [PT]. A
 * ProjectionExpression "has no impact on the item size calculations" [PT].
 */
export function getItemReadUnits(
  itemSize: number | undefined,
  consistency: ReadConsistency,
): number {
  return readUnits(itemSize ?? 0, consistency);
}

/**
 * BatchGetItem: each item as its own GetItem, rounded up before summing
 * ("a 1.5 KB item and a 6.5 KB item ... 12 KB (4 KB + 8 KB)") [PT].
 */
export function batchGetItemReadUnits(
  sizes: readonly (number | undefined)[],
  consistency: ReadConsistency,
): number {
  let units = 0;
  for (const size of sizes) units += getItemReadUnits(size, consistency);
  return units;
}

/**
 * Query or Scan page: "DynamoDB computes the total size of all items and then
 * rounds up to the next 4 KB boundary" [PT]; a Scan counts "the size of the
 * items that are evaluated, not the size of the items returned" [PT], and a
 * filter expression does not reduce it (Query.html#Query.FilterExpression).
 * A page that finds nothing is still charged [RW]; the minimum here is one
 * unit (half when eventually consistent) per page, since the partitions
 * searched are not observable.
 */
export function queryReadUnits(
  evaluatedSizes: readonly number[],
  consistency: ReadConsistency,
): number {
  let total = 0;
  for (const size of evaluatedSizes) total += size;
  return readUnits(total, consistency);
}

function assertSize(sizeBytes: number): void {
  if (!Number.isFinite(sizeBytes) || sizeBytes < 0) {
    throw new InvalidInputError('sizeBytes', `expected a size >= 0, got ${sizeBytes}`);
  }
}
