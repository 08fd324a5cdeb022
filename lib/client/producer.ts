/**
 * `BatchingProducer`: rows in, batches out, for one shard over one transport
 * (HTTP puts, SQS messages). Guarantees:
 *
 * 1. Rows are serialized once, on `append`, and cut into batches by count and
 *    bytes (`row-batcher.ts`); a batch also leaves after `lingerMs` since it
 *    opened, when lingering is on.
 * 2. Batch `i` has the Idempotency-Key `<keyPrefix>-<i>`; the transport keeps
 *    it across that batch's retries, so a batch lands at most once.
 * 3. At most `maxInFlight` batches are in flight; `append` waits for room
 *    (backpressure: an awaited `append` never piles up memory). With
 *    `maxInFlight: 1` batches land in append order, which keyed rows need
 *    (the newest position of a key wins).
 * 4. A batch that fails for good is kept with its key and row count:
 *    `flush()` and `close()` throw them as one `ProducerBatchError`;
 *    `onBatch` hears every outcome as it happens (what it throws, `flush()`
 *    throws). Nothing is dropped silently. With `stopOnFailure`, nothing is
 *    sent after the first failure: later appends reject with
 *    `ProducerStoppedError` and rows not yet sent are counted `unsentRows`.
 * 5. `flush()` resolves once every row appended before it has settled;
 *    `close()` flushes and refuses further appends.
 */
import { InternalError, ShardwalError } from '../errors.js';
import {
  type FailedBatch,
  ProducerBatchError,
  ProducerClosedError,
  ProducerStoppedError,
} from './errors.js';
import { type BatchLimits, RowBatcher } from './row-batcher.js';
import { type RawRow, type Row, rowText } from './rows.js';

/** A batch as the transport sends it. */
export interface SealedBatch {
  /** 0 for the first batch of this producer. */
  index: number;
  /** Its Idempotency-Key. */
  key: string;
  /** Rows appended before this batch's first row (0 for the first batch). */
  firstRow: number;
  /** The rows' JSON texts, in append order. */
  rowTexts: string[];
}

/** Sends one batch (with its own retries); resolves with the transport's ack. */
export type BatchSender<A> = (batch: SealedBatch) => Promise<A>;

/** One settled batch. */
export type BatchOutcome<A> =
  | { batch: SealedBatch; ack: A; error?: undefined }
  | { batch: SealedBatch; ack?: undefined; error: ShardwalError };

/** Options of a producer. */
export interface ProducerOptions<A> {
  /** Rows per batch (`maxRows` in `row-batcher.ts`). */
  maxBatchRows: number;
  /** Body bytes per batch, frame included. */
  maxBatchBytes: number;
  /** Send a batch this long after it opened even if not full; undefined: only when full or flushed. */
  lingerMs: number | undefined;
  /** Batches in flight at once. */
  maxInFlight: number;
  /** Batch keys are `<keyPrefix>-<index>`, unless `keyOf` says otherwise. */
  keyPrefix: string;
  /**
   * The Idempotency-Key of a batch, from its own rows (`shardwal put` keys a
   * batch by its content and its place in the file); default
   * `<keyPrefix>-<index>`. At most as long as `<keyPrefix>-` and 16
   * characters: the SQS producer sizes a message's key attribute by that.
   */
  keyOf?: (batch: Omit<SealedBatch, 'key'>) => string;
  /**
   * Send nothing after a batch fails for good. Keyed rows need it: a later
   * batch landing before the failed one is re-sent would let the re-sent,
   * older rows win their keys.
   */
  stopOnFailure?: boolean;
  /** Hears every settled batch. */
  onBatch?: (outcome: BatchOutcome<A>) => void;
}

/** Counters of a producer. */
export interface ProducerStats {
  appendedRows: number;
  sentBatches: number;
  ackedBatches: number;
  ackedRows: number;
  failedBatches: number;
  failedRows: number;
  /** Rows appended but never sent (`stopOnFailure`). */
  unsentRows: number;
  inFlight: number;
}

/** What every producer offers, whatever its transport and ack. */
export interface RowProducer {
  /** The limits batches are cut by. */
  readonly limits: BatchLimits;
  append(row: Row | RawRow): Promise<void>;
  /** Ends the open batch here (see `BatchingProducer.cut`). */
  cut(): Promise<void>;
  flush(): Promise<void>;
  close(): Promise<void>;
  stats(): ProducerStats;
}

