/**
 * How long a retryable refusal (backpressure, a poisoned shard, an
 * unavailable dependency, a repeat still in progress) keeps an ingest
 * message out of sight before SQS delivers it again, and how many receives
 * the queues allow before their redrive policy moves a message to the
 * dead-letter queue. One schedule, so the queues (`infra/constructs/queues.ts`)
 * and the handler cannot disagree:
 *
 *   visibility after the n-th receive = min(10 s × 2^(n−1), 15 min)
 *       10, 20, 40, 80, 160, 320, 640 s (21 min in all), then every 15 min;
 *   maxReceiveCount = the receives that add up to 7 days of waiting (678).
 *
 * Why these figures: a full buffer clears within a tick or two, so the first
 * retries come quickly; a poisoned shard waits for an operator's rebuild
 * (docs/deploy.md), which may take a weekend, so its messages keep coming
 * back every 15 minutes for a week rather than reaching the dead-letter queue
 * (or expiring) while nobody looked. Retention is 14 days (SQS's maximum),
 * so a message held back the whole week still has a week left.
 */
import { InternalError } from '../errors.js';

/** The schedule's figures. */
export const HOLD_BACK = {
  /** Visibility after the first failed receive. */
  firstSeconds: 10,
  /** Ceiling of the doubling visibility. */
  maxSeconds: 15 * 60,
  /** How long a message may be held back before the redrive policy takes it. */
  holdForSeconds: 7 * 24 * 3600,
  /** Retention of the ingest queues: SQS's maximum. */
  retentionSeconds: 14 * 24 * 3600,
} as const;

/** SQS's largest redrive maxReceiveCount. */
const MAX_REDRIVE_RECEIVES = 1000;

/** Seconds to hold a message back after its `receiveCount`-th receive failed (1 for the first). */
export function holdBackSeconds(receiveCount: number): number {
  const n = Math.max(1, Math.floor(receiveCount));
  // 2^(n−1) overflows nothing: past the ceiling the exponent no longer matters.
  if (n > 32) return HOLD_BACK.maxSeconds;
  return Math.min(HOLD_BACK.firstSeconds * 2 ** (n - 1), HOLD_BACK.maxSeconds);
}

/** The fewest receives whose hold-backs add up to `seconds` (the redrive maxReceiveCount). */
export function receivesToHold(seconds: number): number {
  let total = 0;
  for (let n = 1; n <= MAX_REDRIVE_RECEIVES; n++) {
    total += holdBackSeconds(n);
    if (total >= seconds) return n;
  }
  throw new InternalError(
    `holding ${seconds} s needs more than SQS's ${MAX_REDRIVE_RECEIVES} receives at ${HOLD_BACK.maxSeconds} s each`,
  );
}

/**
 * The redrive policy's maxReceiveCount of the ingest queues, deployed and
 * local: 7 days of the handler's hold-backs, so a poisoned shard's puts wait
 * for its rebuild. Permanent refusals never count against it: the handler
 * dead-letters those itself on their first receive.
 */
export const INGEST_MAX_RECEIVE_COUNT = receivesToHold(HOLD_BACK.holdForSeconds);
