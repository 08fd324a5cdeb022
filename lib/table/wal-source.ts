/**
 * Where a table's rows come from: the shard's WAL objects, each read whole
 * and verified by `lib/wal`'s decoder (`decodeWal`: every rule and the
 * checksum, rows in the encoder's exact form read straight from the
 * decompressed bytes), never the memtable. A WAL object exists only once
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
import type { WalHeader, WalRow } from '../wal/format.js';

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
  bytes: number;
}

/** Takes each row read, with its object's header. */
export type OnWalRow = (header: WalHeader, row: WalRow) => void;

/**
 * Reads `shard`'s WAL objects from `from` while they exist and `budgetBytes`
 * lasts (at least one), handing each row to `onRow` once its object
 * verified, so a row's table form is made while it is at hand and nothing
 * else of it outlives its object. An object that does not verify rejects
 * the returned promise with a `CorruptDataError` before any of its rows is
 * handed over; rows of the objects before it were (the caller stores
 * nothing of a read that rejects).
 *
 * The object is held whole (it was fetched whole), so it is decoded on this
 * thread in one pass: a streaming read (`scanWal`) would pay for a zlib
 * stream, chunk hand-offs and promises per object. Its rows are held until
 * handed over: at most the flusher's object cap of row text
 * (`maxWalObjectBytes`, 32 MiB by default, plus one batch). The next
 * object is fetched while this one is decoded.
 */
export async function readWalRange(
  store: ObjectStore,
  shard: string,
  from: number,
  budgetBytes: number,
  onRow: OnWalRow,
): Promise<WalRange> {
  const range: WalRange = { shard, from, to: from, bytes: 0 };
  let next = getObject(store, shard, from);
  while (range.bytes < budgetBytes) {
    const bytes = await next;
    if (!bytes) break;
    range.bytes += bytes.byteLength;
    if (range.bytes < budgetBytes) next = getObject(store, shard, range.to + 1);
    const { header, rows } = decodeWal(walKey(shard, range.to), bytes);
    for (const row of rows) onRow(header, row);
    range.to += 1;
  }
  return range;
}

/** Starts fetching `shard`'s WAL object at `position`; a failure is seen by whoever awaits it (none, if the read stopped first). */
function getObject(
  store: ObjectStore,
  shard: string,
  position: number,
): Promise<Uint8Array | undefined> {
  const bytes = store.get(walKey(shard, position));
  bytes.catch(() => undefined);
  return bytes;
}
