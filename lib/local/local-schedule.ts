/**
 * A scheduled job of the local stack: what EventBridge Scheduler does for the
 * export and verify functions in AWS, as a timer loop in the stack's process.
 *
 * Semantics:
 * S1. The first run starts one period after `start()`.
 * S2. Runs never overlap, and missed runs are delayed, not burst: the next
 *     run is due one period after the previous one *ends*.
 * S3. `stop()` cancels the timer, tells a running job to wrap up (`cutShort()`
 *     turns true; the handlers see it as their Lambda deadline and start no
 *     new shard) and resolves once that run has ended, so the stack's final
 *     flush and the emulators' close never race a job.
 * S4. A run that throws is reported to `onError` and the loop goes on; the
 *     next run retries, as the schedule's next invocation would.
 */
import { ConfigError } from '../errors.js';
import { logger } from '../observability/telemetry.js';

/** What a schedule runs and how often. */
export interface LocalScheduleOptions {
  /** For logs and status, e.g. `export`. */
  name: string;
  /** Environment name of the period's setting (named by a rejected period). */
  setting: string;
  everyMs: number;
  /** One run; `cutShort()` turns true when the schedule is stopping. */
  run: (cutShort: () => boolean) => Promise<unknown>;
  /** Called with the error of a failed run; logs it by default. */
  onError?: (error: unknown) => void;
}

/** Where a schedule stands, for tests and diagnostics. */
export interface LocalScheduleStatus {
  name: string;
  everyMs: number;
  /** Runs that ended, successfully or not. */
  runs: number;
  failures: number;
  running: boolean;
  /** What the last successful run resolved to (the handler's report). */
  lastResult: unknown;
}

/** A job on a timer; see the semantics above. */
export class LocalSchedule {
  readonly #options: LocalScheduleOptions;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #stopping = false;
  #runs = 0;
  #failures = 0;
  #lastResult: unknown;

  constructor(options: LocalScheduleOptions) {
    if (!Number.isInteger(options.everyMs) || options.everyMs <= 0) {
      throw new ConfigError(
        options.setting,
        options.everyMs,
        'expected a whole number of at least 1',
      );
    }
    this.#options = options;
  }

  /** Schedules the first run (S1). */
  start(): void {
    this.#stopping = false;
    this.#arm();
  }

  /** Stops the loop; resolves once a running job has ended (S3). Safe to call more than once. */
  async stop(): Promise<void> {
    this.#stopping = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#running;
  }

  /** A snapshot of the counters. */
  status(): LocalScheduleStatus {
    return {
      name: this.#options.name,
      everyMs: this.#options.everyMs,
      runs: this.#runs,
      failures: this.#failures,
      running: this.#running !== undefined,
      lastResult: this.#lastResult,
    };
  }

  #arm(): void {
    if (this.#stopping) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#running = this.#runOnce().finally(() => {
        this.#running = undefined;
        this.#arm(); // S2: one period after this run ended
      });
    }, this.#options.everyMs);
    // The schedule alone never keeps the process alive (the servers do).
    this.#timer.unref();
  }

  async #runOnce(): Promise<void> {
    try {
      this.#lastResult = await this.#options.run(() => this.#stopping);
    } catch (error) {
      this.#failures += 1;
      (this.#options.onError ?? ((e) => reportRunError(this.#options.name, e)))(error);
    } finally {
      this.#runs += 1;
    }
  }
}

function reportRunError(name: string, error: unknown): void {
  logger.error(`local ${name} job failed; the next run retries`, { error: error as Error });
}
