/**
 * Where a table's rows come from: the shard's WAL objects, read through the
 * WAL reader replay uses (`scanWal`: the rules of `lib/wal`'s decoder, with
 * rows in the encoder's exact form read straight from the decompressed
 * bytes), never the memtable. A WAL object exists only once
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
import { scanWal } from '../recovery/wal-scan.js';
import type { ObjectStore } from '../store/object-store.js';
import type { WalHeader, WalObject, WalRow } from '../wal/format.js';

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
    const bytes = await store.get(walKey(shard, range.to));
    if (!bytes) break;
    range.objects.push(await readWalObject(shard, range.to, bytes));
    range.bytes += bytes.byteLength;
    range.to += 1;
  }
  return range;
}

/** Reads and verifies the WAL object stored at `shard`'s `position` (a `CorruptDataError` when it is not valid). */
async function readWalObject(
  shard: string,
  position: number,
  bytes: Uint8Array,
): Promise<WalObject> {
  let header: WalHeader | undefined;
  const rows: WalRow[] = [];
  await scanWal(shard, position, once(bytes), {
    header: (read) => {
      header = read;
      return true;
    },
    row: (row) => {
      rows.push(row);
    },
  });
  return { header: header!, rows };
}

async function* once(bytes: Uint8Array): AsyncGenerator<Uint8Array> {
  yield bytes;
}
