/**
 * Damaged or foreign WAL objects and the error each must raise, shared by the
 * `decodeWal` and `readWal` tests so both readers are held to the same rules.
 * The base object has seqs 10..13 (11 void) and rows on lines 2-4:
 *   line 2: seq 10 offset 100 key "a" row {"name":"alpha"}
 *   line 3: seq 12 offset 101 row {"n":2}
 *   line 4: seq 13 offset 102 key "a" delete
 *   line 5: trailer
 */
import { gzipSync } from 'node:zlib';
import {
  CorruptDataError,
  UnknownFormatVersionError,
  UnknownRecordTagError,
} from '../../lib/errors.js';
import { encodeWal } from '../../lib/wal/encode.js';
import { bodyLines, editText, reframe, walObject } from './helpers.js';

export const BASE = walObject([
  [{ key: 'a', row: { name: 'alpha' } }],
  'void',
  [{ row: { n: 2 } }],
  [{ key: 'a', delete: true }],
]);
export const BASE_BYTES = encodeWal(BASE);

export interface CorruptCase {
  when: string;
  bytes: Uint8Array;
  error: new (...args: never[]) => CorruptDataError;
  message: RegExp;
}

/** The base object's lines (no trailer) with line `n` (1-based) edited, behind a correct trailer. */
function withLine(n: number, edit: (line: string) => string): Uint8Array {
  const lines = bodyLines(BASE_BYTES);
  lines[n - 1] = edit(lines[n - 1]!);
  return reframe(lines);
}

const lines = () => bodyLines(BASE_BYTES);
const text = (edit: (text: string) => string) => editText(BASE_BYTES, edit);
const bytes = BASE_BYTES;

