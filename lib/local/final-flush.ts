/**
 * The local stack's last word on stop, after the ticker's own final tick:
 * tick again while shards stay pending and ticks still make progress (a shard
 * with more buffered than one WAL object takes, or a put that landed during
 * the final tick). What remains pending stays in the persisted memtable and
 * the next start flushes it: nothing acked is lost either way.
 */
import { listPendingShards } from '../memtable/pending-index.js';
import { runTick, type TickDeps } from '../ticker/tick.js';

/** Ticks until no shard is pending or a tick flushes nothing; returns the shards still pending. */
export async function flushUntilIdle(deps: TickDeps, maxTicks = 20): Promise<string[]> {
  for (let tick = 0; tick < maxTicks; tick++) {
    if ((await listPendingShards(deps.flush.table)).length === 0) return [];
    const summary = await runTick(deps);
    if (!summary.outcomes.some((outcome) => outcome.status === 'flushed')) break;
  }
  return listPendingShards(deps.flush.table);
}