/** See the module comment. */
export class BatchingProducer<A> implements RowProducer {
  readonly #send: BatchSender<A>;
  readonly #options: ProducerOptions<A>;
  readonly #batcher: RowBatcher;
  readonly #inFlight = new Set<Promise<void>>();
  #failures: FailedBatch[] = [];
  #callbackError: unknown;
  #stoppedBy: FailedBatch | undefined;
  #queue: Promise<unknown> = Promise.resolve();
  #linger: NodeJS.Timeout | undefined;
  #nextIndex = 0;
  #rowsDispatched = 0;
  #closed = false;
  readonly #stats: Omit<ProducerStats, 'inFlight'> = {
    appendedRows: 0,
    sentBatches: 0,
    ackedBatches: 0,
    ackedRows: 0,
    failedBatches: 0,
    failedRows: 0,
    unsentRows: 0,
  };

  /** The limits batches are cut by: rows, body bytes, and the body's bytes with no rows. */
  readonly limits: BatchLimits;

  constructor(send: BatchSender<A>, options: ProducerOptions<A>, frame: { overheadBytes: number }) {
    this.#send = send;
    this.#options = options;
    this.limits = {
      maxRows: options.maxBatchRows,
      maxBytes: options.maxBatchBytes,
      overheadBytes: frame.overheadBytes,
    };
    this.#batcher = new RowBatcher(this.limits);
  }

  /** Counters so far. */
  stats(): ProducerStats {
    return { ...this.#stats, inFlight: this.#inFlight.size };
  }

  /** Adds a row; resolves once it is in a batch (waits while `maxInFlight` batches are in flight). */
  append(row: Row | RawRow): Promise<void> {
    if (this.#closed) return Promise.reject(new ProducerClosedError('append'));
    if (this.#stoppedBy) return Promise.reject(new ProducerStoppedError(this.#stoppedBy));
    let text: string;
    try {
      text = rowText(row, 'row');
    } catch (error) {
      return Promise.reject(error);
    }
    return this.#enqueue(async () => {
      if (this.#stoppedBy) throw new ProducerStoppedError(this.#stoppedBy);
      const closed = this.#batcher.add(text);
      this.#stats.appendedRows++;
      for (const rows of closed) await this.#dispatch(rows);
      if (closed.length > 0) this.#clearLinger();
      this.#armLinger();
    });
  }

  /**
   * Ends the open batch here: sends it (waiting only for room among the
   * batches in flight, like `append`), so the next row starts a new batch.
   * Nothing happens when the open batch is empty.
   */
  cut(): Promise<void> {
    return this.#enqueue(async () => {
      this.#clearLinger();
      const rows = this.#batcher.take();
      if (rows) await this.#dispatch(rows);
    });
  }

  /** Sends the open batch and waits for every batch so far; throws the failures since the last flush. */
  async flush(): Promise<void> {
    await this.#enqueue(async () => {
      this.#clearLinger();
      const rows = this.#batcher.take();
      if (rows) await this.#dispatch(rows);
    });
    await Promise.all([...this.#inFlight]);
    if (this.#callbackError !== undefined) {
      const error = this.#callbackError;
      this.#callbackError = undefined;
      throw error;
    }
    if (this.#failures.length > 0) {
      const failures = this.#failures;
      this.#failures = [];
      throw new ProducerBatchError(failures);
    }
  }

  /** Flushes and refuses further appends; safe to call twice. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.flush();
  }

  /** Runs `step` after every step queued before it; a failed step fails only its own caller. */
  #enqueue(step: () => Promise<void>): Promise<void> {
    const run = this.#queue.then(step);
    this.#queue = run.catch(() => undefined);
    return run;
  }

  async #dispatch(rowTexts: string[]): Promise<void> {
    while (this.#inFlight.size >= this.#options.maxInFlight) await Promise.race(this.#inFlight);
    if (this.#stoppedBy) {
      this.#stats.unsentRows += rowTexts.length;
      return;
    }
    const index = this.#nextIndex++;
    const unkeyed = { index, firstRow: this.#rowsDispatched, rowTexts };
    const key = this.#options.keyOf?.(unkeyed) ?? `${this.#options.keyPrefix}-${index}`;
    const batch: SealedBatch = { ...unkeyed, key };
    this.#rowsDispatched += rowTexts.length;
    this.#stats.sentBatches++;
    const settled = this.#send(batch).then(
      (ack) => {
        this.#stats.ackedBatches++;
        this.#stats.ackedRows += rowTexts.length;
        this.#tell({ batch, ack });
      },
      (thrown: unknown) => {
        const error =
          thrown instanceof ShardwalError
            ? thrown
            : new InternalError(`batch ${index}: ${(thrown as Error).message}`, { cause: thrown });
        this.#stats.failedBatches++;
        this.#stats.failedRows += rowTexts.length;
        const failure = { index, key: batch.key, rows: rowTexts.length, error };
        this.#failures.push(failure);
        if (this.#options.stopOnFailure) this.#stoppedBy ??= failure;
        this.#tell({ batch, error });
      },
    );
    const tracked = settled.finally(() => this.#inFlight.delete(tracked));
    this.#inFlight.add(tracked);
  }

  #tell(outcome: BatchOutcome<A>): void {
    try {
      this.#options.onBatch?.(outcome);
    } catch (error) {
      this.#callbackError ??= error;
    }
  }

  #armLinger(): void {
    const { lingerMs } = this.#options;
    if (lingerMs === undefined || this.#linger || this.#batcher.rowCount === 0) return;
    this.#linger = setTimeout(() => {
      this.#linger = undefined;
      this.#enqueue(async () => {
        const rows = this.#batcher.take();
        if (rows) await this.#dispatch(rows);
      }).catch(() => undefined); // a dispatch never rejects; failures go to #failures
    }, lingerMs);
  }

  #clearLinger(): void {
    clearTimeout(this.#linger);
    this.#linger = undefined;
  }
}
