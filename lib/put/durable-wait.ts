/**
 * Step 5 of the put path for `durability=durable`: wait, bounded, until the
 * WAL append that covers `seq` is committed (`durableSeq >= seq`). Poison
 * wakes the waiter with PoisonedError; a recovery rebuild (generation change)
 * with FencedError; a timeout returns false so the caller answers "not yet
 * durable" with the seq to check later.
 *
 * Ticks fall on the wall-clock grid (`lib/ticker/grid.ts`), so the waiter
 * knows when a commit can land: just after a grid tick, one flush later. It
 * reads the shard record at those commit moments instead of polling blind:
 * W1. A fresh allocation is read first at the next commit moment: the next
 *     grid tick plus the commit delay. Only a flush between ticks (a size
 *     trigger, an off-grid schedule) can commit it sooner: `maxPollMs` bounds
 *     how long such a commit goes unseen.
 * W1'. A tick that could not claim ahead of its slot (the first of an
 *     invocation, a whole-minute schedule, an idle process: K5 in
 *     `lib/ticker/claim-lead.ts`) resolves its batches a listing and a claim
 *     after the slot, so a batch written just after a grid tick, before that
 *     tick's commit moment, may be in its flush: such an allocation is read
 *     first at that moment (an interval sooner). A miss there with no flush
 *     holding the shard means the tick resolved without the batch: it goes
 *     straight to the next commit moment, without the re-reads of W3, and
 *     teaches the delay nothing (W4). A miss while a flush holds the shard
 *     (a live lease; its commit releases it) may still be covered by that
 *     flush, which resolved when its query was served, perhaps after the
 *     batch landed: it is re-read as W3's for as long as that flush holds
 *     the shard, so such a put is not acked an interval late.
 * W2. A repeat (no allocation of its own) reads at once: its batch may have
 *     been durable for long.
 * W3. A miss at a commit moment (the tick ran long) is re-read after half a
 *     commit delay, then at doubling gaps, until the next commit moment: a
 *     late commit is seen about as late again as it landed, at a few reads.
 *     No two reads are more than `maxPollMs` apart.
 * W4. The commit delay is learned per process (`CommitDelayEstimate`): a hit
 *     at the first commit moment shortens it by 2.5 %, a miss lengthens it
 *     by a tenth, so it settles where about four first reads in five hit
 *     (0.8 × ln 0.975 + 0.2 × ln 1.1 ≈ 0): most waiters read once, the rest
 *     once or twice more, half a delay apart, for about 1.3 reads a put
 *     (`npm run bench` prints them) at the cost of reading a few ms after
 *     the median commit rather than at it.
 * W5. `durableSeq >= seq` proves a fresh allocation durable: a rebuild that
 *     could quarantine or void its batch changes the generation first (a
 *     FencedError above). A repeat adopted the generation of its first read,
 *     so a rebuild before it went unseen: its seq is checked once more
 *     (`lib/status/seq-state.ts`, one read of the batch head) and a seq a
 *     rebuild quarantined or voided fails with FencedError naming the state,
 *     never answered durable. An empty seq at or below `durableSeq` that no
 *     quarantine names held the repeat's batch, flushed and since expired
 *     (L4 in `lib/liveness.ts`: a repeat asks within its idempotency window,
 *     which voids outlive).
 */
import { FencedError, PoisonedError } from '../errors.js';
import { leaseHeld, readShardRecord, type ShardRecord } from '../memtable/shard-record.js';
import type { Table } from '../memtable/table.js';
import { seqState } from '../status/seq-state.js';
import { SeqState } from '../status/seq-status.js';
import { nextGridTick } from '../ticker/grid.js';

/** Inputs of `waitDurable`. */
export interface WaitDurableInput {
  shard: string;
  seq: number;
  /** Generation at allocation; undefined adopts the first one read (a repeat that did not allocate). */
  generation: number | undefined;
  waitMs: number;
  /** The tick grid's interval; undefined (no ticker): read every `maxPollMs`. */
  intervalMs: number | undefined;
  /** How long after a grid tick its commits land: the learned estimate, else this process's (W4). */
  commitDelay?: CommitDelayEstimate;
  /** Starting commit delay of this process's estimate (about one flush). */
  commitDelayMs: number;
  /** Longest time between two reads (W1, W3). */
  maxPollMs: number;
  now: () => number;
  sleep: (ms: number) => Promise<void>;
}

/**
 * How long after a grid tick a commit lands, learned from the waiters' first
 * reads (W4): a short step down on a hit, four times as long up on a miss,
 * so it converges to about the 80th percentile delay, within [1 ms, the
 * bound it was given].
 */
export class CommitDelayEstimate {
  #ms: number;

  constructor(initialMs: number) {
    this.#ms = Math.max(1, initialMs);
  }

