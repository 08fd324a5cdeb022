/**
 * Step 3 of the flush protocol: resolve the oldest pending batches at the
 * moment the flush is handled: `durableSeq+1` upward, contiguous, up to the
 * size cap, sealing gaps that stayed empty past the timeout. That includes
 * batches allocated after the claim read the record (a tick claims ahead of
 * its slot and resolves at it): seqs are allocated in order and batch items
 * are immutable, so a contiguous run past the claim's `nextSeq` is as much the
 * oldest pending data as the run before it. Only seqs the claim saw allocated
 * are ever sealed.
 *
 * A gap is a seq that was allocated (seq < nextSeq) but whose batch is not
 * written. Its allocation time is bounded above by the write time of any later
 * batch (allocated after it, written after its own allocation) and by the
 * shard's `lastAllocAtMs`; once that bound is older than `gapSealMs` the gap
 * is sealed void. A young gap stops resolution there: order comes before
 * progress.
 *
 * Invariant kept here (one of the flush protocol's, `flush-shard.ts`):
 * I7. A gap is sealed only after a fresh read shows this flusher still holds
 *     the shard and the seq is still above `durableSeq`: a zombie resolving
 *     from a stale record sees covered (tidied) batches as gaps, and sealing
 *     them would only leave garbage below `durableSeq`.
 */
import { readBatches, type StoredBatch } from '../memtable/read-batches.js';
import { sealVoid } from '../memtable/seal-void.js';
import { readShardRecord, type ShardRecord } from '../memtable/shard-record.js';
import type { Table } from '../memtable/table.js';

/** Inputs of `resolveOldestPending`. */
export interface ResolveInput {
  record: ShardRecord;
  /** The epoch of this flusher's claim; a gap is sealed only while it still holds (I7). */
  epoch: number;
  maxBytes: number;
  gapSealMs: number;
  nowMs: number;
}

/** The contiguous run of batches to flush, and what happened on the way. */
export interface Resolved {
  batches: StoredBatch[];
  /** Seqs this call sealed void. */
  sealed: number[];
  /** A young gap that stopped resolution, if any. */
  waitingOnSeq: number | undefined;
  /** Resolution stopped because a newer claim (or a commit past the gap) took over (I7). */
  fenced: boolean;
}

/** Resolves the oldest pending batches of the shard described by `record`. */
export async function resolveOldestPending(table: Table, input: ResolveInput): Promise<Resolved> {
  const { record, maxBytes, gapSealMs, nowMs } = input;
  const fromSeq = record.durableSeq + 1;
  // Allocated as the record stood at the claim: a gap up to here may be sealed.
  const toSeq = record.nextSeq - 1;
  // Batches allocated since are read too: the newest a flush can take.
  const found = await readBatches(table, {
    shard: record.shard,
    fromSeq,
    toSeq: Number.MAX_SAFE_INTEGER,
    maxBytes,
  });
  const resolved: Resolved = { batches: [], sealed: [], waitingOnSeq: undefined, fenced: false };
  let bytes = 0;
  let expected = fromSeq;
  let index = 0;
  while (expected <= toSeq && bytes < maxBytes) {
    const next = found[index];
    if (next && next.seq === expected) {
      resolved.batches.push(next);
      bytes += next.bytes;
      index++;
      expected++;
      continue;
    }
    // `expected` is a gap; the oldest it can have been allocated is bounded by the next written batch.
    const allocatedBy = next ? next.createdAtMs : (record.lastAllocAtMs ?? nowMs);
    if (nowMs - allocatedBy < gapSealMs) {
      resolved.waitingOnSeq = expected;
      break;
    }
    // I7: a stale record shows covered batches as gaps; seal only while we still hold it.
    const fresh = await readShardRecord(table, record.shard);
    if (!fresh || fresh.epoch !== input.epoch || fresh.durableSeq >= expected) {
      resolved.fenced = true;
      break;
    }
    const outcome = await sealVoid(table, record.shard, expected, nowMs);
    if (outcome === 'sealed') resolved.sealed.push(expected);
    // Either way the seq now holds something immutable: read what it is.
    const [settled] = await readBatches(table, {
      shard: record.shard,
      fromSeq: expected,
      toSeq: expected,
      maxBytes: Number.MAX_SAFE_INTEGER,
    });
    if (!settled) break;
    resolved.batches.push(settled);
    bytes += settled.bytes;
    expected++;
  }
  // Batches allocated after the claim, while contiguous. A missing one ends the run unsealed:
  // the next flush, whose claim sees it allocated, judges its age.
  if (expected > toSeq && resolved.waitingOnSeq === undefined && !resolved.fenced) {
    for (let next = found[index]; next?.seq === expected && bytes < maxBytes; next = found[index]) {
      resolved.batches.push(next);
      bytes += next.bytes;
      index++;
      expected++;
    }
  }
  return resolved;
}
