/**
 * `tailShard`: a shard's durable rows in order, from the documented storage
 * formats alone (manifest, segments, WAL objects), over the `ObjectStore`
 * port, optionally following new WAL objects as they are written.
 *
 * Invariants it keeps:
 * 1. Rows are yielded in strictly ascending offset order; no row is yielded
 *    twice (checked on every row) and, above the watermark, none is skipped:
 *    each WAL object must start at the seq and row offset the previous
 *    object (or the export below it) ends at, or the read fails with
 *    `CorruptDataError` naming the object.
 * 2. Nothing unverified is yielded: a WAL object is decoded and checked
 *    whole (checksum, version, tags) before its first row; a segment is
 *    checked against its manifest record before its first row
 *    (`segment-rows.ts`). A corrupt object ends the read with its error.
 * 3. The WAL is never read below the newest export the tail has seen (a
 *    retired slot may be re-created by a zombie write): below it, rows come
 *    from that export's segments.
 * 4. Following costs one GET per poll, of the next position's key (a WAL
 *    key is its position): a miss is "not yet", and the wait backs off from
 *    `pollMs` to `maxPollMs`. Listing happens once at start, and while
 *    waiting at most once per `recheckMs` (at once for a position known to
 *    exist) to tell the end of the WAL from a position retention retired
 *    under a slow reader; a retired position is read from the segments of
 *    the newer export that covers it, and the WAL continues after it.
 * 5. An object that exists is final: objects are written create-if-absent
 *    and never rewritten, and the flusher adopts a valid append it finds
 *    at its position, so a row yielded from an object whose commit has not
 *    yet reached the shard record is never taken back.
 */
import { CorruptDataError, HistoryFloorError, InternalError } from '../../errors.js';
import { type Manifest, manifestKey } from '../../manifest/format.js';
import { assertShardName, positionOfKey, walKey, walPrefix } from '../../paths.js';
import type { ObjectStore } from '../../store/object-store.js';
import { decodeWal } from '../../wal/decode.js';
import type { WalHeader } from '../../wal/format.js';
import { BatchItems } from './batch-items.js';
import { newestManifest } from './newest-export.js';
import { firstSegmentSeq, verifiedSegmentRows } from './segment-rows.js';
import {
  TailNoticeKind,
  type TailOptions,
  type TailRow,
  type TailSettings,
  tailSettings,
} from './tail-options.js';
import { type ChainCursor, findTailStart, ListedObjectGone, type TailStart } from './tail-start.js';

/** Attempts at finding the start when a listed object vanishes meanwhile (retention racing the seek). */
const START_ATTEMPTS = 3;

/**
 * Yields the durable rows of `shard` with `seq >= fromSeq`, in order (see
 * the invariants above). Without `follow` it returns at the end of the WAL;
 * with it, it waits for new objects until `signal` aborts.
 */
export function tailShard(
  store: ObjectStore,
  shard: string,
  options: TailOptions = {},
): AsyncGenerator<TailRow, void, undefined> {
  // The rows of the batches one by one, without a generator's cost per row.
  return new BatchItems(
    tailShardBatches(store, shard, options),
    () => options.signal?.aborted === true,
  );
}

/**
 * `tailShard` in batches: the rows as they become available together (one
 * WAL object's, or up to a few thousand of a segment's), each batch
 * non-empty. For consumers that write or send rows in bulk: one await per
 * batch instead of one per row.
 */
export async function* tailShardBatches(
  store: ObjectStore,
  shard: string,
  options: TailOptions = {},
): AsyncGenerator<TailRow[], void, undefined> {
  assertShardName(shard);
  const settings = tailSettings(options);
  let start: TailStart | undefined;
  for (let attempt = 1; !start; attempt++) {
    try {
      start = await findTailStart(store, shard, settings);
    } catch (error) {
      if (!(error instanceof ListedObjectGone) || attempt >= START_ATTEMPTS) throw error;
    }
  }
  yield* new ShardTail(store, shard, settings, start).batches();
}

/** What to do after a miss at the next position. */
type Missing = 'again' | 'end' | { retiredBy: Manifest };

/** One tail's state: the next WAL position, what it must continue, how long to wait. */
class ShardTail {
  readonly #fromSeq: number;
  #position: number;
  #cursor: ChainCursor;
  #checked: boolean;
  #knownEnd: number;
  #lastOffset = -1;
  #delayMs: number;
  #lastCheckAt: number;

