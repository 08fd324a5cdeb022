/**
 * Encodes a WAL object from its rows, in format v2 (docs/wal-format.md): for
 * callers that hold rows, not compressed batches (tests, tools). The flusher
 * writes v3 from the batches' own gzip members (`encode-batches.ts`). The
 * input is checked
 * against every rule a reader applies (`WalChecker`) before a byte is
 * written: the flusher builds it, so an inconsistent object is a bug and
 * raises `InternalError` rather than reaching S3.
 */
import { InternalError } from '../errors.js';
import { WAL_ROWS_VERSION, type WalObject } from './format.js';
import { encodeFrame, type FrameRecord } from './framing.js';
import { headerFields, rowFields, WAL_FRAME, WalTag } from './lines-v1.js';
import { WalChecker } from './wal-check.js';

/**
 * The gzip'd bytes of `object`. Deterministic: equal objects give equal
 * uncompressed text (fields in a fixed order, `createdAtMs` taken from the
 * header, never the clock).
 */
export function encodeWal(object: WalObject): Uint8Array {
  const { header, rows } = object;
  const fail = (problem: string): never => {
    throw new InternalError(`encodeWal(${header.shard} position ${header.position}): ${problem}`);
  };
  const checker = new WalChecker(header, fail);
  for (const [index, row] of rows.entries()) checker.row(row, `rows[${index}]`);
  checker.finish();
  return encodeFrame(WAL_ROWS_FRAME, headerFields(header), records(object));
}

/** v2 writes row lines only. */
const WAL_ROWS_FRAME = { ...WAL_FRAME, version: WAL_ROWS_VERSION, recordTags: [WalTag.row] };

function* records({ rows }: WalObject): Generator<FrameRecord> {
  for (const row of rows) yield { tag: WalTag.row, fields: rowFields(row) };
}
