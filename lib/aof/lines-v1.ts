/**
 * The lines of an AOF export (v2; v1 reads the same way, its keys as string keys): the fields each holds, in the order the
 * writer emits them, and their strict mapping back. Values are checked by
 * `AofChecker`; this file checks that each line holds exactly its fields.
 *
 *   {"t":"h","magic":"shardwal-aof","v":1,"shard":..,"coveredPosition":..,"lastSeq":..,
 *    "nextRowOffset":..,"keyedCount":..,"keylessCount":..,"previousExport":..|null,"createdAtMs":..}
 *   {"t":"k","k":<key id>,"s":<seq>,"o":<offset>,"row":<text>}   keyed, ascending key id
 *   {"t":"r","s":<seq>,"o":<offset>,"row":<text>}                keyless, ascending offset
 *   {"t":"e","rows":<count>,"crc32":<uint32>}
 */
import { RawJson } from '../rows/raw-json.js';
import type { FrameFields, FrameFormat } from '../wal/framing.js';
import { parseRawRecord } from '../wal/lines-v1.js';
import { type Fail, show } from '../wal/wal-check.js';
import {
  AOF_FORMAT_VERSION,
  AOF_MAGIC,
  AOF_READABLE_VERSIONS,
  type AofHeader,
  type AofKeyedRow,
  type AofKeylessRow,
} from './format.js';

/** Record tags of an AOF v1 export (header and trailer belong to the framing). */
export const AofTag = { keyed: 'k', keyless: 'r' } as const;

/** The AOF format as the framing sees it. */
export const AOF_FRAME: FrameFormat = {
  name: 'AOF',
  magic: AOF_MAGIC,
  version: AOF_FORMAT_VERSION,
  readableVersions: AOF_READABLE_VERSIONS,
  recordTags: [AofTag.keyed, AofTag.keyless],
  parseRecord: parseRawRecord,
};

const HEADER_FIELDS = [
  'shard',
  'coveredPosition',
  'lastSeq',
  'nextRowOffset',
  'keyedCount',
  'keylessCount',
  'previousExport',
  'createdAtMs',
] as const;
const HEADER_KEYS: readonly string[] = ['t', 'magic', 'v', ...HEADER_FIELDS];
const KEYED_KEYS: readonly string[] = ['t', 'k', 's', 'o', 'row'];
const KEYLESS_KEYS: readonly string[] = ['t', 's', 'o', 'row'];

/** The header's fields after `t`, `magic` and `v`, in written order. */
export function headerFields(header: AofHeader): FrameFields {
  const fields: FrameFields = {};
  for (const name of HEADER_FIELDS) fields[name] = header[name];
  return fields;
}

/** A keyed record's fields after `t`. */
export function keyedFields(row: AofKeyedRow): FrameFields {
  return { k: new RawJson(row.key), s: row.seq, o: row.offset, row: new RawJson(row.text) };
}

/** A keyless record's fields after `t`. */
export function keylessFields(row: AofKeylessRow): FrameFields {
  return { s: row.seq, o: row.offset, row: new RawJson(row.text) };
}

/** Maps a header line back; exactly the v1 header fields. */
export function parseHeader(fields: FrameFields, fail: Fail): AofHeader {
  exactly(fields, HEADER_KEYS, 'line 1 (header)', fail);
  const header: Record<string, unknown> = {};
  for (const name of HEADER_FIELDS) header[name] = fields[name];
  return header as unknown as AofHeader;
}

/** Maps a keyed record back. */
export function parseKeyed(fields: FrameFields, where: string, fail: Fail): AofKeyedRow {
  exactly(fields, KEYED_KEYS, where, fail);
  return {
    key: rawText(fields.k, `${where}: "k"`, fail),
    seq: fields.s as number,
    offset: fields.o as number,
    text: rawText(fields.row, `${where}: "row"`, fail),
  };
}

/** Maps a keyless record back. */
export function parseKeyless(fields: FrameFields, where: string, fail: Fail): AofKeylessRow {
  exactly(fields, KEYLESS_KEYS, where, fail);
  return {
    seq: fields.s as number,
    offset: fields.o as number,
    text: rawText(fields.row, `${where}: "row"`, fail),
  };
}

/** The text of a member read raw; a line that could not be read raw is malformed. */
function rawText(value: unknown, what: string, fail: Fail): string {
  if (value instanceof RawJson) return value.text;
  return fail(`${what} is not in the form an AOF record takes, got ${show(value)}`);
}

function exactly(fields: FrameFields, keys: readonly string[], where: string, fail: Fail): void {
  const missing = keys.filter((key) => !Object.hasOwn(fields, key));
  const extra = Object.keys(fields).filter((key) => !keys.includes(key));
  if (missing.length > 0 || extra.length > 0) {
    fail(`${where}: missing fields [${missing.join(', ')}], unknown fields [${extra.join(', ')}]`);
  }
}
