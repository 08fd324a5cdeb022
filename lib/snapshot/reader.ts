/**
 * Reading snapshot parts: one part, checked against its manifest record
 * (`readPart`), and a whole snapshot as the merge of its parts by key
 * (`mergeSnapshot`): the base, then each delta in order, the latest part's
 * entry winning and a delete removing the key. The merge streams every part
 * side by side, so it holds a batch of lines per part whatever the number of
 * keys.
 *
 * A part's version is checked before it is read (`UnknownFormatVersionError`);
 * a missing part, a broken line, keys not strictly ascending, a delete in a
 * base, or counts, sizes and CRC-32 that differ from the record are
 * `CorruptDataError`s naming the part. Entries are provisional until the read
 * resolves: the figures are checked at the end.
 */
import { CorruptDataError, UnknownFormatVersionError } from '../errors.js';
import { compareKeyIds } from '../rows/key-id.js';
import {
  type Compared,
  type LineStats,
  readListedLines,
  statsMismatch,
} from '../store/gzip-lines.js';
import type { ObjectStore } from '../store/object-store.js';
import {
  SNAPSHOT_READABLE_VERSIONS,
  type SnapshotEntry,
  type SnapshotPartRef,
  snapshotPartKey,
} from './format.js';
import { parseSnapshotLine, snapshotLine } from './lines.js';

/** Where a read part's entries go, with the line's bytes (valid only during the call) and text. */
export type EntryHandler = (
  entry: SnapshotEntry,
  line: Buffer,
  text: string,
) => Promise<void> | undefined | void;

/** Reads one part, verifying it against `ref` (`compared` figures); resolves to what it saw. */
export async function readPart(
  store: ObjectStore,
  shard: string,
  ref: SnapshotPartRef,
  onEntry: EntryHandler = () => undefined,
  compared: Compared = 'all',
): Promise<LineStats> {
  const key = snapshotPartKey(shard, ref);
  if (!(SNAPSHOT_READABLE_VERSIONS as readonly number[]).includes(ref.v)) {
    throw new UnknownFormatVersionError(key, 'snapshot', ref.v, SNAPSHOT_READABLE_VERSIONS);
  }
  let lastKey: string | undefined;
  let deletes = 0;
  const stats = await readListedLines(store, key, (text, bytes, _index, fail) => {
    const entry = parseSnapshotLine(text, fail);
    if (lastKey !== undefined && !(compareKeyIds(entry.key, lastKey) > 0)) {
      fail(`key ${entry.key} after ${lastKey}; keys strictly ascend`);
    }
    if (entry.delete) {
      if (ref.kind === 'base') fail('a base holds no delete');
      deletes += 1;
    }
    lastKey = entry.key;
    return onEntry(entry, bytes, text);
  });
  const mismatch =
    statsMismatch(ref, stats, compared) ??
    (deletes !== ref.deletes
      ? `the manifest records ${ref.deletes} deletes, the part has ${deletes}`
      : undefined);
  if (mismatch) throw new CorruptDataError(key, mismatch);
  return stats;
}

/** One entry of a merged snapshot, with its line (a dump line, printable as is). */
export interface MergedEntry {
  entry: SnapshotEntry;
  line: string;
}

/**
 * The live entries of the snapshot whose parts are `parts` (application
 * order), in ascending key order, with `newest` (entries in key order, not
 * yet written: a fold's held changes) applied last. Every part is verified by
 * the time the iteration ends; a failure throws from it.
 */
