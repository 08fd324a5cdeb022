/**
 * The lines of a snapshot part, in key order (`compareKeyIds`):
 *
 *   {"seq":S,"offset":O,"key":<key id>,"row":<row text>}   a live key's newest row
 *   {"seq":S,"offset":O,"key":<key id>,"delete":true}      a delete (deltas only)
 *
 * The shape of a keyed line of `shardwal dump`; the key id and the row are
 * spliced in verbatim and read back by slicing (`lib/rows`), so number keys
 * and rows keep every digit.
 */
import { readRowLine } from '../rows/row-line.js';
import { isCount, isKeyId, isObjectText, show } from '../wal/wal-check.js';
import type { SnapshotEntry } from './format.js';

/**
 * The line of an entry, without its `\n`: what `stringifyLine` writes for
 * `{seq, offset, key: <raw>, delete, row: <raw>}`, absent members left out,
 * spelled out directly (an export writes one per live key).
 */
export function snapshotLine(entry: SnapshotEntry): string {
  let line = `{"seq":${JSON.stringify(entry.seq)},"offset":${JSON.stringify(entry.offset)},"key":${entry.key}`;
  if (entry.delete !== undefined) line += `,"delete":${JSON.stringify(entry.delete)}`;
  if (entry.text !== undefined) line += `,"row":${entry.text}`;
  return `${line}}`;
}

/** `{"seq":`, `,"offset":`, `,"key":` and the closing `}` of every line. */
const LINE_FRAME_BYTES = '{"seq":,"offset":,"key":}'.length;
const DELETE_MEMBER_BYTES = ',"delete":true'.length;
const ROW_MEMBER_BYTES = ',"row":'.length;

/**
 * UTF-8 bytes of `snapshotLine(entry)`, measured without spelling it out (an
 * export sizes its held changes this way before deciding to write them).
 * An entry without `text` is a delete.
 */
export function snapshotLineBytes(entry: Omit<SnapshotEntry, 'delete'>): number {
  return (
    LINE_FRAME_BYTES +
    String(entry.seq).length +
    String(entry.offset).length +
    Buffer.byteLength(entry.key) +
    (entry.text === undefined
      ? DELETE_MEMBER_BYTES
      : ROW_MEMBER_BYTES + Buffer.byteLength(entry.text))
  );
}

const KEY_MEMBER = ',"key":';
const ROW_MEMBER = ',"row":';

/** Reads a part line; `fail` names what is wrong. */
export function parseSnapshotLine(text: string, fail: (problem: string) => never): SnapshotEntry {
  const line = readRowLine(text);
  if (!line) return fail(`not a snapshot line: ${show(text)}`);
  const { seq, offset, key, delete: isDelete, ...rest } = line.fields as Record<string, unknown>;
  const extra = Object.keys(rest);
  if (extra.length > 0) fail(`unknown fields [${extra.join(', ')}]`);
  if (!isCount(seq) || seq < 1) fail(`seq must be a positive integer, got ${show(seq)}`);
  if (!isCount(offset)) fail(`offset must be a non-negative integer, got ${show(offset)}`);
  const keyText = keyTextOf(text, key);
  if (keyText === undefined || !isKeyId(keyText))
    fail(`key must be a JSON string or number, got ${show(key)}`);
  const entry: SnapshotEntry = { key: keyText!, seq: seq as number, offset: offset as number };
  if (isDelete !== undefined) {
    if (isDelete !== true) fail(`delete must be true when present, got ${show(isDelete)}`);
    if (line.rowText !== undefined) fail('a delete must not carry a row');
    entry.delete = true;
  } else if (!isObjectText(line.rowText)) {
    fail(`row must be a JSON object, got ${show(line.rowText)}`);
  } else {
    entry.text = line.rowText;
  }
  // The exact shape, so what a stock tool reads is what this writer writes.
  if (snapshotLine(entry) !== text) fail(`not in canonical form: ${show(text)}`);
  return entry;
}

/** The key member's JSON text: a string key is re-stringified, a number key sliced (exact). */
function keyTextOf(text: string, key: unknown): string | undefined {
  if (typeof key === 'string') return JSON.stringify(key);
  if (typeof key !== 'number') return undefined;
  const at = text.indexOf(KEY_MEMBER);
  if (at === -1) return undefined;
  const start = at + KEY_MEMBER.length;
  let end = start;
  while (end < text.length && text[end] !== ',' && text[end] !== '}') end++;
  const sliced = text.slice(start, end);
  return text.startsWith(ROW_MEMBER, end) || text[end] === ',' || text[end] === '}'
    ? sliced
    : undefined;
}
