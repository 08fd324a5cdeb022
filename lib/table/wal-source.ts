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
import type { WalHeader, WalRow } from '../wal/format.js';
import { FrameReadAhead } from '../wal/frame-reader.js';

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
 * lasts (at least one), handing each row to `onRow` as it is read, so a
 * row's table form is made while its bytes are at hand and nothing else of
 * it outlives the read. Rows are provisional until the returned promise
 * resolves: an object that does not verify rejects it with a
 * `CorruptDataError` (its checksum covers every row before its trailer).
 */
export async function readWalRange(
  store: ObjectStore,
  shard: string,
  from: number,
  budgetBytes: number,
  onRow: OnWalRow,
): Promise<WalRange> {
  const range: WalRange = { shard, from, to: from, bytes: 0 };
  while (range.bytes < budgetBytes) {
    const bytes = await store.get(walKey(shard, range.to));
    if (!bytes) break;
    let header: WalHeader | undefined;
    await scanWal(shard, range.to, new FrameReadAhead(walKey(shard, range.to), once(bytes)), {
      header: (read) => {
        header = read;
        return true;
      },
      row: (row) => onRow(header!, row),
    });
    range.bytes += bytes.byteLength;
    range.to += 1;
  }
  return range;
}

async function* once(bytes: Uint8Array): AsyncGenerator<Uint8Array> {
  yield bytes;
}
