/**
 * A fault-injecting decorator over any DynamoDB `send` (normally a
 * `MemoryDynamoDB`), which also plays the SDK's own retry loop (see
 * `sdk-retry.ts`), so what shardwal sees is what a `DynamoDBClient` would
 * hand it after its retries. Per attempt it may:
 *
 * - `throttle`: fail before the request applies (ProvisionedThroughputExceeded
 *   or ThrottlingException, 400), changing nothing;
 * - `internalError`: fail before it applies with a 500 InternalServerError;
 * - `lostResponse`: apply the request, then fail as a dropped connection does
 *   (`TimeoutError`, code ECONNRESET, no status): the write landed;
 * - add latency through the injected `sleep`, before and after applying.
 *
 * Throttles, 500s and lost responses are retried as the SDK retries them, so
 * a lost response on a non-idempotent update re-applies it, and a conditional
 * write that landed fails its condition when re-sent; only the last attempt's
 * error reaches the caller. Inner clients must not retry themselves (a
 * `DynamoDBClient` under this one wants `maxAttempts: 1`).
 *
 * Deterministic: with the same `random`, script and sequence of calls, the
 * same attempts fail. An unscripted attempt draws once for its fault (when a
 * fault probability applies) and three times for latency (when latency
 * applies); each retry draws once for its backoff.
 */
import {
  InternalServerError,
  ProvisionedThroughputExceededException,
  ThrottlingException,
} from '@aws-sdk/client-dynamodb';
import { ConfigError } from '../../../lib/errors.js';
import type { DynamoSender } from './memory-dynamodb.js';
import {
  backoffDelayMs,
  classifyRetryError,
  isRetryable,
  RetryQuota,
  SDK_RETRY,
} from './sdk-retry.js';

/** What happens to one attempt. */
export const DynamoFault = {
  pass: 'pass',
  throttle: 'throttle',
  internalError: 'internalError',
  lostResponse: 'lostResponse',
} as const;
export type DynamoFault = (typeof DynamoFault)[keyof typeof DynamoFault];

/** Per-attempt probabilities; the three faults are exclusive, latency combines with any. */
export interface FaultProbabilities {
  throttle?: number;
  internalError?: number;
  lostResponse?: number;
  latency?: number;
}

/** The live fault settings; change them at any time (e.g. `enabled = false` to drain). */
export interface FaultSettings {
  /** When false, nothing is injected (scripted faults wait until it is true again). */
  enabled: boolean;
  throttle: number;
  internalError: number;
  lostResponse: number;
  latency: number;
  /** Upper bound of each injected delay (before and after applying), ms. */
  maxLatencyMs: number;
  /** Overrides per operation name (e.g. `UpdateItem`), field by field. */
  byOperation: Partial<Record<string, FaultProbabilities>>;
}

/** Counts of one operation, or of all. */
export interface FaultCounts {
  /** Calls of `send`. */
  requests: number;
  /** Attempts sent, retries included. */
  attempts: number;
  throttles: number;
  internalErrors: number;
  lostResponses: number;
  /** Attempts given latency, and its total (ms). */
  delayed: number;
  delayedMs: number;
  /** Retries the emulated SDK made, and their backoff total (ms). */
  retries: number;
  retryDelayMs: number;
  /** Retries refused because the retry quota was spent. */
  quotaRefusals: number;
  /** Errors that reached the caller. */
  surfacedErrors: number;
}

/** Settings of `FaultyDynamoClient`. */
export interface FaultyDynamoClientOptions {
  /** Seeded source in [0, 1) (`lib/seeded-random.ts`). */
  random: () => number;
  faults?: Partial<FaultSettings>;
  /** Attempts per request, as the client's `maxAttempts` (default: DynamoDB's 4). */
  maxAttempts?: number;
  /** How time passes: a simulation's virtual clock; default real timers. */
  sleep?: (ms: number) => Promise<void>;
}

function emptyCounts(): FaultCounts {
  return {
    requests: 0,
    attempts: 0,
    throttles: 0,
    internalErrors: 0,
    lostResponses: 0,
    delayed: 0,
    delayedMs: 0,
    retries: 0,
    retryDelayMs: 0,
    quotaRefusals: 0,
    surfacedErrors: 0,
  };
}

