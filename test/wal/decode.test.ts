import { describe, expect, it } from 'vitest';
import {
  CorruptDataError,
  type UnknownFormatVersionError,
  type UnknownRecordTagError,
} from '../../lib/errors.js';
import { walKey } from '../../lib/paths.js';
import { decodeWal, decodeWalHeader } from '../../lib/wal/decode.js';
import { encodeWal } from '../../lib/wal/encode.js';
import { BASE, BASE_BYTES, CORRUPT_CASES } from './corrupt-cases.js';
import { caught, gunzipText, KEY, walObject } from './helpers.js';

describe(decodeWal, () => {
  describe('when the object is damaged or foreign', () => {
    for (const { when, bytes, error, message } of CORRUPT_CASES) {
      it(`throws ${error.name} naming the key when ${when}`, async () => {
        const thrown = await caught(() => decodeWal(KEY, bytes));
        expect(thrown).toBeInstanceOf(error);
        expect(thrown.message).toMatch(message);
        expect(thrown.message.startsWith(`${KEY}: `)).toBe(true);
        expect((thrown as CorruptDataError).objectKey).toBe(KEY);
      });
    }
  });

  it('carries the version on UnknownFormatVersionError when the version is unknown', async () => {
    const v3 = CORRUPT_CASES.find((c) => c.when === 'the version is 4')!;
    const thrown = (await caught(() => decodeWal(KEY, v3.bytes))) as UnknownFormatVersionError;
    expect(thrown.version).toBe(4);
    expect(thrown.kind).toBe('corrupt_data');
  });

  it('carries the tag on UnknownRecordTagError when a tag is unknown', async () => {
    const x = CORRUPT_CASES.find((c) => c.when === 'a record has the unknown tag "x"')!;
    const thrown = (await caught(() => decodeWal(KEY, x.bytes))) as UnknownRecordTagError;
    expect(thrown.tag).toBe('x');
  });

  it('reads an object whose text compresses far better than JSON lines do, through several output buffers', () => {
    const object = walObject([
      Array.from({ length: 2_000 }, (_, i) => ({ row: { i, pad: 'a'.repeat(500) } })),
    ]);
    const bytes = encodeWal(object);
    const textBytes = Buffer.byteLength(gunzipText(bytes));
    expect(textBytes).toBeGreaterThan(1_000_000);
    expect(textBytes / bytes.byteLength).toBeGreaterThan(50); // past the one-buffer guess of 16×
    expect(decodeWal(KEY, bytes)).toStrictEqual(object);
  });

  describe('object key check', () => {
    it('throws CorruptDataError when the key names another shard', () => {
      expect(() => decodeWal(walKey('s2', 7), BASE_BYTES)).toThrow(
        /line 1: header says shard s1 position 7, but the key says otherwise/,
      );
    });

    it('throws CorruptDataError when the key names another position', () => {
      expect(() => decodeWal(walKey('s1', 8), BASE_BYTES)).toThrow(CorruptDataError);
    });

    it('accepts a WAL key under a bucket prefix when shard and position match', () => {
      expect(decodeWal(`prod/${KEY}`, BASE_BYTES)).toStrictEqual(BASE);
    });

    it('skips the check when the key is not a WAL key', () => {
      expect(decodeWal('fixtures/any-name.gz', BASE_BYTES)).toStrictEqual(BASE);
    });
  });
});

describe(decodeWalHeader, () => {
  it('returns the header when the whole object verifies', () => {
    expect(decodeWalHeader(KEY, BASE_BYTES)).toStrictEqual(BASE.header);
  });

  it('throws when only a row is damaged, since the header is trusted only with its checksum', () => {
    const flipped = CORRUPT_CASES.find((c) => c.when === 'a byte of a row was flipped')!;
    expect(() => decodeWalHeader(KEY, flipped.bytes)).toThrow(/checksum mismatch/);
  });
});
