/**
 * The sparse "has pending data" index: a tick reads it to find active shards,
 * so a tick costs O(active shards), not O(all shards). The put path sets the
 * marker in its allocation update; the flusher clears it only when no put
 * arrived since (condition on `nextSeq`).
 */
import { updateShardRecord } from './shard-record.js';
import { listIndexShards, PENDING_INDEX, PENDING_PK, type Table } from './table.js';

/** The attributes that put a shard record in the index (the put path sets them, step 7 removes them). */
export const PENDING_MARKER = ['pendingPk', 'pendingShard', 'pendingSinceMs'] as const;

/**
 * What step 7 sets besides removing the marker: no byte is buffered any more,
 * and every charge is released (A2 in `allocate.ts`); `:zero` is 0.
 */
export const DRAIN_SET =
  'bufferedBytes = :zero, releasedBytes = if_not_exists(chargedBytes, :zero)';

/** Names of shards marked pending, ascending. */
export async function listPendingShards(table: Table): Promise<string[]> {
  return listIndexShards(
    table,
    { name: PENDING_INDEX, partition: 'pendingPk', pk: PENDING_PK, shard: 'pendingShard' },
    'Query pending index',
  );
}

/**
 * Step 7 of the flush protocol on its own, for a claim that finds nothing
 * pending behind the marker (a commit does step 7 in its own update: C5 in
 * `commit.ts`): clears the marker and zeroes the buffered bytes only if
 * every allocated batch is durable and no put arrived since (`nextSeq`
 * unchanged). Zeroing also drops bytes of seqs that ended void,
 * and releases every charge (A2 in `allocate.ts`).
 * Returns false when a put won the race (the marker stays).
 */
export async function clearPending(
  table: Table,
  shard: string,
  expectedNextSeq: number,
): Promise<boolean> {
  const out = await updateShardRecord(
    table,
    shard,
    {
      update: `REMOVE ${PENDING_MARKER.join(', ')} SET ${DRAIN_SET}`,
      condition: 'nextSeq = :next AND durableSeq = :durable',
      values: {
        ':next': { N: String(expectedNextSeq) },
        ':durable': { N: String(expectedNextSeq - 1) },
        ':zero': { N: '0' },
      },
    },
    'UpdateItem clear pending',
  );
  return out !== undefined;
}
