/**
 * Archives the keyless rows of an export's WAL range into segments, as the
 * fold walks it: each segment starts at the WAL object holding its first row
 * (its key is named by that position), takes rows in offset order, and is
 * closed at an object boundary once it passes `targetRawBytes`, or at the
 * end of the range. Its uploads stream (bounded memory).
 *
 * Leftovers of a crashed or racing export of the same range are adopted, not
 * duplicated:
 * A1. Before a segment is opened at position p, its key is looked up. A
 *     segment already there is read (verified whole) and adopted: the WAL's
 *     keyless rows from p on are checked against it (their lines' CRC-32,
 *     count and size must equal the stored segment's) instead of written
 *     again. A stored segment that differs, or that reaches past the range,
 *     stops the export with an `UnavailableError` naming it.
 * A2. A segment whose upload meets `'exists'` (another exporter created it
 *     meanwhile) is adopted only if the stored one holds the same lines.
 * So two segments never hold the same rows under one key, and a rerun after a
 * crash reuses what the crashed run stored.
 *
 * Rows of a routed shard below its table's high-water are not archived: the
 * table's data files hold them, and they become table segments
 * (`table-segments.ts`), listed before the segments written after them.
 */
import { crc32 } from 'node:zlib';
import { CorruptDataError, UnavailableError } from '../errors.js';
import { SEGMENT_FORMAT_VERSION, type SegmentRef, segmentKey } from '../segment/format.js';
import { parseSegmentLine, segmentLine } from '../segment/lines.js';
import { SegmentWriter } from '../segment/writer.js';
import { type LineStats, readGzipLines } from '../store/gzip-lines.js';
import type { ObjectStore } from '../store/object-store.js';
import type { TableHold } from '../table/floor.js';
import { TABLE_SEGMENT_TARGET_RAW_BYTES, TableSegmentLines } from './table-segments.js';

/** Uncompressed bytes after which a segment is closed at the next object boundary. */
const SEGMENT_TARGET_RAW_BYTES = 256 * 1024 * 1024;

/** Settings of an archive. */
export interface ArchiveOptions {
  gzipLevel: number;
  createdAtMs: number;
  targetRawBytes?: number;
  /** The shard's table and its high-water: rows below it become table segments. */
  tableHold?: TableHold;
}

/** A stored segment being checked against the WAL instead of written (A1). */
interface Adopting {
  stored: LineStats & { firstOffset: number; lastOffset: number };
  first: number;
  seen: LineStats;
}

/** The segments of one export's range. */
export class SegmentArchive {
  /** Segments finished, in order (written or adopted). */
  readonly refs: SegmentRef[] = [];
  written = 0;
  adopted = 0;
  #open: { writer: SegmentWriter; lastPosition: number } | undefined;
  #adopting: Adopting | undefined;
  readonly #target: number;
  /** Rows at positions below this go to `#tableLines`. */
  readonly #tableBelow: number;
  readonly #tableLines: TableSegmentLines | undefined;

  constructor(
    private readonly store: ObjectStore,
    private readonly shard: string,
    private readonly options: ArchiveOptions,
  ) {
    this.#target = options.targetRawBytes ?? SEGMENT_TARGET_RAW_BYTES;
    const hold = options.tableHold;
    this.#tableBelow = hold?.highWater ?? 0;
    this.#tableLines =
      hold &&
      new TableSegmentLines(
        hold.table,
        options.createdAtMs,
        Math.min(this.#target, TABLE_SEGMENT_TARGET_RAW_BYTES),
      );
  }

  /** Table segments listed (rows the table holds, nothing stored). */
  get tableSegments(): number {
    return this.#tableLines?.refs.length ?? 0;
  }

  /**
   * Takes the next keyless row, from the WAL object at `position` (rows arrive
   * in offset order). Returns a promise only when the caller must wait: a row
   * of the open segment that fits is written synchronously (one per keyless
   * row of the range: an await each would cost more than writing it).
   */
  row(position: number, seq: number, offset: number, text: string): Promise<void> | undefined {
    if (position < this.#tableBelow) {
      this.#tableLines!.row(position, seq, offset, text);
      return undefined;
    }
    const open = this.#open;
    if (
      open !== undefined &&
      this.#adopting === undefined &&
      !(open.writer.rawBytes >= this.#target && position > open.lastPosition)
    ) {
      open.lastPosition = position;
      return open.writer.row(seq, offset, text);
    }
    return this.#rowAtBoundary(position, seq, offset, text);
  }

  /** A row that adopts, closes a segment or opens one. */
  async #rowAtBoundary(position: number, seq: number, offset: number, text: string): Promise<void> {
    if (this.#adopting) return this.#check(position, seq, offset, text);
    const open = this.#open;
    if (open && open.writer.rawBytes >= this.#target && position > open.lastPosition) {
      await this.#close(open.lastPosition + 1);
    }
    if (!this.#open) {
      const stored = await this.#stored(position);
      if (stored) {
        this.#adopting = {
          stored,
          first: position,
          seen: { rows: 0, rawBytes: 0, crc32: 0, bytes: 0 },
        };
        return this.#check(position, seq, offset, text);
      }
      this.#open = {
        writer: new SegmentWriter(this.store, this.shard, position, this.options.gzipLevel),
        lastPosition: position,
      };
    }
    this.#open!.lastPosition = position;
    const wait = this.#open!.writer.row(seq, offset, text);
    if (wait) await wait;
  }

