/**
 * Settling a seq whose batch may or may not have landed: the put path's own
 * seq after a failed or timed-out write, and the seq an expired idempotency
 * reservation recorded (K3 in `lib/memtable/idempotency.ts`). Settling never
 * guesses: it either finds the batch, or seals the seq void (conditional on
 * it being empty, so a late write of that batch then fails), or reports that
 * it cannot tell yet (an UnavailableError from the table).
 */
import { type BatchHeadSummary, readBatchHead } from '../memtable/batch-heads.js';
import { sealVoid } from '../memtable/seal-void.js';
import { readShardRecord } from '../memtable/shard-record.js';
import type { Table } from '../memtable/table.js';

/** What a seq turned out to hold for the put that allocated it. */
export type SeqOutcome =
  | {
      landed: true /** Rows of the batch, when its head could still be read. */;
      rows: number | undefined;
    }
  | { landed: false };

/**
 * Settles the put's own `seq`: seals it void (carrying the put's charge, A2
 * in `allocate.ts`) unless the batch is there. After this, no write of the
 * batch can land any more.
 */
export async function settleOwnSeq(
  table: Table,
  shard: string,
  seq: number,
  nowMs: number,
  own: { putId: string; chargeEnd?: number },
): Promise<SeqOutcome> {
  if ((await sealVoid(table, shard, seq, nowMs, { chargeEnd: own.chargeEnd })) === 'sealed') {
    return { landed: false };
  }
  // Only this put's own batch (its put id) means it landed: a void, or another put's old batch
  // at a seq a rolled-back record handed out again, means it did not.
  const head = await readBatchHead(table, shard, seq);
  return head?.kind === 'rows' && head.putId === own.putId
    ? { landed: true, rows: head.rowCount }
    : { landed: false };
}

/**
 * What the seq an expired reservation recorded holds; `past-window` when it
 * can no longer be told (an empty seq at or below `durableSeq`, read after
 * the key's window ended).
 */
export type RecordedSeqOutcome = SeqOutcome | { landed: 'past-window' };

/**
 * Settles the seq an expired reservation recorded for its put (`owner`, the
 * put id its batch carries). That put's batch there means it landed; a void,
 * or another put's batch, means it did not. The record is read BEFORE the
 * head: if the seq was already durable then, whatever the commit covered was
 * a batch or a void, and a void outlives the window of every key that can
 * ask about its seq (L4 in `liveness.ts`), so an empty seq read within the
 * window (`askableUntilMs`, checked after the read: a stalled reader may be
 * past it) held this put's batch, since expired. Read past the window the
 * void may have expired too: `past-window`, and the key's window is over.
 * (Read the other way round, a void sealed between the two reads would look
 * like a batch that landed.) An empty seq above `durableSeq` is sealed void
 * now: its put is past its deadline (L3).
 */
export async function settleRecordedSeq(
  table: Table,
  shard: string,
  seq: number,
  put: { owner: string; key: string; askableUntilMs: number },
  now: () => number,
): Promise<RecordedSeqOutcome> {
  const nowMs = now();
  const record = await readShardRecord(table, shard);
  const durable = record !== undefined && seq <= record.durableSeq;
  const head = await readBatchHead(table, shard, seq);
  if (head) return outcomeOf(head, put);
  if (durable) {
    return now() <= put.askableUntilMs
      ? { landed: true, rows: undefined }
      : { landed: 'past-window' };
  }
  if ((await sealVoid(table, shard, seq, nowMs)) === 'sealed') return { landed: false };
  const settled = await readBatchHead(table, shard, seq);
  return settled ? outcomeOf(settled, put) : { landed: false };
}

/** Landed only when the batch is the put's own (its put id; for batches older than put ids, its key). */
function outcomeOf(head: BatchHeadSummary, put: { owner: string; key: string }): SeqOutcome {
  const own =
    head.kind === 'rows' &&
    (head.putId === undefined ? head.idempotencyKey === put.key : head.putId === put.owner);
  return own ? { landed: true, rows: head.rowCount } : { landed: false };
}
