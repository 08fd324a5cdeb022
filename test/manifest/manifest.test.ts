/**
 * Manifest format v1: the encoder's text is exactly the committed golden
 * text, the committed gzip decodes to the golden manifest, and the decoder
 * fails loud (typed errors naming the key) on unknown versions and tags, a
 * broken checksum, a header that names another key, and broken rules, all
 * without reading a part or a segment.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import {
  CorruptDataError,
  InternalError,
  UnknownFormatVersionError,
  UnknownRecordTagError,
} from '../../lib/errors.js';
import { decodeManifest, encodeManifest } from '../../lib/manifest/codec.js';
import { type Manifest, manifestKey } from '../../lib/manifest/format.js';
import { caught } from '../wal/helpers.js';

const fixture = (name: string) => readFileSync(path.join(import.meta.dirname, 'fixtures', name));
const KEY = manifestKey('orders-eu', 44);

/** The golden manifest: a base, two parts of one delta range, two segments, a history floor. */
const GOLDEN: Manifest = {
  header: {
    shard: 'orders-eu',
    coveredPosition: 44,
    lastSeq: 1007,
    nextRowOffset: 5010,
    historyFloor: 20,
    keylessRows: 5,
    previousExport: 40,
    createdAtMs: 1_712_345_678_901,
  },
  parts: [
    {
      v: 1,
      kind: 'base',
      from: 0,
      to: 40,
      index: 0,
      rows: 120,
      deletes: 0,
      rawBytes: 9000,
      bytes: 2100,
      crc32: 3_735_928_559,
    },
    {
      v: 1,
      kind: 'delta',
      from: 40,
      to: 44,
      index: 0,
      rows: 4,
      deletes: 1,
      rawBytes: 300,
      bytes: 190,
      crc32: 1,
    },
    {
      v: 1,
      kind: 'delta',
      from: 40,
      to: 44,
      index: 1,
      rows: 1,
      deletes: 0,
      rawBytes: 60,
      bytes: 70,
      crc32: 4_294_967_295,
    },
  ],
  segments: [
    {
      v: 1,
      first: 21,
      end: 40,
      firstOffset: 4000,
      lastOffset: 4999,
      rows: 3,
      rawBytes: 200,
      bytes: 120,
      crc32: 77,
      createdAtMs: 1_712_345_000_000,
    },
    {
      v: 1,
      first: 43,
      end: 44,
      firstOffset: 5001,
      lastOffset: 5008,
      rows: 2,
      rawBytes: 150,
      bytes: 110,
      crc32: 88,
      createdAtMs: 1_712_345_678_901,
    },
  ],
};

const text = (bytes: Uint8Array) => gunzipSync(bytes).toString('utf8');
const edited = (edit: (text: string) => string) =>
  gzipSync(Buffer.from(edit(fixture('golden-v1.jsonl').toString('utf8'))));

