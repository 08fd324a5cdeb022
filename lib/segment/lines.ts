/**
 * The one line shape of a segment: `{"seq":S,"offset":O,"row":<row text>}`,
 * members in that order, the row spliced in verbatim (`lib/rows`) and read
 * back by slicing, never by `JSON.parse` of the row. It is also the shape of
 * a keyless line of `shardwal dump`, so a dump can copy it.
 */
import { readRowLine } from '../rows/row-line.js';
import { isCount, isObjectText, show } from '../wal/wal-check.js';
import type { SegmentRow } from './format.js';

/** The line of a keyless row, without its `\n`. */
export function segmentLine(seq: number, offset: number, text: string): string {
  return `{"seq":${seq},"offset":${offset},"row":${text}}`;
}

/** Reads a segment line; `fail` names what is wrong. */
export function parseSegmentLine(text: string, fail: (problem: string) => never): SegmentRow {
  const line = readRowLine(text);
  if (!line || line.rowText === undefined) return fail(`not a segment line: ${show(text)}`);
  const { seq, offset, ...rest } = line.fields as { seq?: unknown; offset?: unknown };
  const extra = Object.keys(rest);
  if (extra.length > 0) fail(`unknown fields [${extra.join(', ')}]`);
  if (!isCount(seq) || seq < 1) fail(`seq must be a positive integer, got ${show(seq)}`);
  if (!isCount(offset)) fail(`offset must be a non-negative integer, got ${show(offset)}`);
  if (!isObjectText(line.rowText)) fail(`row must be a JSON object, got ${show(line.rowText)}`);
  // The exact shape, so a line a stock tool reads is the line this writer writes.
  if (segmentLine(seq, offset, line.rowText) !== text) fail(`not in canonical form: ${show(text)}`);
  return { seq, offset, text: line.rowText };
}