export async function* mergeSnapshot(
  store: ObjectStore,
  shard: string,
  parts: readonly SnapshotPartRef[],
  newest?: readonly SnapshotEntry[],
): AsyncGenerator<MergedEntry, void, undefined> {
  const cursors: Array<PartCursor | HeldCursor> = parts.map(
    (ref) => new PartCursor(store, shard, ref),
  );
  if (newest) cursors.push(new HeldCursor(newest));
  try {
    for (const cursor of cursors) await cursor.advance();
    for (;;) {
      let least: string | undefined;
      for (const cursor of cursors) {
        const key = cursor.head?.entry.key;
        if (key !== undefined && (least === undefined || compareKeyIds(key, least) < 0))
          least = key;
      }
      if (least === undefined) return;
      let winner: MergedEntry | undefined;
      // Later parts win: walk in application order, keeping the last match.
      for (const cursor of cursors) {
        if (cursor.head?.entry.key === least) {
          winner = cursor.head;
          const wait = cursor.advance();
          if (wait) await wait;
        }
      }
      if (winner && !winner.entry.delete) yield winner;
    }
  } finally {
    for (const cursor of cursors) await cursor.close();
  }
}

/** Entries held in memory, in key order, merged as the newest part. */
class HeldCursor {
  head: MergedEntry | undefined;
  #next = 0;

  constructor(private readonly entries: readonly SnapshotEntry[]) {}

  advance(): undefined {
    const entry = this.entries[this.#next++];
    // The line only when asked for (a dump prints it; a compaction does not).
    this.head = entry && {
      entry,
      get line() {
        return snapshotLine(entry);
      },
    };
    return undefined;
  }

  async close(): Promise<void> {}
}

/** Entries a part's reader hands over at once (the merge's memory: this many lines per part). */
const CURSOR_BATCH = 256;

/**
 * One part read on demand: its reader runs as a producer that hands over up
 * to `CURSOR_BATCH` entries, then waits until the merge has taken them all,
 * so the merge holds a batch of lines per part. Taking an entry the batch
 * holds is synchronous: a round trip through a promise per entry cost more
 * than parsing its line.
 */
class PartCursor {
  head: MergedEntry | undefined;
  /** Entries handed over; those from `#taken` on are not yet taken; `null` marks the end. */
  #queue: Array<MergedEntry | null> = [];
  #taken = 0;
  #wake: (() => void) | undefined;
  #resume: (() => void) | undefined;
  #error: unknown;
  #closed = false;
  readonly #done: Promise<void>;

  constructor(store: ObjectStore, shard: string, ref: SnapshotPartRef) {
    const key = snapshotPartKey(shard, ref);
    this.#done = readPart(store, shard, ref, (entry, _bytes, text): Promise<void> | undefined => {
      if (this.#closed) throw new CorruptDataError(key, 'read abandoned');
      this.#queue.push({ entry, line: text });
      if (this.#queue.length - this.#taken < CURSOR_BATCH) return undefined;
      this.#wakeConsumer();
      return new Promise<void>((resolve) => {
        this.#resume = resolve;
      });
    }).then(
      (): void => this.#end(),
      (error: unknown) => {
        this.#error = error;
        this.#end();
      },
    );
  }

  /**
   * Moves to the next entry (`head` undefined at the end); throws what the
   * part's reader threw. A promise only when the batch is used up.
   */
  advance(): Promise<void> | undefined {
    if (this.#taken < this.#queue.length) return this.#take();
    this.#queue = [];
    this.#taken = 0;
    this.#resumeProducer();
    return this.#refill();
  }

  async #refill(): Promise<void> {
    while (this.#queue.length === 0) {
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
      });
    }
    this.#take();
  }

  #take(): undefined {
    const next = this.#queue[this.#taken]!;
    if (next === null) {
      if (this.#error !== undefined) throw this.#error;
      this.head = undefined;
      return undefined;
    }
    this.#taken += 1;
    this.head = next;
    return undefined;
  }

  /** Stops the part's reader (if still reading) and waits for it to let go. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#resumeProducer();
    await this.#done;
  }

  #end(): void {
    this.#queue.push(null);
    this.#wakeConsumer();
  }

  #wakeConsumer(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  #resumeProducer(): void {
    const resume = this.#resume;
    this.#resume = undefined;
    resume?.();
  }
}