export const CORRUPT_CASES: CorruptCase[] = [
  {
    when: 'the version is 4',
    bytes: withLine(1, (l) => l.replace('"v":2', '"v":4')),
    error: UnknownFormatVersionError,
    message: /unknown WAL format version 4; this reader supports 1, 2, 3/,
  },
  {
    when: 'a v4 header has none of the v3 fields and unknown tags follow',
    bytes: reframe(['{"t":"h","magic":"shardwal-wal","v":4,"layout":"columnar"}', '{"t":"c"}']),
    error: UnknownFormatVersionError,
    message: /unknown WAL format version 4/,
  },
  {
    when: 'a v2 object holds a batch frame (a v3 tag)',
    bytes: withLine(3, () => '{"t":"b","s":12,"o":101,"n":1,"at":5}'),
    error: UnknownRecordTagError,
    message: /line 3: unknown record tag "b"; expected one of h, r, e/,
  },
  {
    when: 'the header has no version',
    bytes: withLine(1, (l) => l.replace('"v":2,', '')),
    error: UnknownFormatVersionError,
    message: /unknown WAL format version undefined/,
  },
  {
    when: 'a record has the unknown tag "x"',
    bytes: withLine(3, (l) => l.replace('"t":"r"', '"t":"x"')),
    error: UnknownRecordTagError,
    message: /line 3: unknown record tag "x"; expected one of h, r, b, e/,
  },
  {
    when: 'a byte of a row was flipped',
    bytes: text((t) => t.replace('alpha', 'alpHa')),
    error: CorruptDataError,
    message: /line 5 \(trailer\): checksum mismatch: trailer says crc32 \d+, content has \d+/,
  },
  {
    when: 'the gzip bytes are cut short',
    bytes: bytes.subarray(0, bytes.length - 9),
    error: CorruptDataError,
    message: /not a valid gzip stream \(truncated or damaged\): unexpected end of file/,
  },
  {
    when: 'the bytes are not gzip',
    bytes: Buffer.from('{"t":"h"} this is not gzip'),
    error: CorruptDataError,
    message: /not a valid gzip stream/,
  },
  {
    when: 'the object is zero bytes',
    bytes: new Uint8Array(0),
    error: CorruptDataError,
    message: /not a valid gzip/,
  },
  {
    when: 'zero bytes follow the gzip stream',
    bytes: Buffer.concat([bytes, Buffer.alloc(10)]),
    error: CorruptDataError,
    message: /10 bytes follow the end of the gzip stream/,
  },
  {
    when: 'the trailer was removed',
    bytes: gzipSync(`${lines().join('\n')}\n`),
    error: CorruptDataError,
    message: /truncated: no trailer after line 4/,
  },
  {
    when: 'the text stops in the middle of a row',
    bytes: text((t) => t.slice(0, t.indexOf('"n":2'))),
    error: CorruptDataError,
    message: /truncated: line 3 has no terminating newline and no trailer follows/,
  },
  {
    when: 'the decompressed text is empty',
    bytes: gzipSync(''),
    error: CorruptDataError,
    message: /truncated: the object is empty/,
  },
  {
    when: 'the trailer has no final newline',
    bytes: text((t) => t.slice(0, -1)),
    error: CorruptDataError,
    message: /truncated: line 5 has no terminating newline/,
  },
  {
    when: 'a record follows the trailer',
    bytes: text((t) => `${t}${lines()[1]}\n`),
    error: CorruptDataError,
    message: /line 6: data after the trailer/,
  },
  {
    when: 'an empty line follows the trailer',
    bytes: text((t) => `${t}\n`),
    error: CorruptDataError,
    message: /line 6: data after the trailer/,
  },
  {
    when: 'a partial line follows the trailer',
    bytes: text((t) => `${t}xy`),
    error: CorruptDataError,
    message: /2 bytes after the trailer/,
  },
  {
    when: "the magic is another format's",
    bytes: withLine(1, (l) => l.replace('shardwal-wal', 'shardwal-aof')),
    error: CorruptDataError,
    message: /line 1: expected magic "shardwal-wal", got "shardwal-aof"/,
  },
  {
    when: 'the first line is a row, not a header',
    bytes: reframe(lines().slice(1)),
    error: CorruptDataError,
    message: /line 1: expected the header \(t "h"\), got t "r"/,
  },
  {
    when: 'a line is malformed JSON',
    bytes: withLine(3, (l) => l.slice(0, -1)),
    error: CorruptDataError,
    message: /line 3: malformed JSON/,
  },
  {
    when: 'a line is a JSON array',
    bytes: withLine(3, () => '["r",12]'),
    error: CorruptDataError,
    message: /line 3: expected a JSON object/,
  },
  {
    when: 'a line is not UTF-8',
    bytes: gzipSync(
      Buffer.concat([
        Buffer.from(`${lines()[0]}\n{"t":"r","s":10,"o":100,"row":{"x":"`),
        Buffer.from([0xff]),
        Buffer.from('"}}\n'),
      ]),
    ),
    error: CorruptDataError,
    message: /line 2: not valid UTF-8/,
  },
  {
    when: 'a second header appears',
    bytes: reframe([...lines().slice(0, 2), lines()[0]!, ...lines().slice(2)]),
    error: CorruptDataError,
    message: /line 3: a second header; only line 1 may be one/,
  },
  {
    when: 'the offsets have a gap',
    bytes: withLine(3, (l) => l.replace('"o":101', '"o":102')),
    error: CorruptDataError,
    message: /line 3: offset 102, expected 101 \(offsets are contiguous\)/,
  },
  {
    when: 'a seq is neither rows nor void',
    bytes: withLine(1, (l) => l.replace('"voidSeqs":[11]', '"voidSeqs":[]')),
    error: CorruptDataError,
    message: /line 3: seq 11 has no rows and is not listed as void/,
  },
  {
    when: 'the last seq is neither rows nor void',
    bytes: withLine(1, (l) => l.replace('"lastSeq":13', '"lastSeq":14')),
    error: CorruptDataError,
    message: /end of object: seq 14 has no rows and is not listed as void/,
  },
  {
    when: 'row seqs decrease',
    bytes: withLine(4, (l) => l.replace('"s":13', '"s":10')),
    error: CorruptDataError,
    message: /line 4: seq 10 after seq 12; seqs never decrease/,
  },
  {
    when: 'the header rowCount disagrees with the rows',
    bytes: withLine(1, (l) => l.replace('"rowCount":3', '"rowCount":4')),
    error: CorruptDataError,
    message: /header says rowCount 4, the object has 3 rows/,
  },
  {
    when: 'the trailer row count disagrees with the records',
    bytes: text((t) => t.replace('"rows":3', '"rows":4')),
    error: CorruptDataError,
    message: /line 5 \(trailer\): trailer says 4 records, the object has 3/,
  },
  {
    when: 'the trailer is not in canonical form',
    bytes: text((t) => t.replace('{"t":"e","rows":3', '{"t":"e", "rows":3')),
    error: CorruptDataError,
    message: /line 5 \(trailer\): expected exactly \{"t":"e","rows":<count>,"crc32":<uint32>\}/,
  },
  {
    when: 'the header has an unknown field',
    bytes: withLine(1, (l) => l.replace('}', ',"compression":"zstd"}')),
    error: CorruptDataError,
    message: /line 1 \(header\): missing fields \[\], unknown fields \[compression\]/,
  },
  {
    when: 'a header integer is a string',
    bytes: withLine(1, (l) => l.replace('"epoch":3', '"epoch":"3"')),
    error: CorruptDataError,
    message: /header: epoch must be a non-negative integer, got "3"/,
  },
  {
    when: 'a row has an unknown field',
    bytes: withLine(2, (l) => l.replace('"o":100', '"o":100,"ttl":5')),
    error: CorruptDataError,
    message: /line 2: unknown row fields \[ttl\]/,
  },
  {
    when: 'a delete marker is true instead of 1',
    bytes: withLine(4, (l) => l.replace('"d":1', '"d":true')),
    error: CorruptDataError,
    message: /line 4: "d" must be 1 when present, got true/,
  },
  {
    when: 'a row is null',
    bytes: withLine(3, (l) => l.replace('{"n":2}', 'null')),
    error: CorruptDataError,
    message: /line 3: row must be a JSON object, got null/,
  },
];
