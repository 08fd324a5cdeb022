/**
 * Step 3 of the put path for an idempotent put, run right after its seq is
 * allocated (K1 in `lib/memtable/idempotency.ts`): make the key this put's,
 * or find the answer a repeat gets instead. The reservation's conditional
 * create is also the existence check: a first put pays that one request.
 *
 *   - no live record: create the reservation naming our seq → ours;
 *   - another payload under the key (K5) → KeyReusedError (422);
 *   - done (a record of an earlier version) → its ack;
 *   - pending, and the owner's batch is at its seq (K6) → that batch's ack;
 *   - pending, lease live → InProgressError (409);
 *   - pending and our own (a create whose response was lost) → ours;
 *   - pending, lease expired (its put is past its deadline, L3): settle the
 *     seq it recorded (K3). Landed → answer that ack; not landed (now
 *     provably: sealed void) → take the reservation over, naming our seq;
 *     past the key's window (the settle could no longer tell) → the window
 *     is over, create afresh.
 * Races between takers are decided by conditional writes; a loser re-reads.
 * A reservation is created or taken over only before the put's deadline
 * (L1): a void at the seq it names then outlives the key's window (L4),
 * which is what lets a settle read an emptied durable seq as landed.
 */
import { InProgressError, KeyReusedError, PutDeadlineError } from '../errors.js';
import { readBatchHead } from '../memtable/batch-heads.js';
import {
  createReservation,
  type IdempotencyRecord,
  type PutAck,
  type ReservationInput,
  readIdempotencyRecord,
  takeOverReservation,
} from '../memtable/idempotency.js';
import type { Table } from '../memtable/table.js';
import { settleRecordedSeq } from './settle-seq.js';

/** What claiming the key decided. */
export type KeyClaim = { kind: 'ours' } | { kind: 'answer'; ack: PutAck };

/** What `claimKey` needs besides the reservation itself. */
export interface ClaimContext {
  table: Table;
  now: () => number;
  /** The put's deadline (L1): no reservation is created or taken over from then on. */
  deadlineAtMs: number;
}

/** Rounds of create/read/take-over before a contended key is answered "in progress". */
const CLAIM_ROUNDS = 4;

/** Claims `input.key` for the put that allocated `input.seq`. */
export async function claimKey(ctx: ClaimContext, input: ReservationInput): Promise<KeyClaim> {
  const { table } = ctx;
  for (let round = 1; round <= CLAIM_ROUNDS; round++) {
    const nowMs = ctx.now();
    if (nowMs >= ctx.deadlineAtMs) throw new PutDeadlineError(input.shard, input.seq);
    if (await createReservation(table, { ...input, nowMs })) return { kind: 'ours' };
    const record = await readIdempotencyRecord(table, input.shard, input.key, nowMs);
    if (!record) continue; // released or past its window since: create again
    if (record.fingerprint !== input.fingerprint) throw new KeyReusedError(input.key, input.shard);
    const ack = await landedAck(table, input.shard, record);
    if (ack) return { kind: 'answer', ack };
    if (record.state === 'done') continue; // unreachable: a done record has its ack
    if (record.owner === input.owner) return { kind: 'ours' }; // our create; its response was lost
    if (record.leaseExpiresAtMs >= nowMs) {
      throw new InProgressError(input.key, retryAfterSeconds(record.leaseExpiresAtMs - nowMs));
    }
    const outcome = await settleRecordedSeq(
      table,
      input.shard,
      record.seq,
      { owner: record.owner, key: input.key, askableUntilMs: record.expiresAtMs },
      ctx.now,
    );
    if (outcome.landed === 'past-window') continue;
    if (outcome.landed) {
      return { kind: 'answer', ack: ackOf(input.shard, record.seq, outcome.rows ?? record.rows) };
    }
    if (await takeOverReservation(table, record.owner, { ...input, nowMs }))
      return { kind: 'ours' };
  }
  throw new InProgressError(input.key, 1);
}

/**
 * The ack of a repeat whose first put is known to have landed: a record of
 * an earlier version carries it; otherwise the owner's batch at the recorded
 * seq does (K6). Undefined when that batch is not (or no longer) there.
 */
export async function landedAck(
  table: Table,
  shard: string,
  record: IdempotencyRecord,
): Promise<PutAck | undefined> {
  if (record.state === 'done') return record.ack;
  const head = await readBatchHead(table, shard, record.seq);
  if (head?.kind !== 'rows' || head.putId !== record.owner) return undefined;
  return ackOf(shard, record.seq, head.rowCount);
}

function ackOf(shard: string, seq: number, rows: number): PutAck {
  return { shard, seq, rows, durable: false };
}

function retryAfterSeconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}
