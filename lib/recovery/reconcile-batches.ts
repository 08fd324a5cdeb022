/**
 * Rebuild's reconciliation of the batch items in DynamoDB with what S3
 * proves, run under the fence (no put allocates, no flusher commits). With D
 * the last seq S3 proves and R the fenced record's `durableSeq`:
 *
 * 1. Items at seq ≤ min(R, D) are covered: a seq the record called durable was
 *    written before the commit that covered it, and that WAL object was built
 *    from (or verified against) the item. They are not read: like every batch
 *    item they expire by TTL (L5 in `lib/liveness.ts`).
 * 2. Items at seq in (R, D] exist when the record was behind S3 (rolled back,
 *    or a crashed flusher's append not yet committed): either the original
 *    put's (same content as S3: covered, left to expire), or a put the
 *    rolled-back record handed a seq S3 already holds.
 *    The latter can never be flushed at its seq, and its rows were acked: it
 *    is **rejected** — moved to the quarantine (`quarantine.ts`), listed with
 *    its rows in the report, never silently dropped. Content is compared with
 *    the WAL object holding the seq; a seq inside the export (which keeps no
 *    per-seq content) is covered if the item predates the export by more than
 *    the clock skew, else if the WAL object below the export that holds it
 *    still does and holds the same rows, else only if the item predates the
 *    export (C1-C3 in `seq-content.ts`).
 * 3. A seq in (R, min(nextSeq − 1, D)] that has no item is sealed void
 *    (unless a rebuild of this same reset, killed, already moved its batch
 *    to the quarantine: its rows are set aside, not missing),
 *    however long ago it was allocated: a put in flight may still write it
 *    (a late write then fails its condition and its caller gets an error),
 *    and a put that allocated it and died may have left an idempotency
 *    reservation naming it. Once the cursors move past it, a takeover of
 *    that reservation reads "no item at or below `durableSeq`" as "the batch
 *    landed" (K3, `lib/put/settle-seq.ts`), which holds only where the
 *    flusher sealed every gap before its WAL object covered it. A seq here
 *    was not covered that way when the record is behind S3: the restored
 *    record handed it out again (a *reissued* seq, S3 holding another put's
 *    rows there), and its age proves nothing (the next item may be the old
 *    timeline's; simulation seed 6004694 acked such a put at the other put's
 *    seq). Without a rollback an empty seq in this range has no live
 *    reservation asking (the flusher sealed it void before covering it, and
 *    that tombstone outlives every reservation, L4), so sealing it again is
 *    harmless. Every void, these and older ones alike, stays a tombstone
 *    until its lifetime is over (L4 in `lib/liveness.ts`): a put stalled past
 *    the gap seal must still find it, and so must an idempotency takeover
 *    asking what its seq holds.
 * 4. Items at seq > D are pending: kept, their bytes become `bufferedBytes`,
 *    and the flusher appends them after the rebuild.
 * 5. When R > D, seqs in (D, R] were acked durable but S3 does not hold them:
 *    an item still there is pending again (flushed anew); a missing one is
 *    **lost** and reported, and sealed void so the flusher does not wait on
 *    it (safe: its put finished before the commit that called it durable, so
 *    no write can still come).
 */
import type { BatchRow } from '../memtable/batch-codec.js';
import { type BatchHead, listBatchHeads } from '../memtable/batch-heads.js';
import { quarantineBatch, readQuarantineHead } from '../memtable/quarantine.js';
import { sealVoid } from '../memtable/seal-void.js';
import type { ShardRecord } from '../memtable/shard-record.js';
import type { RecoveryDeps } from './deps.js';
import { RebuildFaultPoint } from './fault-points.js';
import type { Replay } from './replay.js';
import { SeqContent } from './seq-content.js';
import type { ChainCursor } from './wal-chain.js';

/** Rows of rejected batches shown in a report, in all; the quarantine keeps every row. */
const MAX_REPORTED_REJECTED_ROWS = 1_000;

/** A batch rejected because its seq is already durable in S3 with other content. */
interface RejectedBatchReport {
  seq: number;
  rowCount: number;
  /** The batch's rows, up to the report's budget (`rowsShown` of `rowCount`). */
  rows: BatchRow[];
  rowsShown: number;
  createdAtMs: number;
  idempotencyKey: string | null;
  /** Sort key of the quarantined copy (partition `shard#<shard>`). */
  quarantineKey: string;
  reason: string;
}

/** What reconciliation did. */
export interface Reconciliation {
  /** Batch heads above the trusted prefix that S3 already holds (left to expire, L5). */
  covered: number;
  rejected: RejectedBatchReport[];
  rejectedRows: number;
  /** Seqs sealed void to turn away a put still in flight or answer a takeover of a reissued seq (rule 3). */
  sealed: number[];
  /** Seqs acked durable that S3 does not hold; `missing` of them have no item left and were sealed void (rule 5). */
  lost: { fromSeq: number; toSeq: number; missing: number } | null;
  pending: { batches: number; fromSeq: number | null; toSeq: number | null; bytes: number };
  /**
   * The cumulative charge released through the proven `durableSeq` (A2 in
   * `allocate.ts`): the newest recorded charge at or below it, never less
   * than what the record's commits already released when S3 is not behind.
   */
  releasedThrough: number;
}

