/**
 * The `OldestPendingAgeMs` gauge: how long the oldest pending batch among the
 * shards a tick handled has waited, emitted on every tick whether or not its
 * flushes succeed, so a stalled shard is never silent.
 *
 * A flush that commits reports the age of the oldest batch it covered (the
 * oldest pending one, by the protocol). A shard whose flush did not commit
 * (failed, busy, waiting on a gap, fenced, poisoned) costs one read: its
 * record's `pendingSinceMs`, the same stamp the stall refusal (L5) reads. A
 * record written before that stamp existed costs a second read, of the batch
 * heads just above `durableSeq`.
 */
import type { FlushOutcome } from '../flush/flush-shard.js';
import { listBatchHeads } from '../memtable/batch-heads.js';
import { hasPendingBatches, readShardRecord } from '../memtable/shard-record.js';
import type { Table } from '../memtable/table.js';

/** Batch heads read above `durableSeq` to date an unwritten one (a gap) by the next written. */
const HEADS_PROBED = 4;

/**
 * When the oldest pending batch of `shard` was allocated, as the table holds
 * it now; undefined when nothing is pending. `pendingSinceMs` is the first
 * allocation since the shard was last empty, or the newest allocation the
 * last commit covered: never later than the truth, so the age errs old, as an
 * alarm should. Without it, a gap's allocation is bounded by the write time of
 * any later batch, then by the shard's last allocation (a lower bound).
 */
export async function oldestPendingAtMs(table: Table, shard: string): Promise<number | undefined> {
  const record = await readShardRecord(table, shard);
  if (!record || !hasPendingBatches(record)) return undefined;
  if (record.pendingSinceMs !== undefined) return record.pendingSinceMs;
  const fromSeq = record.durableSeq + 1;
  const toSeq = Math.min(record.nextSeq - 1, fromSeq + HEADS_PROBED - 1);
  const heads = await listBatchHeads(table, shard, fromSeq, toSeq);
  const written = heads.map((head) => head.createdAtMs);
  if (written.length > 0) return Math.min(...written);
  return record.lastAllocAtMs;
}

/** The gauge's value: the largest of the ages seen, 0 when none. */
export function oldestAgeMs(agesMs: readonly number[]): number {
  return agesMs.reduce((oldest, age) => Math.max(oldest, age), 0);
}

/** Outcomes after which the shard's oldest pending batch is known without a read. */
export const SETTLED: ReadonlySet<FlushOutcome['status']> = new Set(['flushed', 'idle']);

/**
 * The age of the oldest batch `shard` had pending when its flush ended with
 * `outcome` (undefined: the flush threw): the covered lag when it committed,
 * 0 when idle, else one read (`oldestPendingAtMs`). A failed read counts 0
 * and is logged by the caller's `onReadError`.
 */
export async function pendingAgeAfter(
  table: Table,
  nowMs: () => number,
  shard: string,
  outcome: FlushOutcome | undefined,
  onReadError: (error: unknown) => void,
): Promise<number> {
  if (outcome?.status === 'flushed') return outcome.lagMs;
  if (outcome?.status === 'idle') return 0;
  try {
    const oldestAt = await oldestPendingAtMs(table, shard);
    return oldestAt === undefined ? 0 : Math.max(0, nowMs() - oldestAt);
  } catch (error) {
    onReadError(error);
    return 0;
  }
}
