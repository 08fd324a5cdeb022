/**
 * The state of one allocated seq, decided only from what the service can
 * prove. The status route (`lib/http/status-route.ts`), the put path's
 * durable waiter (`lib/put/durable-wait.ts`) and, through the API, the
 * client's `waitDurable` all ask here, so they cannot disagree.
 *
 * States:
 * - `pending`: allocated, above `durableSeq`, and not sealed void: its batch
 *   is buffered, still being written, or will be sealed void by the gap seal.
 * - `durable`: its rows are in a committed WAL object.
 * - `void`: sealed void, nothing stored (by the gap seal, by a put settling
 *   its own failed write, or by a rebuild); a void is final.
 * - `quarantined`: a rebuild set its batch aside (`lib/memtable/quarantine.ts`)
 *   because the WAL already holds other content (or a void) at that seq; its
 *   rows are in the quarantine for an operator, not in the WAL.
 * - `unknown`: at or below `durableSeq`, its batch item and void tombstone
 *   have expired (L4, L5 in `lib/liveness.ts`), no quarantine record names
 *   it, and no WAL object the service may read covers it (it lies below the
 *   AOF watermark, in an export that keeps no per-seq record of voids).
 *
 * Decision, with the shard record already read (seq < nextSeq):
 * S1. The batch head at the seq (one strongly consistent GetItem). A void is
 *     `void`, except a void a rebuild sealed at a *reissued* seq (rule 3 in
 *     `lib/recovery/reconcile-batches.ts`): a record restored behind S3
 *     handed the seq out again, S3 already holds what the seq meant before
 *     (an earlier put's rows, or a void), and the void turned away a put
 *     that never wrote, so was never acked. The only ack naming the seq is
 *     the earlier put's, so the answer is what the WAL holds there (S4),
 *     never `void` over rows that are durable. Rows are `durable` at or
 *     below `durableSeq` (a rebuild has quarantined every item whose content
 *     the WAL does not hold before it resets the cursors) and `pending`
 *     above it.
 * S2. No item: the quarantine, one GetItem per generation that could have
 *     quarantined it (1 .. generation + 1: a rebuild names its copies by the
 *     generation it commits, so a rebuild that quarantined and then died
 *     counts too), newest first. A copy there is `quarantined`.
 * S3. Otherwise, above `durableSeq`: `pending` (a put in flight, or a gap the
 *     gap seal will void).
 * S4. Otherwise, at or below it (and for a reissued seq's void): the
 *     readable WAL (`wal-seq.ts`), when an object store is given: `void`
 *     when the covering object lists the seq in `voidSeqs`, else `durable`;
 *     `unknown` when no readable object covers it, or when no store is
 *     given.
 *
 * Cost: S1 always (billed by the head's size, payload included); S2 only for
 * a seq with no item (generation + 1 small reads); S4 only for an expired
 * seq at or below `durableSeq`, or a reissued seq's void (see `wal-seq.ts`).
 */

import { readBatchHead } from '../memtable/batch-heads.js';
import { findQuarantineHead, type QuarantineHead } from '../memtable/quarantine.js';
import type { ShardRecord } from '../memtable/shard-record.js';
import type { Table } from '../memtable/table.js';
import type { ObjectStore } from '../store/object-store.js';
import { SeqState } from './seq-status.js';
import { walSeq } from './wal-seq.js';

/** The quarantine copy that makes a seq `quarantined`: the generation of the rebuild that set it aside, and why. */
type QuarantineRecord = QuarantineHead;

/** A seq's state and, when quarantined, the quarantine record that proves it. */
export interface SeqVerdict {
  state: SeqState;
  quarantine?: QuarantineRecord;
}

/** Where the evidence lives; the store is optional (without it S4 answers `unknown`). */
export interface SeqSources {
  table: Table;
  store?: ObjectStore;
}

/** The state of `seq` (below `record.nextSeq`) of `record`'s shard (S1-S4 above). */
export async function seqState(
  sources: SeqSources,
  record: ShardRecord,
  seq: number,
): Promise<SeqVerdict> {
  const { table, store } = sources;
  const shard = record.shard;
  const atOrBelowDurable = seq <= record.durableSeq;
  const head = await readBatchHead(table, shard, seq);
  if (head?.kind === 'rows') {
    return { state: atOrBelowDurable ? SeqState.durable : SeqState.pending };
  }
  if (head) {
    // A void; at a reissued seq, what the WAL holds there answers (S1).
    if (!(head.reissued && atOrBelowDurable)) return { state: SeqState.void };
  } else {
    const quarantine = await findQuarantineHead(table, shard, seq, record.generation + 1);
    if (quarantine) return { state: SeqState.quarantined, quarantine };
    if (!atOrBelowDurable) return { state: SeqState.pending };
  }
  if (!store) return { state: SeqState.unknown };
  const wal = await walSeq(
    store,
    { shard, fromPosition: record.aofWatermark, toPosition: record.walNextPos },
    seq,
  );
  if (!wal.found) return { state: SeqState.unknown };
  return { state: wal.void ? SeqState.void : SeqState.durable };
}
