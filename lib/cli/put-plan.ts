/**
 * How `shardwal put` cuts a file into batches and keys them, so that a
 * re-run lands only what did not land before, even after the file was fixed
 * (docs/client.md, "Re-running `shardwal put`"). Invariants:
 *
 * 1. Blocks are fixed line ranges of the file: block k holds lines
 *    k·R+1 … (k+1)·R (R = `--batch-rows`), blank lines included. What one
 *    block holds never moves another block.
 * 2. A block whose body fits `--batch-bytes` is one batch. One that does not
 *    is halved by line range, and each half cut the same way, until every
 *    part fits. A part's cut depends only on its own lines' bytes, so a
 *    change inside one half leaves the other half's batches as they were.
 * 3. A batch's Idempotency-Key is `<prefix>-<h>`, h the first 64 bits of the
 *    SHA-256 of the shard, the key field, the batch's line range and its row
 *    texts: a batch whose lines and place are unchanged keeps its key (and
 *    the service answers its original ack: nothing lands twice); a batch
 *    with any changed line gets a new key (and lands once).
 *
 * So fixing lines in place keeps re-runs exact; inserting or deleting
 * lines moves every later block; appending lines changes the last block.
 */
import { createHash } from 'node:crypto';

/** A planned batch: a line range and how many rows (non-blank lines) it holds. */
export interface PlannedBatch {
  /** 1-based, inclusive; blank lines at either end belong to the range. */
  firstLine: number;
  lastLine: number;
  rows: number;
}

/** The cut's limits. */
export interface PlanLimits {
  /** Lines per block (`--batch-rows`); a batch never holds more rows. */
  linesPerBlock: number;
  /** Body bytes per batch, frame included (`--batch-bytes`, or less for SQS). */
  maxBytes: number;
  /** Body bytes with no rows. */
  overheadBytes: number;
}

interface PlanRow {
  line: number;
  bytes: number;
}

/** Builds the plan from the rows' sizes, line by line; memory holds one block. */
export class BatchPlanner {
  readonly #limits: PlanLimits;
  readonly #batches: PlannedBatch[] = [];
  #block = 0;
  #rows: PlanRow[] = [];

  constructor(limits: PlanLimits) {
    this.#limits = limits;
  }

  /** Adds a row at `line` (lines in ascending order) of `bytes` JSON bytes. */
  addRow(line: number, bytes: number): void {
    const block = Math.floor((line - 1) / this.#limits.linesPerBlock);
    if (block !== this.#block) {
      this.#closeBlock();
      this.#block = block;
    }
    this.#rows.push({ line, bytes });
  }

  /** The batches, in file order. */
  finish(): PlannedBatch[] {
    this.#closeBlock();
    return this.#batches;
  }

  #closeBlock(): void {
    const first = this.#block * this.#limits.linesPerBlock + 1;
    this.#split(first, first + this.#limits.linesPerBlock - 1, this.#rows);
    this.#rows = [];
  }

  #split(firstLine: number, lastLine: number, rows: PlanRow[]): void {
    if (rows.length === 0) return;
    const bytes =
      this.#limits.overheadBytes + rows.reduce((sum, row) => sum + row.bytes, 0) + rows.length - 1;
    if (bytes <= this.#limits.maxBytes || rows.length === 1) {
      this.#batches.push({ firstLine, lastLine, rows: rows.length });
      return;
    }
    const mid = firstLine + Math.floor((lastLine - firstLine + 1) / 2) - 1;
    this.#split(
      firstLine,
      mid,
      rows.filter((row) => row.line <= mid),
    );
    this.#split(
      mid + 1,
      lastLine,
      rows.filter((row) => row.line > mid),
    );
  }
}

/** Hex digits of the batch hash in a key: 64 bits. */
const KEY_HASH_CHARS = 16;

/** The Idempotency-Key of `batch` holding `rowTexts` (invariant 3). */
export function batchKey(
  prefix: string,
  scope: { shard: string; keyField: string | undefined },
  batch: PlannedBatch,
  rowTexts: readonly string[],
): string {
  const hash = createHash('sha256').update(
    `shardwal-put-v2\n${scope.shard}\n${scope.keyField ?? ''}\n${batch.firstLine}-${batch.lastLine}\n`,
  );
  for (const text of rowTexts) hash.update(text).update('\n');
  return `${prefix}-${hash.digest('hex').slice(0, KEY_HASH_CHARS)}`;
}
