/**
 * Concurrency of the functions that must keep running when the rest of the
 * account is busy. Reserved concurrency both guarantees and caps: a burst of
 * puts cannot take the flushers' capacity, and a runaway schedule cannot take
 * everyone else's. Accounts whose concurrency quota is too low to reserve
 * (Lambda keeps 100 unreserved) turn it off with `reservedConcurrency=off`;
 * the caps on the event sources stay either way.
 */
import type { HandlerName } from './functions.js';

/**
 * Reserved concurrency per function besides the flush workers (whose number
 * is a setting, `flushWorkers`); functions not listed share the account's pool.
 */
const RESERVED_CONCURRENCY = {
  // One scheduled invocation a minute, which runs until the end of its minute:
  // the next one may start while the last tick of the previous one commits
  // (that overlap is fenced), so 2, never 1, which would throttle the next minute.
  flushTick: 2,
  // The scheduled run plus one on-demand run (`{"shard": ...}`); two runs on one
  // shard are safe (create-if-absent manifest, conditional watermark).
  export: 2,
  // The scheduled verify plus one on-demand rebuild or verify.
  recover: 2,
  // tableCommit: none. A backfill run may outlast its one-minute period, and
  // a cap would turn the next minutes' invocations into throttles, failure
  // records and alarms. Overlapping committers are safe (the next metadata
  // file is created if absent; the loser re-applies its append on the new
  // base), they only repeat work, and each run ends within its 15 minutes.
} as const satisfies Partial<Record<HandlerName, number>>;

/**
 * The reservation of `name`, or undefined when it has none or reservations
 * are off. The flush workers (tick fan-out and size-triggered flush requests)
 * reserve `flushWorkers` (`SHARDWAL_FLUSH_WORKERS`, 40 by default): the flush
 * queue's event source is capped at the same number, so SQS never meets a
 * throttle, and a tick hands over at most that many lists (P6 in
 * `lib/ticker/tick-plan.ts`), each what one worker flushes within the
 * interval (about 360 shards at 10 ms DynamoDB and 50 ms S3 requests,
 * docs/ticker.md): 40 cover about 14,000 active shards a second beyond the
 * tick's own.
 */
export function reservedConcurrencyOf(
  name: HandlerName,
  enabled: boolean,
  flushWorkers: number,
): number | undefined {
  if (!enabled) return undefined;
  if (name === 'flushWorker') return flushWorkers;
  return (RESERVED_CONCURRENCY as Partial<Record<HandlerName, number>>)[name];
}