/** Input of `reconcileBatches`. */
export interface ReconcileInput {
  shard: string;
  fenced: ShardRecord;
  proven: ChainCursor;
  replay: Replay;
  /** The generation the cursor reset will commit (names quarantine items). */
  generation: number;
  nowMs: number;
}

/** Reconciles the shard's batch items with S3 (see the rules above). */
export async function reconcileBatches(
  deps: RecoveryDeps,
  input: ReconcileInput,
): Promise<Reconciliation> {
  const { shard, fenced, proven } = input;
  const provenSeq = proven.lastSeq;
  // Below min(R, D) every item is covered and expires by itself: never read, never deleted.
  const trusted = Math.min(fenced.durableSeq, provenSeq);
  let heads = await listBatchHeads(deps.table, shard, trusted + 1);
  const sealed = await sealInFlight(deps, input, heads);
  await deps.faults?.(RebuildFaultPoint.afterSeal, shard);
  if (sealed.touched) heads = await listBatchHeads(deps.table, shard, trusted + 1);
  const out: Reconciliation = {
    covered: 0,
    rejected: [],
    rejectedRows: 0,
    sealed: sealed.seqs,
    lost: null,
    pending: { batches: 0, fromSeq: null, toSeq: null, bytes: 0 },
    releasedThrough: releasedThrough(fenced, provenSeq, heads),
  };
  let covered = 0;
  const content = new SeqContent(deps, {
    shard,
    replay: input.replay,
    clockSkewMs: deps.clockSkewMs ?? 0,
  });
  let shown = 0;
  for (const head of heads) {
    if (head.seq > provenSeq) {
      out.pending.batches += 1;
      out.pending.fromSeq ??= head.seq;
      out.pending.toSeq = head.seq;
      out.pending.bytes += head.bytes;
      continue;
    }
    // L4: a void is a tombstone for its whole lifetime; it expires by itself.
    if (head.kind === 'void') continue;
    const verdict = await content.compare(head);
    if (verdict.covered) {
      covered += 1;
      continue;
    }
    const quarantineKey = await quarantineBatch(deps.table, shard, {
      seq: head.seq,
      generation: input.generation,
      reason: verdict.reason,
      nowMs: input.nowMs,
    });
    await deps.faults?.(RebuildFaultPoint.afterQuarantine, shard);
    const rows = verdict.rows.slice(0, Math.max(0, MAX_REPORTED_REJECTED_ROWS - shown));
    shown += rows.length;
    out.rejectedRows += verdict.rows.length;
    out.rejected.push({
      seq: head.seq,
      rowCount: verdict.rows.length,
      rows,
      rowsShown: rows.length,
      createdAtMs: head.createdAtMs,
      idempotencyKey: head.idempotencyKey ?? null,
      quarantineKey,
      reason: verdict.reason,
    });
  }
  out.covered = covered;
  if (fenced.durableSeq > provenSeq) {
    const fromSeq = provenSeq + 1;
    const toSeq = fenced.durableSeq;
    const present = new Set(
      heads.filter((h) => h.seq >= fromSeq && h.seq <= toSeq).map((h) => h.seq),
    );
    out.lost = { fromSeq, toSeq, missing: toSeq - fromSeq + 1 - present.size };
    for (let seq = fromSeq; seq <= toSeq; seq++) {
      if (!present.has(seq)) await sealVoid(deps.table, shard, seq, input.nowMs);
    }
  }
  return out;
}

/** See `Reconciliation.releasedThrough`. */
function releasedThrough(
  fenced: ShardRecord,
  provenSeq: number,
  heads: readonly BatchHead[],
): number {
  let newest: number | undefined;
  for (const head of heads) {
    if (head.seq <= provenSeq && head.chargeEnd !== undefined) newest = head.chargeEnd;
  }
  if (provenSeq >= fenced.durableSeq) return Math.max(fenced.releasedBytes, newest ?? 0);
  return newest ?? Math.min(fenced.releasedBytes, fenced.chargedBytes);
}

/** Rule 3: seals every allocated, unwritten seq in (R, min(nextSeq-1, D)], whatever its age. */
async function sealInFlight(
  deps: RecoveryDeps,
  input: ReconcileInput,
  heads: readonly BatchHead[],
): Promise<{ seqs: number[]; touched: boolean }> {
  const { fenced, proven, shard, nowMs } = input;
  const fromSeq = fenced.durableSeq + 1;
  const toSeq = Math.min(fenced.nextSeq - 1, proven.lastSeq);
  const seqs: number[] = [];
  let touched = false;
  let index = 0;
  for (let seq = fromSeq; seq <= toSeq; seq++) {
    while (index < heads.length && heads[index]!.seq < seq) index++;
    const next = heads[index];
    if (next?.seq === seq) continue;
    // A rebuild of this same reset (its copies carry the generation this one commits) that died
    // after moving the seq's batch to the quarantine left it empty: its rows are set aside, not
    // missing, so a void would make the status and a takeover of its put's key answer "nothing
    // stored" (simulation seeds 19008415, 19009412). A copy of an older generation is an earlier
    // timeline's, whose seq a later restore may have handed out again: sealed as below.
    if (await readQuarantineHead(deps.table, shard, input.generation, seq)) continue;
    // Rule 3: no age test. The next item may be an old timeline's (a reissued seq), so it dates nothing.
    touched = true;
    if ((await sealVoid(deps.table, shard, seq, nowMs, { reissued: true })) === 'sealed') {
      seqs.push(seq);
    }
  }
  return { seqs, touched };
}