const PROBABILITIES = ['throttle', 'internalError', 'lostResponse', 'latency'] as const;

/** Wraps a DynamoDB client with seeded faults and the SDK's retries. */
export class FaultyDynamoClient {
  readonly faults: FaultSettings;
  /** Totals over every operation. */
  readonly counters: FaultCounts = emptyCounts();
  /** Counts per operation name. */
  readonly countersByOperation: Record<string, FaultCounts> = {};
  /** The client-wide retry quota the SDK keeps. */
  readonly quota = new RetryQuota();
  readonly #inner: DynamoSender;
  readonly #random: () => number;
  readonly #maxAttempts: number;
  readonly #sleep: (ms: number) => Promise<void>;
  readonly #script = new Map<string, DynamoFault[]>();

  constructor(inner: DynamoSender, options: FaultyDynamoClientOptions) {
    this.#inner = inner;
    this.#random = options.random;
    this.#maxAttempts = options.maxAttempts ?? SDK_RETRY.maxAttempts;
    if (!(Number.isInteger(this.#maxAttempts) && this.#maxAttempts >= 1)) {
      throw new ConfigError('maxAttempts', this.#maxAttempts, 'expected an integer >= 1');
    }
    this.#sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.faults = {
      enabled: true,
      throttle: 0,
      internalError: 0,
      lostResponse: 0,
      latency: 0,
      maxLatencyMs: 0,
      byOperation: {},
      ...options.faults,
    };
    this.#probabilities('');
    for (const operation of Object.keys(this.faults.byOperation)) this.#probabilities(operation);
  }

  /** Queues faults for the next attempts of `operation` (e.g. 'UpdateItem'), before any probability. */
  script(operation: string, ...faults: DynamoFault[]): void {
    this.#script.set(operation, [...(this.#script.get(operation) ?? []), ...faults]);
  }

  /** Nothing to release; callers `destroy()` their clients. */
  destroy(): void {}

  /** Sends `command` through faults and the emulated SDK retries. */
  // biome-ignore lint/suspicious/noExplicitAny: a drop-in for DynamoDBClient.send
  async send(command: any): Promise<any> {
    const operation = String(command?.constructor?.name ?? 'Unknown').replace(/Command$/, '');
    const counts = this.countersByOperation[operation] ?? emptyCounts();
    this.countersByOperation[operation] = counts;
    const count = (field: keyof FaultCounts, by = 1) => {
      this.counters[field] += by;
      counts[field] += by;
    };
    count('requests');
    let totalRetryDelay = 0;
    let retryCost: number | undefined;
    for (let attempt = 1; ; attempt++) {
      count('attempts');
      const outcome = await this.#attempt(operation, command, count);
      if (!('error' in outcome)) {
        this.quota.release(retryCost);
        const output = outcome.output as { $metadata?: object } | undefined;
        if (output && typeof output === 'object') {
          output.$metadata = { ...output.$metadata, attempts: attempt, totalRetryDelay };
        }
        return output;
      }
      const { error } = outcome;
      const type = classifyRetryError(error);
      let cost: number | undefined;
      if (isRetryable(type) && attempt < this.#maxAttempts) {
        cost = this.quota.acquire(type);
        if (cost === undefined) count('quotaRefusals');
      }
      if (cost === undefined) {
        count('surfacedErrors');
        annotate(error, attempt, totalRetryDelay);
        throw error;
      }
      retryCost = cost;
      const delay = backoffDelayMs(type, attempt - 1, this.#random);
      count('retries');
      count('retryDelayMs', delay);
      totalRetryDelay += delay;
      await this.#sleep(delay);
    }
  }

  async #attempt(
    operation: string,
    command: unknown,
    count: (field: keyof FaultCounts, by?: number) => void,
  ): Promise<{ output: unknown } | { error: unknown }> {
    const fault = this.#draw(operation);
    const latency = this.#drawLatency(operation);
    if (latency) {
      count('delayed');
      count('delayedMs', latency[0] + latency[1]);
      await this.#sleep(latency[0]);
    }
    let outcome: { output: unknown } | { error: unknown };
    if (fault === DynamoFault.throttle || fault === 'throttle-provisioned') {
      count('throttles');
      outcome = { error: throttleError(fault === 'throttle-provisioned') };
    } else if (fault === DynamoFault.internalError) {
      count('internalErrors');
      outcome = { error: internalError() };
    } else {
      try {
        outcome = { output: await this.#inner.send(command) };
      } catch (error) {
        outcome = { error };
      }
      if (fault === DynamoFault.lostResponse) {
        count('lostResponses');
        outcome = { error: lostResponseError() };
      }
    }
    if (latency) await this.#sleep(latency[1]);
    return outcome;
  }

  /** The fault of one attempt: scripted first, then one draw against the probabilities. */
  #draw(operation: string): DynamoFault | 'throttle-provisioned' {
    if (!this.faults.enabled) return DynamoFault.pass;
    const scripted = this.#script.get(operation)?.shift();
    if (scripted !== undefined) return scripted;
    const p = this.#probabilities(operation);
    if (p.throttle + p.internalError + p.lostResponse === 0) return DynamoFault.pass;
    const r = this.#random();
    // Half the throttles are ProvisionedThroughputExceeded, half ThrottlingException: same draw.
    if (r < p.throttle) return r < p.throttle / 2 ? 'throttle-provisioned' : DynamoFault.throttle;
    if (r < p.throttle + p.internalError) return DynamoFault.internalError;
    if (r < p.throttle + p.internalError + p.lostResponse) return DynamoFault.lostResponse;
    return DynamoFault.pass;
  }

  #drawLatency(operation: string): [number, number] | undefined {
    const p = this.#probabilities(operation).latency;
    if (!this.faults.enabled || p === 0) return undefined;
    const hit = this.#random() < p;
    const before = Math.floor(this.#random() * (this.faults.maxLatencyMs + 1));
    const after = Math.floor(this.#random() * (this.faults.maxLatencyMs + 1));
    return hit ? [before, after] : undefined;
  }

  /** The effective probabilities of `operation` (validated: each in 0..1, faults summing to <= 1). */
  #probabilities(operation: string): Required<FaultProbabilities> {
    const override = this.faults.byOperation[operation] ?? {};
    const p = {} as Required<FaultProbabilities>;
    for (const kind of PROBABILITIES) {
      const value = override[kind] ?? this.faults[kind];
      if (!(value >= 0 && value <= 1)) {
        throw new ConfigError(
          `faults.${operation ? `byOperation.${operation}.` : ''}${kind}`,
          value,
          'expected 0..1',
        );
      }
      p[kind] = value;
    }
    if (p.throttle + p.internalError + p.lostResponse > 1) {
      throw new ConfigError(
        `faults${operation ? `.byOperation.${operation}` : ''}`,
        p,
        'fault probabilities sum past 1',
      );
    }
    return p;
  }
}

/** What the SDK's retry middleware adds to the error it finally throws. */
function annotate(error: unknown, attempts: number, totalRetryDelay: number): void {
  if (!error || typeof error !== 'object') return;
  const e = error as { $metadata?: object };
  e.$metadata = { ...e.$metadata, attempts, totalRetryDelay };
}

function throttleError(provisioned: boolean): Error {
  const $metadata = { httpStatusCode: 400 };
  return provisioned
    ? new ProvisionedThroughputExceededException({
        $metadata,
        message:
          'The level of configured provisioned throughput for the table was exceeded. Consider increasing your provisioning level with the UpdateTable API.',
      })
    : new ThrottlingException({
        $metadata,
        message:
          'Throughput exceeds the current capacity of your table or index. Please try again shortly.',
      });
}

function internalError(): Error {
  return new InternalServerError({
    $metadata: { httpStatusCode: 500 },
    message: 'Internal server error',
  });
}

/** A dropped connection as @smithy/node-http-handler reports it: no response, so no status. */
function lostResponseError(): Error {
  return Object.assign(new Error('socket hang up'), { name: 'TimeoutError', code: 'ECONNRESET' });
}