  /** The current estimate, at most `boundMs` (half an interval keeps moments ordered). */
  ms(boundMs: number): number {
    return Math.max(1, Math.min(Math.round(this.#ms), boundMs));
  }

  /** The first read at a commit moment found the seq durable. */
  hit(): void {
    this.#ms = Math.max(1, this.#ms * 0.975);
  }

  /** The first read at a commit moment found it not yet durable. */
  miss(boundMs: number): void {
    this.#ms = Math.min(boundMs, this.#ms * 1.1 + 1);
  }
}

let processCommitDelay: CommitDelayEstimate | undefined;

/** The first commit moment strictly after `nowMs` (W1, W3). */
export function nextCommitMoment(nowMs: number, intervalMs: number, commitDelayMs: number): number {
  return nextGridTick(nowMs - commitDelayMs, intervalMs) + commitDelayMs;
}

/** W5: a repeat's seq at or below `durableSeq` that a rebuild quarantined or voided fails loud. */
async function assertNotSetAside(table: Table, record: ShardRecord, seq: number): Promise<void> {
  const { state } = await seqState({ table }, record, seq);
  if (state === SeqState.quarantined || state === SeqState.void) {
    throw new FencedError(
      record.shard,
      `seq ${seq} is ${state}: a rebuild ${state === SeqState.void ? 'sealed it void' : 'set its rows aside for an operator'}, so its rows are not in the WAL; check GET /v1/shards/${record.shard}/seqs/${seq}`,
    );
  }
}

/** Resolves true once `seq` is durable, false when `waitMs` runs out. */
export async function waitDurable(table: Table, input: WaitDurableInput): Promise<boolean> {
  const { intervalMs, maxPollMs } = input;
  processCommitDelay ??= new CommitDelayEstimate(input.commitDelayMs);
  const estimate = input.commitDelay ?? processCommitDelay;
  const boundMs = intervalMs === undefined ? maxPollMs : Math.max(1, Math.floor(intervalMs / 2));
  const delayMs = estimate.ms(boundMs);
  const started = input.now();
  const deadline = started + input.waitMs;
  let generation = input.generation;
  const fresh = generation !== undefined;
  // The next read: at a commit moment, or `maxPollMs` on when that comes first.
  let readAt = started; // W2
  let atMoment = false;
  const planFrom = (now: number, moment: number) => {
    atMoment = moment <= now + maxPollMs;
    readAt = Math.min(moment, now + maxPollMs);
  };
  const noMoment = Number.POSITIVE_INFINITY;
  // W1, W1': the first commit moment after now, the running tick's when it has not committed yet.
  const firstMoment =
    fresh && intervalMs !== undefined ? nextCommitMoment(started, intervalMs, delayMs) : noMoment;
  // W1': that tick fired before the batch landed; it may have resolved without it.
  const mayBeMissed = firstMoment - delayMs <= started;
  if (fresh) planFrom(started, firstMoment);
  let reads = 0;
  // Gap of the re-reads after a missed commit moment (W3); undefined outside them.
  let streakGapMs: number | undefined;
  // Whether the re-reads wait on the flush a W1' miss found running (they end with it).
  let streakOnFlush = false;
  for (;;) {
    const wait = Math.min(readAt, deadline) - input.now();
    if (wait > 0) await input.sleep(wait);
    // A read the deadline pulled ahead of its commit moment says nothing of the delay.
    const readAtMoment = atMoment && input.now() >= readAt;
    const record = await readShardRecord(table, input.shard);
    reads++;
    if (record?.poison) throw new PoisonedError(input.shard, record.poison);
    generation ??= record?.generation;
    if (record && record.generation !== generation) {
      throw new FencedError(
        input.shard,
        `rebuilt by recovery (generation ${generation} → ${record.generation}) while seq ${input.seq} awaited durability; check its status`,
      );
    }
    const durable = record !== undefined && record.durableSeq >= input.seq;
    // W4: the first read of a fresh allocation, at its commit moment, teaches the delay (W1' aside).
    if (fresh && reads === 1 && readAtMoment && !mayBeMissed) {
      if (durable) estimate.hit();
      else estimate.miss(boundMs);
    }
    if (durable) {
      if (!fresh) await assertNotSetAside(table, record, input.seq);
      return true;
    }
    const now = input.now();
    if (now >= deadline) return false;
    const moment = intervalMs === undefined ? noMoment : nextCommitMoment(now, intervalMs, delayMs);
    // W3 after a miss at a commit moment; after a W1' miss the next moment is
    // soon enough, unless the flush of the running tick has yet to commit.
    const running = record !== undefined && leaseHeld(record, now);
    const missedRunningTick = atMoment && reads === 1 && mayBeMissed;
    const lateCommit = atMoment && (!missedRunningTick || running);
    if (lateCommit) {
      streakGapMs = Math.max(1, Math.round(delayMs / 2));
      streakOnFlush = missedRunningTick;
    } else if (streakGapMs !== undefined) streakGapMs *= 2;
    // A W1' streak waits on one flush: once it committed without this seq, the next moment is next.
    if (streakOnFlush && !running) streakGapMs = undefined;
    if (streakGapMs !== undefined && now + streakGapMs < Math.min(moment, now + maxPollMs)) {
      atMoment = false;
      readAt = now + streakGapMs;
    } else {
      streakGapMs = undefined;
      streakOnFlush = false;
      planFrom(now, moment);
    }
  }
}
