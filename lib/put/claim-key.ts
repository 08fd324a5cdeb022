/**
 * Step 2 of the put path for an idempotent put, run right after its seq is
 * allocated (K1 in `lib/memtable/idempotency.ts`): make the key this put's,
 * or find the answer a repeat gets instead.
 *
 *   - no live record: create the reservation naming our seq → ours;
 *   - another payload under the key (K5) → KeyReusedError (422);
 *   - done → the original ack (a repeat);
 *   - pending, lease live → InProgressError (409);
 *   - pending, lease expired (its put is past its deadline, L3): settle the
 *     seq it recorded (K3). Landed → record and answer that ack; not landed
 *     (now provably: sealed void) → take the reservation over, naming our seq.
 * Races between takers are decided by conditional writes; a loser re-reads.
 */
import { InProgressError, KeyReusedError } from '../errors.js';
import {
  completeReservation,
  createReservation,
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
}

/** Rounds of create/read/take-over before a contended key is answered "in progress". */
const CLAIM_ROUNDS = 4;

/** Claims `input.key` for the put that allocated `input.seq`. */
export async function claimKey(ctx: ClaimContext, input: ReservationInput): Promise<KeyClaim> {
  const { table } = ctx;
  for (let round = 1; round <= CLAIM_ROUNDS; round++) {
    const nowMs = ctx.now();
    if (await createReservation(table, { ...input, nowMs })) return { kind: 'ours' };
    const record = await readIdempotencyRecord(table, input.shard, input.key, nowMs);
    if (!record) continue; // released or past its window since: create again
    if (record.fingerprint !== input.fingerprint) throw new KeyReusedError(input.key, input.shard);
    if (record.state === 'done') return { kind: 'answer', ack: record.ack };
    if (record.leaseExpiresAtMs >= nowMs) {
      throw new InProgressError(input.key, retryAfterSeconds(record.leaseExpiresAtMs - nowMs));
    }
    const outcome = await settleRecordedSeq(
      table,
      input.shard,
      record.seq,
      { owner: record.owner, key: input.key },
      nowMs,
    );
    if (outcome.landed) {
      const ack: PutAck = {
        shard: input.shard,
        seq: record.seq,
        rows: outcome.rows ?? record.rows,
        durable: false,
      };
      const as = { takeOverFrom: record.owner, nowMs };
      if (await completeReservation(table, input.key, ack, as, nowMs, input.ttlMs)) {
        return { kind: 'answer', ack };
      }
      continue;
    }
    if (await takeOverReservation(table, record.owner, { ...input, nowMs }))
      return { kind: 'ours' };
  }
  throw new InProgressError(input.key, 1);
}

function retryAfterSeconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}
