/**
 * The two shapes the memory-backed tests share with the put path and the
 * WAL: a put body built from plain rows (parsed as the HTTP route parses its
 * text), and WAL rows read back as plain objects. One place to follow when
 * those shapes change.
 */
import type { ShardwalConfig } from '../../../lib/config.js';
import { type ParsedPut, parsePutText } from '../../../lib/put/schema.js';
import type { WalRow } from '../../../lib/wal/format.js';

/** The body `putRows` takes for `rows`, parsed exactly as a request's text is. */
export function putBody(config: ShardwalConfig, rows: readonly object[]): ParsedPut {
  return parsePutText(JSON.stringify({ rows }), config.maxRowsPerPut);
}

/** A WAL row's object, from the exact source text the WAL keeps. */
export function rowObject(row: WalRow): unknown {
  return row.text === undefined ? undefined : JSON.parse(row.text);
}
