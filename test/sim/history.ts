/**
 * What the simulation observed while it ran, for the checker: every put
 * attempt and its answer, every seq allocation that applied (lost responses
 * included), and the violations found at the moment they happened (a
 * `durable: true` ack given for a seq not yet durable, a healthy shard
 * poisoned, drifting buffer accounting).
 */
import type { Intent } from './workload.js';

/** How one attempt of a put ended, as its producer saw it. */
export type AttemptOutcome =
  | { kind: 'ack'; seq: number | undefined; durable: boolean; repeated: boolean }
  | { kind: 'error'; status: number; errorKind: string; message: string }
  | { kind: 'crashed' };

/** One attempt of an intent. */
export interface Attempt {
  intent: number;
  attempt: number;
  startedAt: number;
  endedAt: number;
  outcome: AttemptOutcome;
}

/** One allocation update that applied (seen by the table, whatever its caller saw). */
export interface AllocationRecord {
  shard: string;
  seq: number;
  bytes: number;
  chargeEnd: number;
}

/** The run's observations. */
export class History {
  readonly attempts: Attempt[] = [];
  readonly allocations = new Map<string, Map<number, AllocationRecord>>();
  readonly violations: string[] = [];

  constructor(readonly intents: readonly Intent[]) {}

  attemptsOf(intent: number): Attempt[] {
    return this.attempts.filter((a) => a.intent === intent);
  }

  allocated(record: AllocationRecord): void {
    const byShard = this.allocations.get(record.shard) ?? new Map<number, AllocationRecord>();
    this.allocations.set(record.shard, byShard);
    byShard.set(record.seq, record);
  }

  violation(now: number, text: string): void {
    this.violations.push(`[t=${now}] ${text}`);
  }
}
