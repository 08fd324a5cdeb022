/**
 * The reader side of `shardwal/client`: a shard's durable rows as an async
 * iterator (`tailShard`), read from the documented storage formats only
 * (`docs/manifest-format.md`, `docs/segment-format.md`,
 * `docs/wal-format.md`) over the `ObjectStore` port, so the same code reads
 * S3, the local stack's filesystem store and memory. It never reads the
 * memtable: what it yields is what S3 holds.
 *
 * Contract:
 * 1. Rows come in offset order (so seq order), each once; above the newest
 *    export's watermark every row of the WAL, keyed or not, as the WAL has
 *    it (the history of changes); below it the keyless rows, from the
 *    export's segments. The export keeps keyed state, not keyed history
 *    (the snapshot holds each key's newest row), so keyed changes below the
 *    watermark are not yielded; a notice says so.
 * 2. `fromSeq` below the history floor (the oldest seq history retention
 *    still keeps) is a `HistoryFloorError` naming the floor.
 * 3. Every object is verified before a row of it is yielded; a corrupt or
 *    missing object ends the read with a `CorruptDataError` naming it.
 * 4. Following polls the next WAL position by key (no listing per poll),
 *    backs off, and survives retention retiring what a slow reader had not
 *    read yet (`tail-shard.ts`, invariants 3-4).
 *
 * Usage: `docs/client.md`, "Read rows".
 */

export {
  abortableSleep,
  TAIL_DEFAULTS,
  type TailFrom,
  type TailNotice,
  TailNoticeKind,
  type TailOptions,
  type TailRow,
} from './tail-options.js';
export { tailShard, tailShardBatches } from './tail-shard.js';
