/**
 * Admission of puts in the local gateway, per shard. Locally every DynamoDB
 * request of every put queues for one emulator thread, so a burst on one
 * shard made every put of it slow — refusals included — until deadlines
 * passed and refusals turned into 503s. Admission keeps a burst's answers
 * fast and its puts within their deadlines:
 *
 * P1. At most `maxInFlight` puts of one shard are in the handler at once;
 *     the others wait at the door in arrival order. A put's deadline starts
 *     in the handler, so waiting never turns into a 503; a put is never
 *     refused for waiting (deployed, nothing refuses a put for concurrency
 *     either, short of API Gateway's throttle).
 * P2. Once the handler refused a put of a shard for its full buffer (429),
 *     the shard's waiting and new puts are refused at once, with 429 and
 *     Retry-After, for `fullForMs` (about one flush interval: until a tick
 *     can have freed room), rather than each spending DynamoDB requests to
 *     learn the same. A put refused at the door never reached the handler:
 *     nothing was allocated or written, so the refusal is exact and the
 *     caller's retry safe.
 * A put the handler answers otherwise (202, 200, 4xx, 5xx) only frees its
 * place.
 */
import type { ShardwalConfig } from '../config.js';
import { AdmissionRefusedError } from './errors.js';

/** Options of `PutAdmission`. */
export interface PutAdmissionOptions {
  maxInFlight: number;
  fullForMs: number;
  /** The Retry-After of an admission refusal, in seconds. */
  retryAfterSeconds: number;
  now?: () => number;
}

/** Puts of one shard in the handler at once (P1). */
const MAX_IN_FLIGHT_PER_SHARD = 8;

/** The local stack's admission: a full buffer is taken as full for one flush interval. */
export function localPutAdmission(config: ShardwalConfig): PutAdmissionOptions {
  const intervalMs = config.flushIntervalMs ?? 1000;
  return {
    maxInFlight: MAX_IN_FLIGHT_PER_SHARD,
    fullForMs: intervalMs,
    retryAfterSeconds: Math.max(1, Math.ceil(intervalMs / 1000)),
  };
}

interface Waiter {
  enter: () => void;
  refuse: (error: AdmissionRefusedError) => void;
}

interface ShardDoor {
  inFlight: number;
  waiting: Waiter[];
  /** Until when the shard's buffer counts as full (P2). */
  fullUntilMs: number;
}

/** What a put that entered hands back when the handler answered. */
export type Leave = (status: number) => void;

/** The per-shard door; see the module comment. */
export class PutAdmission {
  readonly #options: PutAdmissionOptions;
  readonly #now: () => number;
  readonly #doors = new Map<string, ShardDoor>();

  constructor(options: PutAdmissionOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
  }

  /** Resolves once the put may enter (P1), with the function to call when it is answered; rejects with AdmissionRefusedError (P2). */
  async enter(shard: string): Promise<Leave> {
    const door = this.#door(shard);
    this.#refuseIfFull(shard, door);
    if (door.inFlight < this.#options.maxInFlight) {
      door.inFlight++;
    } else {
      await new Promise<void>((enter, refuse) => {
        door.waiting.push({ enter, refuse });
      });
    }
    let left = false;
    return (status) => {
      if (left) return;
      left = true;
      if (status === 429) door.fullUntilMs = this.#now() + this.#options.fullForMs;
      this.#leave(shard, door);
    };
  }

  #door(shard: string): ShardDoor {
    let door = this.#doors.get(shard);
    if (!door) {
      door = { inFlight: 0, waiting: [], fullUntilMs: 0 };
      this.#doors.set(shard, door);
    }
    return door;
  }

  #refuseIfFull(shard: string, door: ShardDoor): void {
    if (this.#now() < door.fullUntilMs) {
      throw this.#refusal(shard, 'its buffer was full a moment ago');
    }
  }

  #leave(shard: string, door: ShardDoor): void {
    door.inFlight--;
    const full = this.#now() < door.fullUntilMs;
    while (door.waiting.length > 0 && (full || door.inFlight < this.#options.maxInFlight)) {
      const waiter = door.waiting.shift()!;
      if (full) waiter.refuse(this.#refusal(shard, 'its buffer was full a moment ago'));
      else {
        door.inFlight++;
        waiter.enter();
      }
    }
    if (door.inFlight === 0 && door.waiting.length === 0 && !full) this.#doors.delete(shard);
  }

  #refusal(shard: string, reason: string): AdmissionRefusedError {
    return new AdmissionRefusedError(shard, reason, this.#options.retryAfterSeconds);
  }
}