  constructor(
    private readonly store: ObjectStore,
    private readonly shard: string,
    private readonly settings: TailSettings,
    private readonly start: TailStart,
  ) {
    this.#fromSeq = start.fromSeq;
    this.#position = start.position;
    this.#cursor = start.cursor;
    this.#checked = start.checked;
    this.#knownEnd = start.knownEnd;
    this.#delayMs = settings.pollMs;
    this.#lastCheckAt = settings.now();
  }

  get #aborted(): boolean {
    return this.settings.signal?.aborted === true;
  }

  async *batches(): AsyncGenerator<TailRow[], void, undefined> {
    const { manifest, segments } = this.start;
    this.settings.notice({
      kind: TailNoticeKind.start,
      message:
        segments && manifest
          ? `reading shard ${this.shard} from seq ${this.#fromSeq}: below WAL position ${this.#position} from the segments of its export, then the WAL`
          : `reading shard ${this.shard} from seq ${this.#fromSeq}, WAL position ${this.#position}`,
      position: this.#position,
    });
    if (segments && manifest) {
      const refs = manifest.segments.slice(segments.index);
      yield* this.#segmentBatches(refs, -1, segments.firstSeq);
    }
    yield* this.#walBatches();
  }

  /** Rows of `refs` with an offset at least `minOffset`; the first segment's first row must have seq `firstSeq`. */
  async *#segmentBatches(
    refs: Manifest['segments'],
    minOffset: number,
    firstSeq: number | undefined,
  ): AsyncGenerator<TailRow[], void, undefined> {
    for (const [i, ref] of refs.entries()) {
      const batches = verifiedSegmentRows(
        this.store,
        this.shard,
        ref,
        this.#fromSeq,
        this.settings.segmentBufferBytes,
        i === 0 ? firstSeq : undefined,
      );
      for await (const rows of batches) {
        if (this.#aborted) return;
        const batch = this.#accept(rows, (row) => row.offset >= minOffset);
        if (batch.length > 0) yield batch;
      }
    }
  }

  async *#walBatches(): AsyncGenerator<TailRow[], void, undefined> {
    while (!this.#aborted) {
      const key = walKey(this.shard, this.#position);
      const bytes = await this.store.get(key);
      if (bytes !== undefined) {
        // Segments keep no buffering time, so a tail yields none from the WAL either.
        const { header, rows } = decodeWal(key, bytes, { ingestedAt: false });
        this.#checkFollows(key, header);
        const batch = this.#acceptWal(rows);
        this.#cursor = {
          lastSeq: header.lastSeq,
          nextOffset: header.firstRowOffset + header.rowCount,
        };
        this.#checked = true;
        this.#position += 1;
        this.#delayMs = this.settings.pollMs;
        if (batch.length > 0) yield batch;
        continue;
      }
      const missing = await this.#missing();
      if (missing === 'end') return;
      if (missing !== 'again') yield* this.#retired(missing.retiredBy);
    }
  }

  /** Why the object at the next position is missing: not yet written, retired, or a hole. */
  async #missing(): Promise<Missing> {
    const { follow, now, recheckMs } = this.settings;
    const due =
      !follow || this.#position < this.#knownEnd || now() - this.#lastCheckAt >= recheckMs;
    if (!due) {
      await this.#wait();
      return 'again';
    }
    this.#lastCheckAt = now();
    const next = await this.#firstPositionFrom(this.#position);
    if (next === this.#position) return 'again'; // written since the GET
    if (next === undefined) {
      this.#knownEnd = Math.min(this.#knownEnd, this.#position);
      if (!follow) return 'end';
      await this.#wait();
      return 'again';
    }
    this.#knownEnd = Math.max(this.#knownEnd, next + 1);
    const covering = await newestManifest(
      this.store,
      this.shard,
      this.settings.notice,
      this.#position,
    );
    if (!covering) {
      throw new CorruptDataError(
        walKey(this.shard, this.#position),
        `missing: the WAL of shard ${this.shard} continues at position ${next}, and no export covers position ${this.#position}`,
      );
    }
    return { retiredBy: covering };
  }

  /**
   * The rows of the retired positions from `#position` to the export's
   * watermark, from its segments; the WAL continues at the watermark.
   */
  async *#retired(manifest: Manifest): AsyncGenerator<TailRow[], void, undefined> {
    const { header, segments } = manifest;
    const from = this.#position;
    if (header.lastSeq < this.#cursor.lastSeq || header.nextRowOffset < this.#cursor.nextOffset) {
      throw new CorruptDataError(
        manifestKey(this.shard, header.coveredPosition),
        `the export covering WAL position ${from} ends at seq ${header.lastSeq}, row offset ${header.nextRowOffset}, before the WAL read so far (seq ${this.#cursor.lastSeq}, offset ${this.#cursor.nextOffset})`,
      );
    }
    const needed = Math.max(this.#fromSeq, this.#cursor.lastSeq + 1);
    const hasRowsNeeded = needed <= header.lastSeq;
    if (hasRowsNeeded && header.historyFloor > from) {
      const floorSeq =
        segments.length > 0
          ? await firstSegmentSeq(this.store, this.shard, segments[0]!)
          : header.lastSeq + 1;
      if (needed < floorSeq) {
        throw new HistoryFloorError(this.shard, needed, header.historyFloor, floorSeq);
      }
    }
    this.settings.notice({
      kind: TailNoticeKind.retired,
      message: `WAL positions ${from} to ${header.coveredPosition - 1} were retired (exported) before the reader got to them: their keyless rows come from the export's segments${hasRowsNeeded ? '; their keyed changes are not kept as history and are not yielded' : ''}; the WAL continues at position ${header.coveredPosition}`,
      position: from,
      endPosition: header.coveredPosition,
    });
    if (hasRowsNeeded) {
      const refs = segments.filter((ref) => ref.end > from);
      yield* this.#segmentBatches(refs, this.#cursor.nextOffset, undefined);
    }
    this.#cursor = { lastSeq: header.lastSeq, nextOffset: header.nextRowOffset };
    this.#checked = true;
    this.#position = header.coveredPosition;
  }

  /** The first WAL position at or after `position` that exists now (one LIST request). */
  async #firstPositionFrom(position: number): Promise<number | undefined> {
    const startAfter = position > 0 ? walKey(this.shard, position - 1) : undefined;
    for await (const key of this.store.list(walPrefix(this.shard), { startAfter })) {
      const found = positionOfKey(key);
      if (found !== undefined) return found;
    }
    return undefined;
  }

  async #wait(): Promise<void> {
    await this.settings.sleep(this.#delayMs, this.settings.signal);
    this.#delayMs = Math.min(this.#delayMs * 2, this.settings.maxPollMs);
  }

  /** Invariant 1 for the object at `key`. */
  #checkFollows(key: string, header: WalHeader): void {
    if (!this.#checked) return;
    const { lastSeq, nextOffset } = this.#cursor;
    if (header.firstSeq !== lastSeq + 1 || header.firstRowOffset !== nextOffset) {
      throw new CorruptDataError(
        key,
        `starts at seq ${header.firstSeq}, row offset ${header.firstRowOffset}; what precedes it ends at seq ${lastSeq}, before row offset ${nextOffset}`,
      );
    }
  }

  /**
   * `#accept` for a WAL object's rows (seqs never decrease in one): when its
   * first row is wanted, so are all, and the decoder's array is the batch.
   */
  #acceptWal(rows: TailRow[]): TailRow[] {
    if (rows.length === 0 || !this.#fromStart(rows[0]!)) {
      return this.#accept(rows, (row) => this.#fromStart(row));
    }
    for (const row of rows) this.#checkAfter(row);
    return rows;
  }

  /** A WAL row is yielded from the start seq on. */
  #fromStart(row: TailRow): boolean {
    return row.seq >= this.#fromSeq;
  }

  /** The rows of `rows` that `wanted` keeps, each checked against invariant 1 before it is yielded. */
  #accept(rows: readonly TailRow[], wanted: (row: TailRow) => boolean): TailRow[] {
    const batch: TailRow[] = [];
    for (const row of rows) {
      if (!wanted(row)) continue;
      this.#checkAfter(row);
      batch.push(row);
    }
    return batch;
  }

  /** Invariant 1 for the next row yielded. */
  #checkAfter(row: TailRow): void {
    if (row.offset <= this.#lastOffset) {
      throw new InternalError(
        `tail of shard ${this.shard}: row offset ${row.offset} after ${this.#lastOffset}; a row would be yielded twice or out of order`,
      );
    }
    this.#lastOffset = row.offset;
  }
}
