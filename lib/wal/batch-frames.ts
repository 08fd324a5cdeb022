/**
 * Batch frames of a WAL v3 object: the flusher writes each batch's gzip
 * member as the put compressed it, so its rows cannot name their seq and
 * offset; the frame line before them does (docs/wal-format.md, "Version 3").
 *
 *   {"t":"b","s":<seq>,"o":<first row offset>,"n":<rows>,"at":<buffered at, ms>}
 *
 * Rules kept here (a reader's `CorruptDataError`, the encoder's `InternalError`):
 * B1. Every row follows a frame; a frame holds `n ≥ 1` rows, no more, no fewer.
 * B2. A frame's `o` is the offset its first row must have: the header's
 *     `firstRowOffset` plus the rows before it (so offsets stay contiguous).
 * B3. Frame seqs strictly increase (`WalChecker` then checks them against
 *     the header's range and voids, row by row).
 * B4. `s`, `o`, `n` and `at` are non-negative safe integers; the frame has
 *     exactly these fields.
 */
import type { WalHeader, WalRow } from './format.js';
import type { FrameFields } from './framing.js';
import { describe, type Fail, isCount, show, type Where } from './wal-check.js';

/** One batch frame. */
export interface BatchFrame {
  seq: number;
  firstOffset: number;
  rows: number;
  ingestedAtMs: number;
}

const FRAME_KEYS = ['t', 's', 'o', 'n', 'at'];

/** A frame's fields after `t`, in written order. */
export function batchFrameFields(frame: BatchFrame): FrameFields {
  return { s: frame.seq, o: frame.firstOffset, n: frame.rows, at: frame.ingestedAtMs };
}

/** Tracks the frames of one v3 object and gives each row its seq, offset and buffering time. */
export class BatchFrames {
  #frame: BatchFrame | undefined;
  #left = 0;
  #rows = 0;

  /** `ingestedAt` false: rows get no `ingestedAtMs` (a reader that yields none, like the tail). */
  constructor(
    private readonly header: WalHeader,
    private readonly fail: Fail,
    private readonly ingestedAt = true,
  ) {}

  /** A frame line (its fields, `t` included). */
  frame(fields: FrameFields, where: string): void {
    const keys = Object.keys(fields);
    const extra = keys.filter((key) => !FRAME_KEYS.includes(key));
    const missing = FRAME_KEYS.filter((key) => !Object.hasOwn(fields, key));
    if (extra.length > 0 || missing.length > 0) {
      this.fail(
        `${where}: batch frame missing fields [${missing.join(', ')}], unknown fields [${extra.join(', ')}]`,
      );
    }
    for (const key of ['s', 'o', 'n', 'at']) {
      if (!isCount(fields[key])) {
        this.fail(
          `${where}: batch frame ${key} must be a non-negative integer, got ${show(fields[key])}`,
        );
      }
    }
    this.#closeFrame(where);
    const frame: BatchFrame = {
      seq: fields.s as number,
      firstOffset: fields.o as number,
      rows: fields.n as number,
      ingestedAtMs: fields.at as number,
    };
    if (frame.rows === 0) this.fail(`${where}: batch frame of seq ${frame.seq} holds no rows`);
    if (this.#frame !== undefined && frame.seq <= this.#frame.seq) {
      this.fail(
        `${where}: batch frame seq ${frame.seq} after seq ${this.#frame.seq}; frame seqs increase`,
      );
    }
    const expected = this.header.firstRowOffset + this.#rows;
    if (frame.firstOffset !== expected) {
      this.fail(
        `${where}: batch frame offset ${frame.firstOffset}, expected ${expected} (offsets are contiguous)`,
      );
    }
    this.#frame = frame;
    this.#left = frame.rows;
  }

  /** Sets `row`'s seq, offset and buffering time from its frame. */
  place(row: WalRow, where: Where): WalRow {
    const frame = this.#frame;
    if (frame === undefined || this.#left === 0) {
      this.fail(
        frame === undefined
          ? `${describe(where)}: a row before any batch frame`
          : `${describe(where)}: more rows than batch frame of seq ${frame.seq} holds (${frame.rows})`,
      );
    }
    row.seq = frame.seq;
    row.offset = frame.firstOffset + (frame.rows - this.#left);
    if (this.ingestedAt) row.ingestedAtMs = frame.ingestedAtMs;
    this.#left -= 1;
    this.#rows += 1;
    return row;
  }

  /** At the trailer: the last frame got all its rows. */
  finish(): void {
    this.#closeFrame('end of object');
  }

  #closeFrame(where: string): void {
    if (this.#frame !== undefined && this.#left > 0) {
      this.fail(
        `${where}: batch frame of seq ${this.#frame.seq} holds ${this.#frame.rows} rows, ${this.#frame.rows - this.#left} followed it`,
      );
    }
  }
}
