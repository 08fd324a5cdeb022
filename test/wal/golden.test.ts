import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { walKey } from '../../lib/paths.js';
import { decodeWal } from '../../lib/wal/decode.js';
import { encodeWal } from '../../lib/wal/encode.js';
import type { WalObject } from '../../lib/wal/format.js';
import { gunzipText } from './helpers.js';

const fixture = (name: string) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url));

/** The object behind fixtures/golden-v1.jsonl(.gz): keyed, keyless, empty row, delete, void, unicode. */
const GOLDEN: WalObject = {
  header: {
    shard: 'orders-eu',
    position: 42,
    epoch: 5,
    firstSeq: 1000,
    lastSeq: 1003,
    firstRowOffset: 5000,
    rowCount: 5,
    voidSeqs: [1002],
    createdAtMs: 1_712_345_678_901,
  },
  rows: [
    {
      seq: 1000,
      offset: 5000,
      key: 'user-1',
      row: {
        name: 'Zoë',
        city: 'Zürich',
        n: 1,
        tags: ['a', 'b'],
        nested: { ok: true, none: null },
      },
    },
    {
      seq: 1000,
      offset: 5001,
      row: { event: 'click', emoji: '🚀', cjk: '日本語', quote: 'say "hi"\nnext\tline' },
    },
    { seq: 1001, offset: 5002, key: 'user-2', row: {} },
    { seq: 1003, offset: 5003, key: 'user-1', delete: true },
    { seq: 1003, offset: 5004, row: { n: -1.5, max: 9_007_199_254_740_991, exp: 1e21 } },
  ],
};
const KEY = walKey('orders-eu', 42);

describe('WAL format v1 golden object', () => {
  describe(encodeWal, () => {
    it('writes exactly the checked-in text when given the golden object', () => {
      expect(gunzipText(encodeWal(GOLDEN))).toBe(fixture('golden-v1.jsonl').toString('utf8'));
    });
  });

  describe(decodeWal, () => {
    // The .gz was written once by encodeWal and is never regenerated: it stands for
    // objects already in S3, which every future reader must still read.
    it('reads the committed gzip object back to the golden object', () => {
      expect(decodeWal(KEY, fixture('golden-v1.jsonl.gz'))).toStrictEqual(GOLDEN);
    });

    it('finds the committed gzip object and the committed text in agreement', () => {
      expect(gunzipText(fixture('golden-v1.jsonl.gz'))).toBe(
        fixture('golden-v1.jsonl').toString('utf8'),
      );
    });
  });
});
