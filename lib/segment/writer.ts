/**
 * Writes one segment as its rows arrive (offset order), streamed to the store
 * create-if-absent (`GzipLineUpload`), and returns what the manifest records.
 */
import { InternalError } from '../errors.js';
import { GzipLineUpload } from '../store/gzip-lines.js';
import type { ObjectStore, PutIfAbsentResult } from '../store/object-store.js';
import { isCount } from '../wal/wal-check.js';
import { SEGMENT_FORMAT_VERSION, type SegmentRef, segmentKey } from './format.js';
import { SEGMENT_LINE_FRAME_BYTES, segmentLine, writeSegmentLine } from './lines.js';

/** A segment being written. */
export class SegmentWriter {
  readonly #upload: GzipLineUpload;
  #firstOffset = -1;
  #lastOffset = -1;

  constructor(
    store: ObjectStore,
    readonly shard: string,
    readonly first: number,
    gzipLevel: number,
  ) {
    this.#upload = new GzipLineUpload(store, segmentKey(shard, first), gzipLevel);
  }

  get key(): string {
    return this.#upload.key;
  }

  /** Uncompressed bytes so far (for the split rule). */
  get rawBytes(): number {
    return this.#upload.stats.rawBytes;
  }

  /** Rows so far. */
  get rows(): number {
    return this.#upload.stats.rows;
  }

  /** Appends a row; offsets must ascend. Returns a promise only when the caller must wait. */
  row(seq: number, offset: number, text: string): Promise<void> | undefined {
    if (!(offset > this.#lastOffset)) {
      throw new InternalError(`${this.key}: offset ${offset} after ${this.#lastOffset}`);
    }
    if (this.#firstOffset < 0) this.#firstOffset = offset;
    this.#lastOffset = offset;
    const upload = this.#upload;
    // Straight into the batch when it surely fits (a UTF-16 unit takes at most 3 UTF-8 bytes).
    const batch =
      isCount(seq) && isCount(offset)
        ? upload.lineRoom(SEGMENT_LINE_FRAME_BYTES + text.length * 3 + 1)
        : undefined;
    if (batch === undefined) return upload.line(segmentLine(seq, offset, text));
    upload.endLine(writeSegmentLine(batch, upload.lineStart, seq, offset, text));
    return undefined;
  }

  /** Completes the segment covering positions [first, end). */
  async finish(
    end: number,
    createdAtMs: number,
  ): Promise<{ result: PutIfAbsentResult; ref: SegmentRef }> {
    if (this.#firstOffset < 0) throw new InternalError(`${this.key}: a segment needs a row`);
    const result = await this.#upload.finish();
    const ref: SegmentRef = {
      v: SEGMENT_FORMAT_VERSION,
      first: this.first,
      end,
      firstOffset: this.#firstOffset,
      lastOffset: this.#lastOffset,
      createdAtMs,
      ...this.#upload.stats,
    };
    return { result, ref };
  }

  /** Abandons the segment: nothing is published. */
  abort(): Promise<void> {
    return this.#upload.abort();
  }
}
