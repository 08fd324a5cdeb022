/**
 * Where a table's rows come from: the shard's WAL objects, read through the
 * WAL decoder (`lib/wal`), never the memtable. A WAL object exists only once
 * a flusher wrote it create-if-absent, and the flush protocol adopts every
 * object it finds (never rewrites one), so the objects are the durable
 * history. Reads are contiguous: from the table's high-water up to the first
 * absent position, bounded by a byte budget.
 *
 * A shard new to its table starts at the oldest position of the run of WAL
 * objects that reaches the newest one (backfill of the history still in the
 * WAL; a slot below it re-created by a zombie flusher is never read). Keyless
 * history that only export segments still hold is not backfilled
 * (docs/tables.md).
 */
import { positionOfKey, walKey, walPrefix } from '../paths.js';
import type { ObjectStore } from '../store/object-store.js';
import { decodeWal } from '../wal/decode.js';
import type { WalObject } from '../wal/format.js';

/** The first position of the WAL run that reaches the newest object, or undefined when the WAL is empty. */
export async function firstRetainedPosition(
  store: ObjectStore,
  shard: string,
): Promise<number | undefined> {
  let runStart: number | undefined;
  let previous: number | undefined;
  for await (const key of store.list(walPrefix(shard))) {
    const position = positionOfKey(key);
    if (position === undefined) continue;
    if (previous === undefined || position !== previous + 1) runStart = position;
    previous = position;
  }
  return runStart;
}

/** WAL objects read for one shard. */
export interface WalRange {
  shard: string;
  from: number;
  /** First position not read. */
  to: number;
  objects: WalObject[];
  bytes: number;
}

/** Reads `shard`'s WAL objects from `from` while they exist and `budgetBytes` lasts (at least one). */
export async function readWalRange(
  store: ObjectStore,
  shard: string,
  from: number,
  budgetBytes: number,
): Promise<WalRange> {
  const range: WalRange = { shard, from, to: from, objects: [], bytes: 0 };
  while (range.bytes < budgetBytes) {
    const key = walKey(shard, range.to);
    const bytes = await store.get(key);
    if (!bytes) break;
    range.objects.push(decodeWal(key, bytes));
    range.bytes += bytes.byteLength;
    range.to += 1;
  }
  return range;
}
