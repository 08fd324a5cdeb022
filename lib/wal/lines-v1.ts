/**
 * The lines of a WAL object (v1-v3): which fields each holds, in the order
 * the encoder writes them (fixed, so equal objects encode to equal bytes),
 * and their strict mapping back. Values are checked by `WalChecker` (and
 * `BatchFrames` for v3); this file checks that each line holds exactly its
 * fields.
 *
 *   {"t":"h","magic":"shardwal-wal","v":3,"shard":..,"position":..,"epoch":..,"firstSeq":..,
 *    "lastSeq":..,"firstRowOffset":..,"rowCount":..,"voidSeqs":[..],"createdAtMs":..}
 *   v1, v2: {"t":"r","s":<seq>,"o":<offset>,"k":<key id, keyed rows only>,"d":1 <deletes only>,"row":<row text, puts only>}
 *   v3:     {"t":"b","s":<seq>,"o":<first offset>,"n":<rows>,"at":<buffered at, ms>}
 *           then its rows: {"t":"r","k":..,"d":1,"row":..} (no seq, no offset)
 *   {"t":"e","rows":<count>,"crc32":<uint32>}
 *
 * Row lines carry the row text and key id verbatim (`lib/rows`); in v1 the
 * key was always a JSON string, which reads as the same id.
 */

import { RawJson } from '../rows/raw-json.js';
import { readRowLine } from '../rows/row-line.js';
import type { WalHeader, WalRow } from './format.js';
import {
  WAL_FORMAT_VERSION,
  WAL_HEADER_FIELDS,
  WAL_MAGIC,
  WAL_READABLE_VERSIONS,
} from './format.js';
import type { FrameFields, FrameFormat } from './framing.js';
import type { Fail } from './wal-check.js';
import { show } from './wal-check.js';

/** Record tags of a WAL object (header and trailer belong to the framing); `b` from v3 on. */
export const WalTag = { row: 'r', batch: 'b' } as const;

/** The first version whose rows are framed by batch lines (and carry no seq or offset). */
export const FRAMED_BATCHES_VERSION = 3;

/** The WAL format as the framing sees it. */
export const WAL_FRAME: FrameFormat = {
  name: 'WAL',
  magic: WAL_MAGIC,
  version: WAL_FORMAT_VERSION,
  readableVersions: WAL_READABLE_VERSIONS,
  recordTags: [WalTag.row, WalTag.batch],
  parseRecord: parseRawRecord,
};

/** A row line's fields with `k` and `row` as `RawJson` (`lib/rows/row-line.ts`). */
export function parseRawRecord(text: string): FrameFields | undefined {
  const line = readRowLine(text);
  if (!line) return undefined;
  const fields: FrameFields = { ...line.fields };
  if (line.keyText !== undefined) fields.k = new RawJson(line.keyText);
  if (line.rowText !== undefined) fields.row = new RawJson(line.rowText);
  return fields;
}

const FRAME_KEYS = ['t', 'magic', 'v'];
const HEADER_KEYS: readonly string[] = [...FRAME_KEYS, ...WAL_HEADER_FIELDS];
const ROW_KEYS = new Set(['t', 's', 'o', 'k', 'd', 'row']);
const FRAMED_ROW_KEYS = new Set(['t', 'k', 'd', 'row']);

/** The header's fields after `t`, `magic` and `v`, in written order. */
export function headerFields(header: WalHeader): FrameFields {
  return {
    shard: header.shard,
    position: header.position,
    epoch: header.epoch,
    firstSeq: header.firstSeq,
    lastSeq: header.lastSeq,
    firstRowOffset: header.firstRowOffset,
    rowCount: header.rowCount,
    voidSeqs: header.voidSeqs,
    createdAtMs: header.createdAtMs,
  };
}

/** A row's fields after `t`, in written order; absent ones are omitted, never null. */
export function rowFields(row: WalRow): FrameFields {
  const fields: FrameFields = { s: row.seq, o: row.offset };
  if (row.key !== undefined) fields.k = new RawJson(row.key);
  if (row.delete) fields.d = 1;
  else fields.row = row.text === undefined ? undefined : new RawJson(row.text);
  return fields;
}

/** Maps a header line back; exactly the v1 header fields, no more, no fewer. */
export function parseHeader(fields: FrameFields, fail: Fail): WalHeader {
  const keys = Object.keys(fields);
  const missing = HEADER_KEYS.filter((key) => !Object.hasOwn(fields, key));
  const extra = keys.filter((key) => !HEADER_KEYS.includes(key));
  if (missing.length > 0 || extra.length > 0) {
    fail(
      `line 1 (header): missing fields [${missing.join(', ')}], unknown fields [${extra.join(', ')}]`,
    );
  }
  const header: Record<string, unknown> = {};
  for (const key of WAL_HEADER_FIELDS) header[key] = fields[key];
  return header as unknown as WalHeader;
}

/**
 * Maps a row line back, in `WalRow` field order: seq, offset, key, delete,
 * row. A `framed` row (v3) has no seq or offset of its own: they come back
 * as 0 for `BatchFrames.place` to set from its batch frame.
 */
export function parseRow(fields: FrameFields, where: string, fail: Fail, framed = false): WalRow {
  const allowed = framed ? FRAMED_ROW_KEYS : ROW_KEYS;
  const extra = Object.keys(fields).filter((key) => !allowed.has(key));
  if (extra.length > 0) fail(`${where}: unknown row fields [${extra.join(', ')}]`);
  if (!framed) {
    for (const key of ['s', 'o']) {
      if (!Object.hasOwn(fields, key)) fail(`${where}: row has no "${key}" field`);
    }
  }
  const row: WalRow = framed
    ? { seq: 0, offset: 0 }
    : { seq: fields.s as number, offset: fields.o as number };
  if (Object.hasOwn(fields, 'k')) {
    const key = fields.k;
    // A line read whole (not raw) holds a plain JSON value: a string key reads as its literal.
    if (key instanceof RawJson) row.key = key.text;
    else if (typeof key === 'string') row.key = JSON.stringify(key);
    else fail(`${where}: key must be a JSON string or number, got ${show(key)}`);
  }
  if (Object.hasOwn(fields, 'd')) {
    if (fields.d !== 1) fail(`${where}: "d" must be 1 when present, got ${show(fields.d)}`);
    row.delete = true;
  }
  if (Object.hasOwn(fields, 'row')) {
    // Read raw, a row is always an object's text; read whole, it is whatever the line held.
    if (fields.row instanceof RawJson) row.text = fields.row.text;
    else fail(`${where}: row must be a JSON object, got ${show(fields.row)}`);
  }
  return row;
}