  /**
   * Takes a legacy AOF export's keyless rows (positions unknown): they go to
   * one segment at position 0 whose range ends at the export's covered position.
   */
  legacyRow(seq: number, offset: number, text: string): Promise<void> | undefined {
    this.#open ??= {
      writer: new SegmentWriter(this.store, this.shard, 0, this.options.gzipLevel),
      lastPosition: 0,
    };
    return this.#open.writer.row(seq, offset, text);
  }

  /** Closes the legacy segment at the AOF export's covered position. */
  async closeLegacy(coveredPosition: number): Promise<void> {
    if (this.#open) await this.#close(coveredPosition);
  }

  /** Closes the open segment; a segment still being adopted means the stored one reaches past the range. */
  async finish(): Promise<void> {
    if (this.#adopting) {
      const key = segmentKey(this.shard, this.#adopting.first);
      throw new UnavailableError(
        `${key} (left by a crashed or racing export) holds rows past this export's range; the next export takes it`,
      );
    }
    if (this.#open) await this.#close(this.#open.lastPosition + 1);
    if (this.#tableLines) {
      this.#tableLines.finish();
      this.refs.unshift(...this.#tableLines.refs);
    }
  }

  /** Abandons the open upload; nothing more is published. */
  async abort(): Promise<void> {
    const open = this.#open;
    this.#open = undefined;
    await open?.writer.abort();
  }

  async #close(end: number): Promise<void> {
    const { writer } = this.#open!;
    this.#open = undefined;
    const { result, ref } = await writer.finish(end, this.options.createdAtMs);
    if (result === 'created') {
      this.written += 1;
      this.refs.push(ref);
      return;
    }
    // A2: someone stored this key meanwhile; the same lines or nothing.
    const stored = await this.#stored(ref.first);
    if (
      !stored ||
      stored.rows !== ref.rows ||
      stored.rawBytes !== ref.rawBytes ||
      stored.crc32 !== ref.crc32
    ) {
      throw conflict(writer.key, 'was created by another export meanwhile with other rows');
    }
    this.adopted += 1;
    this.refs.push({ ...ref, bytes: stored.bytes });
  }

  /** A1: compares the WAL's next row with the stored segment being adopted. */
  #check(position: number, seq: number, offset: number, text: string): void {
    const adopting = this.#adopting!;
    const line = Buffer.from(`${segmentLine(seq, offset, text)}\n`);
    const seen = adopting.seen;
    seen.crc32 = crc32(line, seen.crc32);
    seen.rawBytes += line.length;
    seen.rows += 1;
    const { stored } = adopting;
    if (seen.rows === 1 && offset !== stored.firstOffset) {
      throw conflict(
        segmentKey(this.shard, adopting.first),
        `starts at offset ${stored.firstOffset}, but the WAL's first keyless row there is at ${offset}`,
      );
    }
    if (offset < stored.lastOffset) return;
    const same =
      offset === stored.lastOffset &&
      seen.rows === stored.rows &&
      seen.rawBytes === stored.rawBytes &&
      seen.crc32 === stored.crc32;
    if (!same) {
      throw conflict(segmentKey(this.shard, adopting.first), 'holds other rows than the WAL');
    }
    this.adopted += 1;
    this.refs.push({
      v: SEGMENT_FORMAT_VERSION,
      first: adopting.first,
      end: position + 1,
      firstOffset: stored.firstOffset,
      lastOffset: stored.lastOffset,
      createdAtMs: this.options.createdAtMs,
      rows: stored.rows,
      rawBytes: stored.rawBytes,
      crc32: stored.crc32,
      bytes: stored.bytes,
    });
    this.#adopting = undefined;
  }

  /** The stored segment at `first`, read and checked line by line; undefined when there is none. */
  async #stored(first: number): Promise<Adopting['stored'] | undefined> {
    const key = segmentKey(this.shard, first);
    let present = false;
    for await (const found of this.store.list(key)) {
      if (found === key) present = true;
    }
    if (!present) return undefined;
    const stream = await this.store.getStream(key);
    if (!stream) return undefined;
    let firstOffset = -1;
    let lastOffset = -1;
    try {
      const stats = await readGzipLines(key, stream, (bytes, index) => {
        const row = parseSegmentLine(bytes.toString('utf8'), (problem) => {
          throw new CorruptDataError(key, `line ${index + 1}: ${problem}`);
        });
        if (firstOffset < 0) firstOffset = row.offset;
        lastOffset = row.offset;
      });
      if (stats.rows === 0) throw new CorruptDataError(key, 'a stored segment holds no row');
      return { ...stats, firstOffset, lastOffset };
    } catch (error) {
      if (error instanceof CorruptDataError) {
        throw conflict(key, `cannot be adopted: ${error.message}`);
      }
      throw error;
    } finally {
      stream.destroy();
    }
  }
}

function conflict(key: string, problem: string): UnavailableError {
  return new UnavailableError(
    `${key} ${problem}; export stops here (a crashed or racing export's segment: verify the shard, and remove the object if no manifest lists it)`,
  );
}
