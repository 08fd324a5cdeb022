/**
 * One line of `shardwal dump`: `{"seq","offset","key"?,"delete"?,"row"?}`,
 * fields in that order, the key and the row exactly as put (`lib/rows`). A
 * segment's line and a snapshot part's line have this shape already.
 */
import { RawJson, stringifyLine } from '../rows/raw-json.js';
import type { WalRow } from '../wal/format.js';

/** The dump line of a row, without its `\n`. */
export function dumpLine({ seq, offset, key, delete: isDelete, text }: WalRow): string {
  return stringifyLine({
    seq,
    offset,
    key: key === undefined ? undefined : new RawJson(key),
    delete: isDelete,
    row: text === undefined ? undefined : new RawJson(text),
  });
}
