import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { walKey } from '../../lib/paths.js';
import { decodeWal } from '../../lib/wal/decode.js';
import { encodeWal } from '../../lib/wal/encode.js';
import { GOLDEN_V1, GOLDEN_V2 } from './golden-objects.js';
import { gunzipText } from './helpers.js';

const fixture = (name: string) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url));

describe('WAL format golden objects', () => {
  describe(encodeWal, () => {
    it('writes exactly the checked-in v2 text when given the v2 golden object', () => {
      expect(gunzipText(encodeWal(GOLDEN_V2))).toBe(fixture('golden-v2.jsonl').toString('utf8'));
    });
  });

  describe(decodeWal, () => {
    // The .gz files were written once and are never regenerated: they stand for
    // objects already in S3, which every future reader must still read.
    it('reads the committed v2 gzip object back to the v2 golden object', () => {
      expect(decodeWal(walKey('orders-eu', 43), fixture('golden-v2.jsonl.gz'))).toStrictEqual(
        GOLDEN_V2,
      );
    });

    it('reads the committed v1 gzip object, keys as string keys, rows as v1 wrote them', () => {
      expect(decodeWal(walKey('orders-eu', 42), fixture('golden-v1.jsonl.gz'))).toStrictEqual(
        GOLDEN_V1,
      );
    });

    it('finds the committed gzip objects and the committed texts in agreement', () => {
      for (const version of ['v1', 'v2']) {
        expect(gunzipText(fixture(`golden-${version}.jsonl.gz`))).toBe(
          fixture(`golden-${version}.jsonl`).toString('utf8'),
        );
      }
    });
  });
});
