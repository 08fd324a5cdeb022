/**
 * A shard's state as replay folds it: keyed rows (the newest position wins,
 * a delete removes the key) and keyless rows in offset order. Replay walks
 * positions ascending and rows in offset order, so "newest position wins" is
 * simply "the last write of a key wins".
 *
 * Memory: one map entry per live key (the row itself only with `keepRows`);
 * keyless rows are only counted unless `keepKeyless` asks to hold them.
 * While a WAL object is read its rows are provisional (the checksum is at its
 * end), so `beginObject` starts an undo log that `rollbackObject` replays
 * when the object turns out corrupt; the log holds one object's keyed rows.
 */
import type { AofKeyedRow, AofKeylessRow } from '../aof/format.js';
import { compareKeyIds, type KeyId } from '../rows/key-id.js';
import type { WalRow } from '../wal/format.js';

/** A live key's newest row and where it came from. */
export interface KeyedEntry {
  seq: number;
  offset: number;
  /** The row's text; held only when the state keeps rows. */
  text: string | undefined;
}

/** What to hold besides the live keys. */
export interface ShardStateOptions {
  /** Hold each live key's row (export needs them; a counting replay does not). */
  keepRows: boolean;
  /** Hold keyless rows (tests and dumps; export streams them instead). */
  keepKeyless: boolean;
}

/** Rows applied, by kind. */
export interface AppliedCounts {
  puts: number;
  deletes: number;
  keyless: number;
}

/** The folded state of one shard. */
export class ShardState {
  readonly keyed = new Map<KeyId, KeyedEntry>();
  readonly keyless: AofKeylessRow[] = [];
  keylessCount = 0;
  readonly applied: AppliedCounts = { puts: 0, deletes: 0, keyless: 0 };
  /**
   * Per keyed row of the object being read: its key, the key's entry before
   * the row (undefined: the key was not live) and that entry's seq, offset
   * and text before it; flat, so a row allocates no record. An entry a later
   * row changes is updated in place, not replaced, so the log keeps its values.
   */
  readonly #undo: Array<KeyId | KeyedEntry | number | string | undefined> = [];
  /** Values of `#undo` that belong to the object being read; -1 when none is. */
  #undoLength = -1;
  #mark: { keylessCount: number; applied: AppliedCounts } | undefined;

  constructor(readonly options: ShardStateOptions) {}

  /** Loads a keyed record of an export. */
  loadKeyed(row: AofKeyedRow): void {
    this.keyed.set(row.key, {
      seq: row.seq,
      offset: row.offset,
      text: this.options.keepRows ? row.text : undefined,
    });
  }

  /** Loads a keyless record of an export. */
  loadKeyless(row: AofKeylessRow): void {
    this.keylessCount += 1;
    if (this.options.keepKeyless) this.keyless.push(row);
  }

  /** Applies one WAL row; returns true when it is keyless (the caller may stream it elsewhere). */
  apply(row: WalRow): boolean {
    const { key } = row;
    if (key === undefined) {
      this.applied.keyless += 1;
      this.keylessCount += 1;
      // Replay walks every row: a row only counted allocates nothing.
      if (this.options.keepKeyless) {
        this.keyless.push({ seq: row.seq, offset: row.offset, text: row.text! });
      }
      return true;
    }
    const entry = this.keyed.get(key);
    let n = this.#undoLength;
    if (n >= 0) {
      // The log is written in place (not pushed): one array serves every object.
      const undo = this.#undo;
      undo[n++] = key;
      undo[n++] = entry;
      undo[n++] = entry?.seq;
      undo[n++] = entry?.offset;
      undo[n++] = entry?.text;
      this.#undoLength = n;
    }
    if (row.delete) {
      this.applied.deletes += 1;
      if (entry !== undefined) this.keyed.delete(key);
      return false;
    }
    this.applied.puts += 1;
    const text = this.options.keepRows ? row.text : undefined;
    // A live key's entry is updated in place: one map lookup, no new entry.
    if (entry === undefined) this.keyed.set(key, { seq: row.seq, offset: row.offset, text });
    else {
      entry.seq = row.seq;
      entry.offset = row.offset;
      entry.text = text;
    }
    return false;
  }

  /** Starts an undo log for the rows of one WAL object. */
  beginObject(): void {
    this.#undoLength = 0;
    this.#mark = { keylessCount: this.keylessCount, applied: { ...this.applied } };
  }

  /** The object verified: forget its undo log. */
  commitObject(): void {
    // The log is reused; a state that keeps rows lets go of the texts it logged.
    if (this.options.keepRows && this.#undoLength > 0)
      this.#undo.fill(undefined, 0, this.#undoLength);
    this.#undoLength = -1;
    this.#mark = undefined;
  }

  /** The object did not verify: undo every row applied since `beginObject`. */
  rollbackObject(): void {
    const undo = this.#undo;
    for (let i = this.#undoLength - 5; i >= 0; i -= 5) {
      const key = undo[i] as KeyId;
      const entry = undo[i + 1] as KeyedEntry | undefined;
      if (entry === undefined) {
        this.keyed.delete(key);
        continue;
      }
      entry.seq = undo[i + 2] as number;
      entry.offset = undo[i + 3] as number;
      entry.text = undo[i + 4] as string | undefined;
      this.keyed.set(key, entry);
    }
    if (this.#mark) {
      this.keylessCount = this.#mark.keylessCount;
      this.keyless.length = Math.min(this.keyless.length, this.keylessCount);
      Object.assign(this.applied, this.#mark.applied);
    }
    this.commitObject();
  }

  /** Keyed rows in ascending key order, as an export writes them. */
  *sortedKeyed(): Generator<AofKeyedRow> {
    const keys = [...this.keyed.keys()].sort(compareKeyIds);
    for (const key of keys) {
      const entry = this.keyed.get(key)!;
      yield { key, seq: entry.seq, offset: entry.offset, text: entry.text ?? '{}' };
    }
  }
}
