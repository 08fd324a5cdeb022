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
 * 3. Pending batch items (above `durableSeq`) whose expiry is less than half
 *    the batch lifetime away get a new one (L5 in `lib/liveness.ts`): a shard
 *    that stopped flushing (a poisoned shard, a stopped ticker) keeps its
 *    data until it flushes again, however long that takes. Only the TTL
 *    attribute changes, conditional on the item still being there. This one
 *    runs on a poisoned shard too: that is where it matters.
 * Verify applies 1 and 2 only to a shard with no finding (2 also not to a
 * poisoned one), and 3 to every shard.
 */
import { clearExpiredLease } from '../fence/claim.js';
import { extendPendingExpiry, respillAged } from '../memtable/batch-expiry.js';
import { listBatchHeads } from '../memtable/batch-heads.js';
import { sealVoid } from '../memtable/seal-void.js';
import type { ShardRecord } from '../memtable/shard-record.js';
import type { RecoveryDeps } from './deps.js';
import { type Heal, HealKind } from './findings.js';

/** Gaps sealed per verify of one shard at most; the next run continues. */
const MAX_GAP_SEALS_PER_VERIFY = 1_000;

/** Applies the safe heals to `record`'s shard; returns what was healed. */
export async function healShard(
  deps: RecoveryDeps,
  record: ShardRecord,
  options: { clean: boolean; pendingKept?: boolean } = { clean: true },
): Promise<Heal[]> {
  const heals = options.pendingKept ? [] : await keepPendingAlive(deps, record);
  if (!options.clean) return heals;
  return [...heals, ...(await tidyShard(deps, record))];
}

/**
 * Heal 3 alone (and the copy of aged spilled payloads): `verifyShard` runs it
 * before it reads S3, so a transient store error in the long part of a verify
 * never costs a stalled shard its renewal.
 */
export async function keepPendingAlive(deps: RecoveryDeps, record: ShardRecord): Promise<Heal[]> {
  const heals: Heal[] = [];
  const { shard } = record;
  const nowMs = deps.now();
  const extended = await extendPendingExpiry(deps.table, record, nowMs);
  if (extended > 0) {
    heals.push({
      kind: HealKind.pendingExpiryExtended,
      shard,
      detail: `${extended} pending batch item(s) above durableSeq ${record.durableSeq} were near their expiry; extended`,
    });
  }
  const copied = await respillAged(deps.table, record, nowMs);
  if (copied > 0) {
    heals.push({
      kind: HealKind.spilledPayloadCopied,
      shard,
      detail: `${copied} pending batch payload(s) spilled to S3 neared the lifecycle rule's age; copied to fresh keys`,
    });
  }
  return heals;
}

/** Heals 1 and 2, for a shard with no finding. */
async function tidyShard(deps: RecoveryDeps, record: ShardRecord): Promise<Heal[]> {
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
