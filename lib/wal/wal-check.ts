/**
 * The consistency rules of a WAL object, one copy shared by the encoder (a
 * violation is a bug: `InternalError`) and the reader (`CorruptDataError`).
 * Rows are checked one at a time, so a streaming reader applies the same
 * rules as rows arrive.
 *
 * 1. `position`, `epoch`, `firstSeq`, `lastSeq`, `firstRowOffset`, `rowCount`
 *    and `createdAtMs` are non-negative safe integers; `shard` is a valid shard
 *    name; `firstSeq ≤ lastSeq`.
 * 2. `voidSeqs` are integers, strictly ascending, within [firstSeq, lastSeq].
 * 3. Row i has offset `firstRowOffset + i`; there are exactly `rowCount` rows.
 * 4. Row seqs lie within [firstSeq, lastSeq] and never decrease.
 * 5. Every seq in [firstSeq, lastSeq] holds rows or is void, never both
 *    (a batch that was written has at least one row).
 * 6. A row is a put (`row` a JSON object's text, an optional key id) or a
 *    delete (`delete: true`, a key id, no `row`). A key id is a JSON string
 *    or number's text (`lib/rows/key-id.ts`).
 */
import { SHARD_NAME_PATTERN } from '../paths.js';
import { WAL_HEADER_FIELDS, type WalHeader, type WalRow } from './format.js';

/** Raises the caller's error type for a violated rule. */
export type Fail = (problem: string) => never;

/**
 * Where a row is, for messages: a label (`rows[5]`), or a line number
 * (`line 7`). Readers pass the number: the label is only made for a message,
 * not for every row read.
 */
export type Where = string | number;

/** The label of `where`. */
export function describe(where: Where): string {
  return typeof where === 'number' ? `line ${where}` : where;
}

/** Every header field but the shard's name and the void list is a count. */
const INTEGER_FIELDS = WAL_HEADER_FIELDS.filter(
  (field): field is Exclude<(typeof WAL_HEADER_FIELDS)[number], 'shard' | 'voidSeqs'> =>
    field !== 'shard' && field !== 'voidSeqs',
);

/** True for a non-negative safe integer. */
export function isCount(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 0;
}

/**
 * The header rule every framed format shares: the named fields are
 * non-negative safe integers and `shard` is a valid shard name.
 */
export function checkCountsAndShard<H extends { shard: unknown }>(
  header: H,
  countFields: readonly (keyof H & string)[],
  fail: Fail,
): void {
  for (const field of countFields) {
    if (!isCount(header[field])) {
      fail(`header: ${field} must be a non-negative integer, got ${show(header[field])}`);
    }
  }
  if (typeof header.shard !== 'string' || !SHARD_NAME_PATTERN.test(header.shard)) {
    fail(`header: shard must match ${SHARD_NAME_PATTERN}, got ${show(header.shard)}`);
  }
}

