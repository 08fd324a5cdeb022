/**
 * The heals verify applies, each provably safe on its own:
 * 1. An expired lease is removed. It already blocks nobody (a claim succeeds
 *    once it expires); removing it only tidies the record. The epoch is not
 *    touched, so no live actor is fenced by it.
 * 2. A gap (an allocated seq with no batch) whose allocation is older than
 *    `gapSealMs` is sealed void, by the flusher's own rule and write
 *    (`sealVoid`, conditional on the seq being empty): the put that allocated
 *    it is dead; if it were not, its late write fails its condition and its
 *    caller gets an error, never a silent loss.
 * 3. Batch items at or below `durableSeq` (left by a flusher that crashed
 *    between its commit and its cleanup) are deleted: verify has just shown
 *    that the committed WAL holds those seqs, and no reader looks below
 *    `durableSeq`. A void's head is kept, as the flusher keeps it (I5), so a
 *    late writer of a sealed seq still fails its condition.
 * Verify applies them only to a shard with no finding and no poison.
 */
import { clearExpiredLease } from '../fence/claim.js';
import { listBatchHeads } from '../memtable/batch-heads.js';
import { deleteBatches, sealVoid } from '../memtable/batches.js';
import type { ShardRecord } from '../memtable/shard-record.js';
import { batchSk } from '../memtable/table.js';
import type { RecoveryDeps } from './deps.js';
import { type Heal, HealKind } from './findings.js';

/** Gaps sealed per verify of one shard at most; the next run continues. */
export const MAX_GAP_SEALS_PER_VERIFY = 1_000;

/** Applies the safe heals to `record`'s shard; returns what was healed. */
export async function healShard(deps: RecoveryDeps, record: ShardRecord): Promise<Heal[]> {
  const heals: Heal[] = [];
  const { shard } = record;
  const nowMs = deps.now();
  if (record.leaseExpiresAtMs !== undefined && record.leaseExpiresAtMs < nowMs) {
    if (await clearExpiredLease(deps.table, shard, nowMs)) {
      heals.push({
        kind: HealKind.expiredLeaseCleared,
        shard,
        detail: `lease of ${record.leaseOwner ?? 'unknown'} expired at ${new Date(record.leaseExpiresAtMs).toISOString()}; removed`,
      });
    }
  }
  if (!record.poison) {
    const swept = await sweepCoveredBatches(deps, record);
    if (swept > 0) {
      heals.push({
        kind: HealKind.coveredBatchesDeleted,
        shard,
        detail: `${swept} batch item(s) at or below durableSeq ${record.durableSeq} were left after their commit; deleted`,
      });
    }
    for (const seq of await sealAgedGaps(deps, record, nowMs)) {
      heals.push({
        kind: HealKind.gapSealed,
        shard,
        seq,
        detail: `seq ${seq} was allocated over ${deps.gapSealMs} ms ago and never written; sealed void`,
      });
    }
  }
  return heals;
}

/** Seals the pending gaps older than `gapSealMs` (the bound of resolve-pending.ts). */
async function sealAgedGaps(
  deps: RecoveryDeps,
  record: ShardRecord,
  nowMs: number,
): Promise<number[]> {
  const fromSeq = record.durableSeq + 1;
  const toSeq = record.nextSeq - 1;
  if (toSeq < fromSeq) return [];
  const heads = await listBatchHeads(deps.table, record.shard, fromSeq, toSeq);
  const sealed: number[] = [];
  let index = 0;
  for (let seq = fromSeq; seq <= toSeq && sealed.length < MAX_GAP_SEALS_PER_VERIFY; seq++) {
    while (index < heads.length && heads[index]!.seq < seq) index++;
    const next = heads[index];
    if (next?.seq === seq) continue;
    // A gap's allocation is no later than the next written batch's write, or the last allocation.
    const allocatedBy = next ? next.createdAtMs : (record.lastAllocAtMs ?? nowMs);
    if (nowMs - allocatedBy < deps.gapSealMs) continue;
    if ((await sealVoid(deps.table, record.shard, seq, nowMs)) === 'sealed') sealed.push(seq);
  }
  return sealed;
}

/** Deletes leftover items of committed batches (heal 3); returns how many items went. */
async function sweepCoveredBatches(deps: RecoveryDeps, record: ShardRecord): Promise<number> {
  if (record.durableSeq < 1) return 0;
  const heads = await listBatchHeads(deps.table, record.shard, 1, record.durableSeq);
  const keys = heads.flatMap((head) =>
    head.kind === 'void' ? head.itemKeys.filter((key) => key !== batchSk(head.seq)) : head.itemKeys,
  );
  await deleteBatches(deps.table, record.shard, keys);
  return keys.length;
}