describe('manifest format v1', () => {
  it('encodes exactly the committed golden text', () => {
    expect(text(encodeManifest(GOLDEN))).toBe(fixture('golden-v1.jsonl').toString('utf8'));
  });

  it('decodes the committed gzip to the golden manifest', () => {
    expect(decodeManifest(KEY, fixture('golden-v1.jsonl.gz'))).toEqual(GOLDEN);
  });

  it('fails loud on an unknown version of the manifest, a part or a segment, and on an unknown tag', async () => {
    const cases: Array<[(t: string) => string, new (...args: never[]) => Error, RegExp]> = [
      [
        (t) => t.replace('"v":1,"shard"', '"v":3,"shard"'),
        UnknownFormatVersionError,
        /manifest format version 3/,
      ],
      [
        (t) => t.replace('{"t":"p","v":1,"kind":"base"', '{"t":"p","v":3,"kind":"base"'),
        UnknownFormatVersionError,
        /snapshot format version 3/,
      ],
      [
        (t) => t.replace('{"t":"s","v":1,"first":21', '{"t":"s","v":5,"first":21'),
        UnknownFormatVersionError,
        /segment format version 5/,
      ],
      [
        (t) => t.replace('{"t":"s","v":1,"first":43', '{"t":"x","v":1,"first":43'),
        UnknownRecordTagError,
        /unknown record tag "x"/,
      ],
    ];
    for (const [edit, type, message] of cases) {
      // The trailer's checksum is not redone: the version and tag checks come first, by name.
      const error = await caught(async () => decodeManifest(KEY, edited(edit)));
      expect(error, String(message)).toBeInstanceOf(type);
      expect((error as Error).message).toMatch(message);
      expect((error as Error).message).toContain(KEY);
    }
  });

  it('fails loud on a flipped byte, a truncation, or a header naming another key', async () => {
    const flipped = await caught(async () =>
      decodeManifest(
        KEY,
        edited((t) => t.replace('"rows":120', '"rows":121')),
      ),
    );
    expect((flipped as Error).message).toMatch(/checksum mismatch/);
    const truncated = fixture('golden-v1.jsonl.gz').subarray(0, 60);
    expect(await caught(async () => decodeManifest(KEY, truncated))).toBeInstanceOf(
      CorruptDataError,
    );
    const elsewhere = await caught(async () =>
      decodeManifest(manifestKey('orders-eu', 45), fixture('golden-v1.jsonl.gz')),
    );
    expect((elsewhere as Error).message).toMatch(/the key says otherwise/);
  });

  it('refuses to encode a manifest that breaks a rule, naming it', () => {
    const broken: Array<[Partial<Manifest>, RegExp]> = [
      [{ segments: [GOLDEN.segments[1]!, GOLDEN.segments[0]!] }, /does not follow/],
      [{ parts: [GOLDEN.parts[1]!, GOLDEN.parts[0]!] }, /a base must be the first part/],
      [{ header: { ...GOLDEN.header, keylessRows: 6 } }, /header says 6 keyless rows/],
      [{ header: { ...GOLDEN.header, historyFloor: 22 } }, /not within \[historyFloor 22/],
      [{ parts: [GOLDEN.parts[0]!, GOLDEN.parts[2]!] }, /does not follow/],
    ];
    for (const [change, message] of broken) {
      expect(() => encodeManifest({ ...GOLDEN, ...change })).toThrow(InternalError);
      expect(() => encodeManifest({ ...GOLDEN, ...change })).toThrow(message);
    }
  });
});

/** The golden manifest with its first segment held by a table (zero-copy). */
const GOLDEN_V2: Manifest = {
  ...GOLDEN,
  segments: [{ ...GOLDEN.segments[0]!, v: 2, bytes: 0, table: 'orders_eu' }, GOLDEN.segments[1]!],
};
const editedV2 = (edit: (text: string) => string) =>
  gzipSync(Buffer.from(edit(fixture('golden-v2.jsonl').toString('utf8'))));

describe('manifest format v2', () => {
  it('encodes a manifest listing a table segment exactly as the committed golden text, and decodes it back', () => {
    const bytes = encodeManifest(GOLDEN_V2);
    expect(text(bytes)).toBe(fixture('golden-v2.jsonl').toString('utf8'));
    expect(decodeManifest(KEY, bytes)).toEqual(GOLDEN_V2);
  });

  it('fails loud on a table segment a format-1 manifest lists, a bad table name, stored bytes, or a table on a stored segment', async () => {
    const cases: Array<[(t: string) => string, RegExp]> = [
      [
        (t) => t.replace('"v":2,"shard"', '"v":1,"shard"'),
        /a table segment in a format-1 manifest/,
      ],
      [
        (t) => t.replace('"table":"orders_eu"', '"table":"Orders-EU"'),
        /table must be a table name/,
      ],
      [(t) => t.replace('"bytes":0,', '"bytes":5,'), /stores no bytes of its own, got bytes 5/],
      [
        (t) =>
          t.replace('"createdAtMs":1712345678901}', '"createdAtMs":1712345678901,"table":"t"}'),
        /unknown fields \[table\]/,
      ],
    ];
    for (const [edit, message] of cases) {
      const error = await caught(async () => decodeManifest(KEY, editedV2(edit)));
      expect(error, String(message)).toBeInstanceOf(CorruptDataError);
      expect((error as Error).message).toMatch(message);
    }
  });
});
