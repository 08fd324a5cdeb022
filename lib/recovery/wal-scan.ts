/**
 * Streams one WAL object into callbacks (`scanFrameRecords`), applying exactly the
 * rules `decodeWal` and `readWal` apply, in the same order: the framing,
 * then the v1 lines (`lines-v1.ts`) and the WAL rules (`WalChecker`), and the
 * header's shard and position against the key. Rows are provisional until
 * the scan resolves: the checksum is checked at the trailer.
 */

import { CorruptDataError } from '../errors.js';
import { walKey } from '../paths.js';
import { readCanonicalRow } from '../wal/canonical-row.js';
import type { WalHeader, WalRow } from '../wal/format.js';
import { type FrameReadAhead, scanFrameRecords } from '../wal/frame-reader.js';
import { parseHeader, parseRow, WAL_FRAME } from '../wal/lines-v1.js';
import { type Fail, WalChecker } from '../wal/wal-check.js';

/** Where a scanned object's entries go. */
export interface WalSink {
  /** The header, once checked; return false to stop reading the object (nothing more is verified). */
  header: (header: WalHeader) => boolean;
  /** Each row; a returned promise is awaited before the next line (backpressure). */
  row: (row: WalRow) => Promise<void> | undefined | void;
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
  try {
    await scanFrameRecords<WalRow>(objectKey, chunks, WAL_FRAME, {
      // Rows in the encoder's exact form are read without JSON.parse (`canonical-row.ts`).
      canonical: readCanonicalRow,
      line: ({ line, fields }) => {
        if (checker === undefined) {
          const header = parseHeader(fields, fail);
          checker = new WalChecker(header, fail);
          if (header.shard !== shard || header.position !== position) {
            fail(
              `line 1: header says shard ${header.shard} position ${header.position}, but the key says otherwise`,
            );
          }
          if (!sink.header(header)) throw new StopScan();
          return undefined;
        }
        const where = `line ${line}`;
        const row = parseRow(fields, where, fail);
        checker.row(row, where);
        return sink.row(row);
      },
      record: (row, line) => {
        // Line 1 is always the header, so the checker exists by now.
        checker!.row(row, `line ${line}`);
        return sink.row(row);
      },
    });
  } catch (error) {
    if (error instanceof StopScan) return false;
    throw error;
  }
  checker!.finish();
  return true;
}
