/**
 * Table segments (zero-copy, docs/segment-format.md): below its table's
 * high-water a routed shard's keyless rows are already in the table's data
 * files, so export stores nothing for them. It records, per range, what the
 * lines a stored segment would hold add up to (count, size, CRC-32, first
 * and last offset), and the manifest lists the range as a table segment:
 * readers take its rows from the table and check them against that record
 * (`lib/segment/table-reader.ts`). Ranges are cut at object boundaries by
 * the size rule of segments, with a smaller target: a reader orders a
 * range's rows in memory.
 */
import { crc32 } from 'node:zlib';
import { type SegmentRef, TABLE_SEGMENT_VERSION } from '../segment/format.js';
import { SEGMENT_LINE_FRAME_BYTES, writeSegmentLine } from '../segment/lines.js';

/** Uncompressed line bytes after which a table segment is closed at the next object boundary. */
export const TABLE_SEGMENT_TARGET_RAW_BYTES = 64 * 1024 * 1024;

interface OpenRange {
  first: number;
  lastPosition: number;
  firstOffset: number;
  lastOffset: number;
  rows: number;
  rawBytes: number;
  crc32: number;
}

/** The table segments of one export's range. */
export class TableSegmentLines {
  /** Table segments finished, in order. */
  readonly refs: SegmentRef[] = [];
  #open: OpenRange | undefined;
  #scratch = Buffer.alloc(64 * 1024);

  constructor(
    private readonly table: string,
    private readonly createdAtMs: number,
    private readonly targetRawBytes: number,
  ) {}

  /** Takes the next keyless row of the table's range, from the WAL object at `position`. */
  row(position: number, seq: number, offset: number, text: string): void {
    let open = this.#open;
    if (open && open.rawBytes >= this.targetRawBytes && position > open.lastPosition) {
      this.finish();
      open = undefined;
    }
    open ??= this.#open = {
      first: position,
      lastPosition: position,
      firstOffset: offset,
      lastOffset: offset,
      rows: 0,
      rawBytes: 0,
      crc32: 0,
    };
    const need = SEGMENT_LINE_FRAME_BYTES + 3 * text.length + 1;
    if (this.#scratch.length < need) this.#scratch = Buffer.alloc(need * 2);
    const end = writeSegmentLine(this.#scratch, 0, seq, offset, text);
    this.#scratch[end] = 0x0a;
    open.crc32 = crc32(this.#scratch.subarray(0, end + 1), open.crc32);
    open.rawBytes += end + 1;
    open.rows += 1;
    open.lastPosition = position;
    open.lastOffset = offset;
  }

  /** Closes the open range (its end: the position after its last row's object). */
  finish(): void {
    const open = this.#open;
    if (!open) return;
    this.#open = undefined;
    this.refs.push({
      v: TABLE_SEGMENT_VERSION,
      first: open.first,
      end: open.lastPosition + 1,
      firstOffset: open.firstOffset,
      lastOffset: open.lastOffset,
      rows: open.rows,
      rawBytes: open.rawBytes,
      bytes: 0,
      crc32: open.crc32,
      createdAtMs: this.createdAtMs,
      table: this.table,
    });
  }
}
