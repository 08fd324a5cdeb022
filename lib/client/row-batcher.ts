/**
 * Cuts serialized rows into batches by row count and body bytes only, never
 * by time: the same rows with the same limits always make the same batches
 * (what `shardwal put` relies on to key batches by index). A batch's bytes
 * are its exact body size: the frame's overhead, every row, and a comma
 * between two rows.
 */
import { ConfigError, ErrorKind } from '../errors.js';
import { RowRejectedError } from './errors.js';

/** Limits of a batch. */
export interface BatchLimits {
  /** Rows per batch, at least 1. */
  maxRows: number;
  /** Body bytes per batch, frame included. */
  maxBytes: number;
  /** Body bytes with no rows (`frameOverheadBytes`). */
  overheadBytes: number;
}

/** The open batch and the rule that closes it; see the module comment. */
export class RowBatcher {
  readonly #limits: BatchLimits;
  #rows: string[] = [];
  #bytes: number;

  constructor(limits: BatchLimits) {
    if (!Number.isInteger(limits.maxRows) || limits.maxRows < 1) {
      throw new ConfigError('maxBatchRows', limits.maxRows, 'expected an integer of at least 1');
    }
    if (!(limits.maxBytes > limits.overheadBytes)) {
      throw new ConfigError(
        'maxBatchBytes',
        limits.maxBytes,
        `expected more than the ${limits.overheadBytes}-byte frame around the rows`,
      );
    }
    this.#limits = limits;
    this.#bytes = limits.overheadBytes;
  }

  /** Rows in the open batch. */
  get rowCount(): number {
    return this.#rows.length;
  }

  /** Body bytes of the open batch. */
  get bytes(): number {
    return this.#bytes;
  }

  /**
   * Adds one row; returns the batches this closed, in order: the open one
   * when the row does not fit beside it, and the new one when it is full.
   * A row too large for any batch is refused (`too_large`), nothing changes.
   */
  add(text: string): string[][] {
    const rowBytes = Buffer.byteLength(text);
    const { maxBytes, maxRows, overheadBytes } = this.#limits;
    if (overheadBytes + rowBytes > maxBytes) {
      throw new RowRejectedError(
        ErrorKind.tooLarge,
        `row: expected at most ${maxBytes - overheadBytes} bytes of JSON, got ${rowBytes}`,
      );
    }
    const closed: string[][] = [];
    if (this.#rows.length > 0 && this.#bytes + 1 + rowBytes > maxBytes) {
      closed.push(this.#takeRows());
    }
    this.#bytes += (this.#rows.length > 0 ? 1 : 0) + rowBytes;
    this.#rows.push(text);
    if (this.#rows.length >= maxRows) closed.push(this.#takeRows());
    return closed;
  }

  /** Closes and returns the open batch; undefined when it is empty. */
  take(): string[] | undefined {
    return this.#rows.length === 0 ? undefined : this.#takeRows();
  }

  #takeRows(): string[] {
    const rows = this.#rows;
    this.#rows = [];
    this.#bytes = this.#limits.overheadBytes;
    return rows;
  }
}
