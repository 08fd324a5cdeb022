/**
 * Large-put break-even, from the price table: the compressed batch size
 * above which writing the payload to an immutable S3 object (one PUT, one
 * GET when the flusher reads it back, storage until a lifecycle rule
 * expires it, and a small DynamoDB item pointing at it) costs less than
 * keeping it in the DynamoDB batch item (write units at the write, a delete
 * billed like a write when the code deletes instead of expiring, read units
 * at the flush read, storage and point-in-time recovery for its lifetime).
 * It decides nothing by itself: the benchmark prints the figure and how many
 * puts are past it.
 */

import { InvalidInputError } from '../../lib/errors.js';
import { SPILL_LIFECYCLE_DAYS, SPILL_NONCURRENT_DAYS } from '../../lib/memtable/spill.js';
import { GIB } from './billing/bill.js';
import { READ_UNIT_BYTES, writeUnits } from './billing/dynamodb-units.js';
import { STORAGE_OVERHEAD_BYTES } from './billing/item-size.js';
import { type PriceTable, priceOf } from './billing/prices.js';

/** Bytes a spilled batch's pointer adds to an item: the object's key, length and SHA-256 (`lib/memtable/spill.ts`). */
export const SPILL_POINTER_BYTES =
  'spillKey'.length + 80 + 'spillBytes'.length + 8 + 'spillSha'.length + 64;

/**
 * Seconds a spilled object is stored: the lifecycle rule's days to the next
 * midnight (half a day more on average), then a noncurrent version.
 */
export function spillObjectLifetimeSeconds(versioned: boolean): number {
  return (SPILL_LIFECYCLE_DAYS + 0.5) * 86_400 + (versioned ? SPILL_NONCURRENT_DAYS * 86_400 : 0);
}

/** What a batch costs besides its payload size. */
export interface SpillInputs {
  /** Bytes of a batch item's attributes other than its payload. */
  itemOverheadBytes: number;
  /** Bytes of the item that would point at the spilled object (keys, counts, the object's key). */
  pointerItemBytes: number;
  /** True while the flusher deletes batch items (a delete is billed like a write of the item). */
  deletedAtCommit: boolean;
  /** Seconds a batch item is stored (until its delete, or its TTL plus DynamoDB's TTL delay). */
  itemLifetimeSeconds: number;
  /** Point-in-time recovery bills the table's size again. */
  pitr: boolean;
  /** Seconds a spilled object is stored before a lifecycle rule expires it (S3 rules count whole days). */
  objectLifetimeSeconds: number;
  /** Seconds in the month the storage prices are per. */
  monthSeconds: number;
}

/** USD of keeping a payload of `payloadBytes` (compressed) in the batch item. */
export function itemUsd(payloadBytes: number, inputs: SpillInputs, prices: PriceTable): number {
  return dynamoItemUsd(payloadBytes + inputs.itemOverheadBytes, inputs, prices);
}

/** USD of spilling `payloadBytes` to S3 and keeping a pointer item. */
export function spillUsd(payloadBytes: number, inputs: SpillInputs, prices: PriceTable): number {
  const s3 = prices.s3;
  const storage =
    (payloadBytes / GIB) *
    (inputs.objectLifetimeSeconds / inputs.monthSeconds) *
    s3.storageGbMonth.usd;
  return (
    priceOf(s3.putCopyPostList, 1) +
    priceOf(s3.get, 1) +
    storage +
    dynamoItemUsd(inputs.pointerItemBytes, inputs, prices)
  );
}

/**
 * The smallest compressed payload size above which spilling is always
 * cheaper, searched up to `maxBytes` in `stepBytes` steps; undefined when it
 * never is.
 */
export function breakEvenBytes(
  inputs: SpillInputs,
  prices: PriceTable,
  maxBytes = 4 * 1024 * 1024,
  stepBytes = 64,
): number | undefined {
  if (!(stepBytes > 0)) throw new InvalidInputError('stepBytes', `expected > 0, got ${stepBytes}`);
  if (spillUsd(maxBytes, inputs, prices) >= itemUsd(maxBytes, inputs, prices)) return undefined;
  for (let bytes = maxBytes; bytes >= 0; bytes -= stepBytes) {
    if (spillUsd(bytes, inputs, prices) >= itemUsd(bytes, inputs, prices)) return bytes + stepBytes;
  }
  return 0;
}

/** Share of `payloadSizes` strictly above `threshold` (0 when there is none). */
export function sharePast(payloadSizes: readonly number[], threshold: number | undefined): number {
  if (threshold === undefined || payloadSizes.length === 0) return 0;
  return payloadSizes.filter((size) => size > threshold).length / payloadSizes.length;
}

function dynamoItemUsd(itemBytes: number, inputs: SpillInputs, prices: PriceTable): number {
  const d = prices.dynamodb;
  const units = writeUnits(itemBytes);
  const write = priceOf(d.writeRequestUnit, units * (inputs.deletedAtCommit ? 2 : 1));
  // The flusher's strongly consistent Query sums item sizes before rounding: per item, size / 4 KB.
  const read = priceOf(d.readRequestUnit, itemBytes / READ_UNIT_BYTES);
  const gbMonths =
    ((itemBytes + STORAGE_OVERHEAD_BYTES) / GIB) *
    (inputs.itemLifetimeSeconds / inputs.monthSeconds);
  const storage = gbMonths * (d.storageGbMonth.usd + (inputs.pitr ? d.pitrGbMonth.usd : 0));
  return write + read + storage;
}