/** A value for an error message, cut short: a damaged object can hold anything. */
export function show(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** True for the text of a JSON object (its braces; the content is trusted to the checksum). */
export function isObjectText(value: unknown): boolean {
  return typeof value === 'string' && value.startsWith('{') && value.endsWith('}');
}

const NUMBER_TEXT = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/** True for a key id: a JSON string literal or a JSON number's text. */
export function isKeyId(value: unknown): boolean {
  if (typeof value !== 'string' || value.length === 0) return false;
  if (value.startsWith('"')) return value.length >= 2 && value.endsWith('"');
  return NUMBER_TEXT.test(value);
}

/** Applies the rules to one object: construct with its header, call `row` per row, then `finish`. */
export class WalChecker {
  #rows = 0;
  /** Lowest seq not yet known to be covered by rows or a void. */
  #nextSeq: number;
  #voidIndex = 0;
  #lastRowSeq = -1;

  constructor(
    readonly header: WalHeader,
    private readonly fail: Fail,
  ) {
    checkCountsAndShard(header, INTEGER_FIELDS, fail);
    if (header.firstSeq > header.lastSeq) {
      fail(`header: firstSeq ${header.firstSeq} is after lastSeq ${header.lastSeq}`);
    }
    if (!Number.isSafeInteger(header.firstRowOffset + header.rowCount)) {
      fail(`header: firstRowOffset + rowCount exceeds the safe integer range`);
    }
    this.#checkVoids(header);
    this.#nextSeq = header.firstSeq;
  }

  /** Checks the next row; `where` names it in messages (`7` for line 7, `rows[5]`). */
  row(row: WalRow, where: Where): void {
    const { firstRowOffset, rowCount } = this.header;
    const index = this.#rows++;
    if (index >= rowCount)
      this.fail(`${describe(where)}: more rows than the header's rowCount ${rowCount}`);
    const offset = firstRowOffset + index;
    if (row.offset !== offset) {
      this.fail(
        `${describe(where)}: offset ${show(row.offset)}, expected ${offset} (offsets are contiguous)`,
      );
    }
    const { seq } = row;
    // Another row of the previous row's seq needs no seq check (the first row always does).
    if (seq !== this.#lastRowSeq || index === 0) this.#newSeq(seq, where);
    this.#checkShape(row, where);
  }

  /** The first row of a seq: in range, after the previous one, and every seq between them void. */
  #newSeq(seq: number, where: Where): void {
    const { firstSeq, lastSeq, voidSeqs } = this.header;
    if (!isCount(seq) || seq < firstSeq || seq > lastSeq) {
      this.fail(`${describe(where)}: seq ${show(seq)} is outside [${firstSeq}, ${lastSeq}]`);
    }
    if (seq < this.#lastRowSeq)
      this.fail(
        `${describe(where)}: seq ${seq} after seq ${this.#lastRowSeq}; seqs never decrease`,
      );
    this.#coverUpTo(seq, where);
    if (voidSeqs[this.#voidIndex] === seq)
      this.fail(`${describe(where)}: seq ${seq} is listed as void but holds rows`);
    this.#nextSeq = seq + 1;
    this.#lastRowSeq = seq;
  }

  /** Checks what only the whole object shows: the row count and that every seq is covered. */
  finish(): void {
    const { rowCount, lastSeq } = this.header;
    if (this.#rows !== rowCount)
      this.fail(`header says rowCount ${rowCount}, the object has ${this.#rows} rows`);
    this.#coverUpTo(lastSeq + 1, 'end of object');
  }

  /** Every seq from the next uncovered one up to `seq` (exclusive) must be void. */
  #coverUpTo(seq: number, where: Where): void {
    const { voidSeqs } = this.header;
    while (this.#nextSeq < seq) {
      if (voidSeqs[this.#voidIndex] !== this.#nextSeq) {
        this.fail(`${describe(where)}: seq ${this.#nextSeq} has no rows and is not listed as void`);
      }
      this.#voidIndex += 1;
      this.#nextSeq += 1;
    }
  }

  #checkVoids({ voidSeqs, firstSeq, lastSeq }: WalHeader): void {
    if (!Array.isArray(voidSeqs))
      this.fail(`header: voidSeqs must be an array, got ${show(voidSeqs)}`);
    let previous = -1;
    for (const seq of voidSeqs) {
      if (!isCount(seq) || seq < firstSeq || seq > lastSeq) {
        this.fail(`header: void seq ${show(seq)} is outside [${firstSeq}, ${lastSeq}]`);
      }
      if (seq <= previous)
        this.fail(`header: voidSeqs must be strictly ascending, got ${seq} after ${previous}`);
      previous = seq;
    }
  }

  #checkShape(row: WalRow, where: Where): void {
    const { key, text } = row;
    if (key !== undefined && !isKeyId(key)) {
      this.fail(`${describe(where)}: key must be a JSON string or number, got ${show(key)}`);
    }
    if (row.delete !== undefined && row.delete !== true) {
      this.fail(`${describe(where)}: delete must be true when present, got ${show(row.delete)}`);
    }
    if (row.delete) {
      if (key === undefined) this.fail(`${describe(where)}: a delete must have a key`);
      if (text !== undefined) this.fail(`${describe(where)}: a delete must not carry a row`);
    } else if (!isObjectText(text)) {
      this.fail(`${describe(where)}: row must be a JSON object, got ${show(text)}`);
    }
  }
}
