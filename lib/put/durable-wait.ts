/**
 * Step 5 of the put path for `durability=durable`: wait, bounded, until the
 * WAL append that covers `seq` is committed (`durableSeq >= seq`). Poison
 * wakes the waiter with PoisonedError; a recovery rebuild (generation change)
 * with FencedError; a timeout returns false so the caller answers "not yet
 * durable" with the seq to check later.
 */
import { FencedError, PoisonedError } from '../errors.js';
import { readShardRecord } from '../memtable/shard-record.js';
import type { Table } from '../memtable/table.js';

/** Inputs of `waitDurable`. */
export interface WaitDurableInput {
  shard: string;
  seq: number;
  /** Generation at allocation; undefined adopts the first one read (a repeat that did not allocate). */
  generation: number | undefined;
  waitMs: number;
  /** First re-read delay; it doubles after each read up to `maxPollMs`. */
  pollMs: number;
  /** Longest delay between reads (defaults to `pollMs`: no backoff). */
  maxPollMs?: number;
  now: () => number;
  sleep: (ms: number) => Promise<void>;
}

/** Resolves true once `seq` is durable, false when `waitMs` runs out. */
export async function waitDurable(table: Table, input: WaitDurableInput): Promise<boolean> {
  const deadline = input.now() + input.waitMs;
  // Backoff bounds the reads a long wait costs; the cap bounds the latency it adds.
  let delay = input.pollMs;
  let generation = input.generation;
  for (;;) {
    const record = await readShardRecord(table, input.shard);
    if (record?.poison) throw new PoisonedError(input.shard, record.poison);
    generation ??= record?.generation;
    if (record && record.generation !== generation) {
      throw new FencedError(
        input.shard,
        `rebuilt by recovery (generation ${generation} → ${record.generation}) while seq ${input.seq} awaited durability; check its status`,
      );
    }
    if (record && record.durableSeq >= input.seq) return true;
    const left = deadline - input.now();
    if (left <= 0) return false;
    await input.sleep(Math.min(delay, left));
    delay = Math.min(delay * 2, Math.max(input.pollMs, input.maxPollMs ?? input.pollMs));
  }
}
