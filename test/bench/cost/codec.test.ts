import { describe, expect, it } from 'vitest';
import {
  BATCH_ITEM_OVERHEAD_BYTES,
  batchItemWriteUnits,
  codecs,
  DICTIONARY_BYTES,
  putPayloads,
  trainDictionary,
  weigh,
} from '../../../bench/cost/codec.js';
import { RowVariant } from '../../../bench/cost/rows.js';

describe('cost bench codec', () => {
  describe('batchItemWriteUnits', () => {
    it('rounds the payload plus the item attributes up to 1 KB units', () => {
      expect(batchItemWriteUnits(0)).toBe(1);
      expect(batchItemWriteUnits(1024 - BATCH_ITEM_OVERHEAD_BYTES)).toBe(1);
      expect(batchItemWriteUnits(1025 - BATCH_ITEM_OVERHEAD_BYTES)).toBe(2);
      expect(batchItemWriteUnits(19_000)).toBe(
        Math.ceil((19_000 + BATCH_ITEM_OVERHEAD_BYTES) / 1024),
      );
    });
  });

  describe('trainDictionary', () => {
    it('keeps at most the 32 KB zlib window, the same for the same seed', () => {
      const a = trainDictionary(RowVariant.event, 1);
      expect(a.length).toBeLessThanOrEqual(DICTIONARY_BYTES);
      expect(a.length).toBeGreaterThan(DICTIONARY_BYTES / 2);
      expect(trainDictionary(RowVariant.event, 1).equals(a)).toBe(true);
    });
  });

  describe('weigh', () => {
    it('weighs every codec against gzip 6 on round-tripped puts', () => {
      const puts = putPayloads(RowVariant.event, 3, 4, 20);
      const fast = codecs(trainDictionary(RowVariant.event, 9)).filter(
        (c) => !c.name.startsWith('brotli 1') && !c.name.startsWith('brotli 9'),
      );
      const results = weigh(fast, puts, 1);
      const gzip6 = results.find((r) => r.codec === 'gzip 6')!;
      expect(gzip6.vsGzip6).toBe(0);
      expect(gzip6.ratio).toBeGreaterThan(3);
      const dict = results.find((r) => r.codec === 'deflate 6 + dictionary')!;
      expect(dict.meanBytes).toBeLessThan(gzip6.meanBytes);
      for (const r of results) expect(r.compressUs).toBeGreaterThan(0);
    });
  });
});
