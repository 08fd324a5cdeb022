/**
 * Streams one WAL object into callbacks (`scanFrameRecords`), applying exactly the
 * rules `decodeWal` and `readWal` apply, in the same order: the framing,
 * then the lines (`lines-v1.ts`), v3's batch frames (`BatchFrames`) and the
 * WAL rules (`WalChecker`), and the header's shard and position against the
 * key. Rows are provisional until
 * the scan resolves: the checksum is checked at the trailer.
 */

import { CorruptDataError } from '../errors.js';
import { walKey } from '../paths.js';
import { BatchFrames } from '../wal/batch-frames.js';
import { readCanonicalRow, reusableRow } from '../wal/canonical-row.js';
import { unframedTag } from '../wal/decode.js';
import type { WalHeader, WalRow } from '../wal/format.js';
import { type FrameReadAhead, scanFrameRecords } from '../wal/frame-reader.js';
import {
  FRAMED_BATCHES_VERSION,
  parseHeader,
  parseRow,
  WAL_FRAME,
  WalTag,
} from '../wal/lines-v1.js';
import { type Fail, WalChecker } from '../wal/wal-check.js';

/** Where a scanned object's entries go. */
export interface WalSink {
  /** The header, once checked; return false to stop reading the object (nothing more is verified). */
  header: (header: WalHeader) => boolean;
  /** Each row; a returned promise is awaited before the next line (backpressure). */
  row: (row: WalRow) => Promise<void> | undefined | void;
  /**
   * False when the sink never reads a row's text: rows in the encoder's
   * exact form then carry `ROW_TEXT_NOT_READ` (checked the same, not
   * copied). Default true.
   */
  text?: boolean;
  /**
   * True when the sink keeps no row object past its `row` call, or past the
   * promise that call returned (the scan reads no further line until it
   * settles): it copies what it keeps. Rows in the encoder's exact form then
   * arrive in one object, refilled for each. Default false.
   */
  reuseRows?: boolean;
}

/** Thrown inside the scan to stop it early; never escapes `scanWal`. */
class StopScan extends Error {}

/**
 * Scans the WAL object stored at `shard`'s `position`, from its compressed
 * chunks or a `FrameReadAhead` of them. Resolves true when the object
 * verified to its trailer, false when `sink.header` stopped it.
 */
export async function scanWal(
  shard: string,
  position: number,
  chunks: AsyncIterable<Uint8Array> | FrameReadAhead,
  sink: WalSink,
): Promise<boolean> {
  const objectKey = walKey(shard, position);
  const fail: Fail = (problem) => {
    throw new CorruptDataError(objectKey, problem);
  };
  let checker: WalChecker | undefined;
  // v3: rows take seq and offset from their batch frame.
  let frames: BatchFrames | undefined;
  const withText = sink.text ?? true;
  const into = sink.reuseRows === true ? reusableRow() : undefined;
  try {
    await scanFrameRecords<WalRow>(objectKey, chunks, WAL_FRAME, {
      // Rows in the encoder's exact form are read without JSON.parse (`canonical-row.ts`).
      canonical: (bytes, start, end, ascii) =>
        readCanonicalRow(bytes, start, end, ascii, frames !== undefined, withText, into),
      line: ({ line, tag, fields }) => {
        if (checker === undefined) {
          const header = parseHeader(fields, fail);
          checker = new WalChecker(header, fail);
          if ((fields.v as number) >= FRAMED_BATCHES_VERSION)
            frames = new BatchFrames(header, fail);
          if (header.shard !== shard || header.position !== position) {
            fail(
              `line 1: header says shard ${header.shard} position ${header.position}, but the key says otherwise`,
            );
          }
          if (!sink.header(header)) throw new StopScan();
          return undefined;
        }
        const where = `line ${line}`;
        if (tag === WalTag.batch) {
          if (frames === undefined) throw unframedTag(objectKey, line);
          frames.frame(fields, where);
          return undefined;
        }
        const row = parseRow(fields, where, fail, frames !== undefined);
        frames?.place(row, line);
        checker.row(row, line);
        return sink.row(row);
      },
      record: (row, line) => {
        // Line 1 is always the header, so the checker exists by now.
        frames?.place(row, line);
        checker!.row(row, line);
        return sink.row(row);
      },
    });
  } catch (error) {
    if (error instanceof StopScan) return false;
    throw error;
  }
  frames?.finish();
  checker!.finish();
  return true;
}
