import { describe, expect, it } from 'vitest';
import { decodeWal } from '../../lib/wal/decode.js';
import { encodeWal } from '../../lib/wal/encode.js';
import type { WalObject } from '../../lib/wal/format.js';
import { type BatchSpec, gunzipText, KEY, readWalObject, walObject } from './helpers.js';

function roundTrip(object: WalObject): WalObject {
  return decodeWal(KEY, encodeWal(object));
}

describe(encodeWal, () => {
  describe('round trip through decodeWal', () => {
    it('returns keyed rows unchanged when every row has a key', () => {
      const object = walObject([
        [
          { key: 'a', row: { n: 1 } },
          { key: 'b', row: { n: 2 } },
        ],
        [{ key: 'a', row: { n: 3 } }],
      ]);
      expect(roundTrip(object)).toStrictEqual(object);
    });

    it('returns keyless rows without a key field when rows have no key', () => {
      const object = walObject([[{ row: { n: 1 } }, { row: { n: 2 } }]]);
      const decoded = roundTrip(object);
      expect(decoded).toStrictEqual(object);
      expect(Object.keys(decoded.rows[0]!)).toEqual(['seq', 'offset', 'text']);
    });

    it('returns deletes as key plus delete marker and no row when rows are deletes', () => {
      const object = walObject([[{ key: 'a', row: { n: 1 } }], [{ key: 'a', delete: true }]]);
      expect(roundTrip(object).rows[1]).toStrictEqual({
        seq: 11,
        offset: 101,
        key: '"a"',
        delete: true,
      });
    });

    it('keeps void seqs when gaps were sealed, including a first and a last void', () => {
      const object = walObject([
        'void',
        [{ row: { n: 1 } }],
        'void',
        'void',
        [{ row: {} }],
        'void',
      ]);
      expect(object.header.voidSeqs).toEqual([10, 12, 13, 15]);
      expect(roundTrip(object)).toStrictEqual(object);
    });

    it('accepts an object of voids only, with no rows', () => {
      const object = walObject(['void', 'void']);
      expect(roundTrip(object)).toStrictEqual(object);
    });

    it('preserves unicode in keys and values when they hold multi-byte and escaped characters', () => {
      const text = 'Zoë 🚀 日本語 \u2028 \u0000 "q" \\ \n \ud800';
      const object = walObject([
        [{ key: `k-${text}`, row: { [text]: text, nested: [text, { text }] } }],
      ]);
      expect(roundTrip(object)).toStrictEqual(object);
    });

    it('preserves empty-object rows and empty-string keys', () => {
      const object = walObject([[{ row: {} }, { key: '', row: {} }]]);
      expect(roundTrip(object)).toStrictEqual(object);
    });

    it('round-trips 10k rows across many batches with the stream reader agreeing', async () => {
      const batches: BatchSpec[] = [];
      for (let b = 0; b < 250; b++) {
        if (b % 50 === 49) batches.push('void');
        else {
          batches.push(
            Array.from({ length: 41 }, (_, i) =>
              i % 10 === 9
                ? { key: `user-${i}`, delete: true as const }
                : { key: `user-${i}`, row: { b, i, s: 'x'.repeat(i) } },
            ),
          );
        }
      }
      const object = walObject(batches, { firstSeq: 1, firstRowOffset: 0 });
      expect(object.rows.length).toBeGreaterThanOrEqual(10_000);
      const bytes = encodeWal(object);
      // JSON text equality: a deep toStrictEqual of 10k rows takes seconds; the shape
      // (no undefined fields, exact keys) is asserted strictly by the smaller cases.
      const expected = JSON.stringify(object);
      expect(JSON.stringify(decodeWal(KEY, bytes))).toBe(expected);
      expect(JSON.stringify(await readWalObject(KEY, bytes, 4096))).toBe(expected);
    });
  });

  describe('determinism', () => {
    it('writes the same text when given equal objects built separately', () => {
      const build = () => walObject([[{ key: 'a', row: { z: 1, a: 2 } }], 'void']);
      expect(gunzipText(encodeWal(build()))).toBe(gunzipText(encodeWal(build())));
    });

    it('writes header fields in the documented order whatever order the input has', () => {
      const { header, rows } = walObject([[{ row: {} }]]);
      const shuffled = Object.fromEntries(Object.entries(header).reverse()) as typeof header;
      const row = { text: '{}', offset: rows[0]!.offset, seq: rows[0]!.seq };
      expect(gunzipText(encodeWal({ header: shuffled, rows: [row] }))).toBe(
        gunzipText(encodeWal({ header, rows })),
      );
    });
  });
});
