/**
 * The flusher's guard against a shard record that is behind S3 (a record, or
 * the whole table, restored from a backup): before it writes position P, it
 * proves that no export covers P.
 *
 * Why: export retention deletes WAL objects below an export older than the
 * WAL retention (T2 in docs/recovery.md). A record restored from a backup
 * older than that names a `walNextPos` whose slot is such a deleted object:
 * the create-if-absent write there succeeds, the commit moves the restored
 * cursors past seqs the record just handed out again, and the rows land
 * below the export, where no reader and no rebuild ever looks (T5), after
 * the put may have been acked durable. Step 5's content check never runs:
 * the slot was free.
 *
 * Invariants kept here:
 * B1. An export at a covered position Q > P exists only if the shard's
 *     record once had `walNextPos >= Q` (an export targets the record's
 *     `walNextPos`, and a rebuild resets it to at least the export it
 *     replayed from): a record at P < Q was rolled back. The flusher then
 *     poisons the shard instead of writing (C4 in `lib/fence/commit.ts`
 *     decides whether it still may); the operator's rebuild quarantines the
 *     puts the rolled-back record took (`lib/recovery/reconcile-batches.ts`).
 * B2. The proof is a listing of the exports above P (at most two LIST
 *     requests: manifests, legacy AOF exports), made only when the commit
 *     or rebuild that set `walNextPos = P` (`walNextPosAtMs`) is older than
 *     `freshForMs` or unknown. A younger one needs none: retention deletes
 *     slot P only once an export covering P is older than the WAL
 *     retention, and that export was written after the object at P, so
 *     after `walNextPosAtMs`; a write that lands within the WAL retention
 *     less `freshForMs` and twice the clock skew of the check cannot meet a
 *     deleted slot (the Lambda's timeout and S3's 15-minute limit on a
 *     signed request bound it far below that). A busy shard commits every
 *     tick, so it never lists; an idle one lists once, on its next flush.
 * B3. A batch at a seq at or past the claim's `nextSeq` was written after the
 *     claim read the record (its put allocated the seq first), so its
 *     `createdAtMs` is at least the claim's clock less the clock skew. One
 *     older than that was written before the seq was allocated: an earlier
 *     timeline's, behind a record restored from a backup. The flusher must
 *     not flush it: the restored record hands that seq out again, and once
 *     the old item expires, the new put's create-if-absent write succeeds and
 *     its ack names a seq whose WAL rows are the old put's, under a
 *     `durableSeq` the rebuild trusts without reading (rule 1 in
 *     `lib/recovery/reconcile-batches.ts`; simulation seed 20002923). The
 *     flusher poisons the shard instead, before a put is acked that way.
 */
import { manifestKey, manifestPrefix, parseManifestKey } from '../manifest/format.js';
import type { StoredBatch } from '../memtable/read-batches.js';
import { aofKey, aofPrefix, positionOfKey } from '../paths.js';
import type { ObjectStore } from '../store/object-store.js';

/** How long after `walNextPosAtMs` a flusher may skip the listing of B2. */
function freshForMs(walRetentionMs: number, clockSkewMs: number): number {
  return Math.max(0, Math.floor(walRetentionMs / 2) - 2 * clockSkewMs);
}

/** Whether the flusher must list the exports above P before writing it (B2). */
export function mustProveSlot(
  walNextPosAtMs: number | undefined,
  nowMs: number,
  walRetentionMs: number,
  clockSkewMs: number,
): boolean {
  if (walNextPosAtMs === undefined) return true;
  return nowMs - walNextPosAtMs >= freshForMs(walRetentionMs, clockSkewMs);
}

/** The key of an export covering `position` (B1), or undefined when none does. */
export async function exportCovering(
  store: ObjectStore,
  shard: string,
  position: number,
): Promise<string | undefined> {
  const lists: Array<[string, string]> = [
    [manifestPrefix(shard), manifestKey(shard, position)],
    [aofPrefix(shard), aofKey(shard, position)],
  ];
  for (const [prefix, startAfter] of lists) {
    // Keys are zero-padded positions: the first export after P's covers a position above P.
    for await (const key of store.list(prefix, { startAfter })) {
      const covered = parseManifestKey(key)?.coveredPosition ?? positionOfKey(key);
      if (covered !== undefined && covered > position) return key;
    }
  }
  return undefined;
}

/**
 * The first of `batches` at or past `nextSeq` (the claim's) written before the
 * claim at `claimedAtMs` by more than the clock skew (B3), or undefined.
 */
export function batchWrittenBeforeAllocation(
  nextSeq: number,
  claimedAtMs: number,
  clockSkewMs: number,
  batches: readonly StoredBatch[],
): StoredBatch | undefined {
  return batches.find(
    (batch) => batch.seq >= nextSeq && batch.createdAtMs < claimedAtMs - clockSkewMs,
  );
}
