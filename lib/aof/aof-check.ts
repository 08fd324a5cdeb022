/**
 * The consistency rules of an AOF export, applied record by record so the
 * streaming reader checks the same rules as records arrive.
 *
 * 1. `coveredPosition`, `lastSeq`, `nextRowOffset`, `keyedCount`,
 *    `keylessCount` and `createdAtMs` are non-negative safe integers; `shard`
 *    is a valid shard name; `previousExport` is null or an integer below
 *    `coveredPosition`; `keyedCount + keylessCount ≤ nextRowOffset` (every
 *    live row came from a distinct offset).
 * 2. Every keyed record precedes every keyless record.
 * 3. Keyed records have strictly ascending keys (so each key appears once).
 * 4. Keyless records have strictly ascending offsets and non-decreasing seqs.
 * 5. Every record has seq in [1, lastSeq], offset in [0, nextRowOffset), and a
 *    JSON object row.
 * 6. There are exactly `keyedCount` keyed and `keylessCount` keyless records.
 */
import { compareKeyIds } from '../rows/key-id.js';
import {
  checkCountsAndShard,
  type Fail,
  isCount,
  isKeyId,
  isObjectText,
  show,
} from '../wal/wal-check.js';
import type { AofHeader, AofKeyedRow, AofKeylessRow } from './format.js';

const COUNT_FIELDS = [
  'coveredPosition',
  'lastSeq',
  'nextRowOffset',
  'keyedCount',
  'keylessCount',
  'createdAtMs',
] as const;

/** Applies the rules to one export: construct with its header, call `keyed`/`keyless` per record, then `finish`. */
export class AofChecker {
  #keyed = 0;
  #keyless = 0;
  #lastKey: string | undefined;
  #lastOffset = -1;
  #lastSeq = 0;

  constructor(
    readonly header: AofHeader,
    private readonly fail: Fail,
  ) {
    checkCountsAndShard(header, COUNT_FIELDS, fail);
    const previous = header.previousExport;
    if (previous !== null && !(isCount(previous) && previous < header.coveredPosition)) {
      fail(
        `header: previousExport must be null or an integer below coveredPosition ${header.coveredPosition}, got ${show(previous)}`,
      );
    }
    if (header.keyedCount + header.keylessCount > header.nextRowOffset) {
      fail(
        `header: ${header.keyedCount} keyed + ${header.keylessCount} keyless rows cannot come from ${header.nextRowOffset} offsets`,
      );
    }
  }

  /** Checks the next keyed record. */
  keyed(row: AofKeyedRow, where: string): void {
    if (this.#keyless > 0) this.fail(`${where}: a keyed record after a keyless one`);
    if (++this.#keyed > this.header.keyedCount) {
      this.fail(
        `${where}: more keyed records than the header's keyedCount ${this.header.keyedCount}`,
      );
    }
    if (!isKeyId(row.key)) {
      this.fail(`${where}: key must be a JSON string or number, got ${show(row.key)}`);
    }
    if (this.#lastKey !== undefined && !(compareKeyIds(row.key, this.#lastKey) > 0)) {
      this.fail(
        `${where}: key ${show(row.key)} after ${show(this.#lastKey)}; keys strictly ascend`,
      );
    }
    this.#lastKey = row.key;
    this.#checkRow(row, where);
  }

  /** Checks the next keyless record. */
  keyless(row: AofKeylessRow, where: string): void {
    if (++this.#keyless > this.header.keylessCount) {
      this.fail(
        `${where}: more keyless records than the header's keylessCount ${this.header.keylessCount}`,
      );
    }
    this.#checkRow(row, where);
    if (row.offset <= this.#lastOffset) {
      this.fail(`${where}: offset ${row.offset} after ${this.#lastOffset}; keyless offsets ascend`);
    }
    if (row.seq < this.#lastSeq) {
      this.fail(`${where}: seq ${row.seq} after ${this.#lastSeq}; keyless seqs never decrease`);
    }
    this.#lastOffset = row.offset;
    this.#lastSeq = row.seq;
  }

  /** Checks the record counts. */
  finish(): void {
    const { keyedCount, keylessCount } = this.header;
    if (this.#keyed !== keyedCount || this.#keyless !== keylessCount) {
      this.fail(
        `header says ${keyedCount} keyed and ${keylessCount} keyless records, the export has ${this.#keyed} and ${this.#keyless}`,
      );
    }
  }

  #checkRow(row: AofKeyedRow | AofKeylessRow, where: string): void {
    const { lastSeq, nextRowOffset } = this.header;
    if (!isCount(row.seq) || row.seq < 1 || row.seq > lastSeq) {
      this.fail(`${where}: seq ${show(row.seq)} is outside [1, ${lastSeq}]`);
    }
    if (!isCount(row.offset) || row.offset >= nextRowOffset) {
      this.fail(`${where}: offset ${show(row.offset)} is outside [0, ${nextRowOffset})`);
    }
    if (!isObjectText(row.text))
      this.fail(`${where}: row must be a JSON object, got ${show(row.text)}`);
  }
}
