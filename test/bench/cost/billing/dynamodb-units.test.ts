// The worked examples below are the Developer Guide's own ("Managing settings on
// DynamoDB provisioned capacity tables", "DynamoDB read and write operations",
// "Using Global Secondary Indexes") and the on-demand pricing page's.
import { describe, expect, it } from 'vitest';
import {
  batchGetItemReadUnits,
  batchWriteItemUnits,
  deleteItemWriteUnits,
  failedConditionalWriteUnits,
  getItemReadUnits,
  putItemWriteUnits,
  queryReadUnits,
  ReadConsistency,
  readUnits,
  updateItemWriteUnits,
  WriteKind,
  writeUnits,
} from '../../../../bench/cost/billing/dynamodb-units.js';
import { InvalidInputError } from '../../../../lib/errors.js';

const KB = 1024;

describe('dynamodb-units', () => {
  describe('writeUnits', () => {
    it('rounds a 500-byte write up to one unit (docs example)', () => {
      expect(writeUnits(500)).toBe(1);
    });

    it('charges a 512-byte item one unit (docs: 512 bytes / 1 KB = 0.5, or 1)', () => {
      expect(writeUnits(512)).toBe(1);
    });

    it('charges exactly 1 KB one unit and one byte more two', () => {
      expect(writeUnits(1024)).toBe(1);
      expect(writeUnits(1025)).toBe(2);
    });

    it('charges 3 KB three units, six when transactional (pricing page example)', () => {
      expect(writeUnits(3 * KB)).toBe(3);
      expect(writeUnits(3 * KB, WriteKind.transactional)).toBe(6);
    });

    it('throws InvalidInputError when the size is negative', () => {
      expect(() => writeUnits(-1)).toThrow(InvalidInputError);
    });
  });

  describe('putItemWriteUnits', () => {
    it('rounds a 1.6 KB put up to 2 KB (docs example)', () => {
      expect(putItemWriteUnits(1.6 * KB)).toBe(2);
    });

    it('charges the larger of the old and new item when the put replaces one', () => {
      expect(putItemWriteUnits(500, 2.5 * KB)).toBe(3);
      expect(putItemWriteUnits(2.5 * KB, 500)).toBe(3);
    });
  });

  describe('updateItemWriteUnits', () => {
    it('charges the larger of before and after, whatever changed', () => {
      expect(updateItemWriteUnits(1100, 900)).toBe(2);
      expect(updateItemWriteUnits(900, 1100)).toBe(2);
      expect(updateItemWriteUnits(900, 900)).toBe(1);
    });

    it('charges the after size when the update creates the item', () => {
      expect(updateItemWriteUnits(2100)).toBe(3);
    });
  });

  describe('deleteItemWriteUnits', () => {
    it('rounds a 1.6 KB delete up to 2 KB (docs example)', () => {
      expect(deleteItemWriteUnits(1.6 * KB)).toBe(2);
    });

    it('charges the one-unit minimum when nothing was there', () => {
      expect(deleteItemWriteUnits(undefined)).toBe(1);
    });
  });

  describe('failedConditionalWriteUnits', () => {
    it('charges one unit for a 1 KB item and two for twice that (docs example)', () => {
      expect(failedConditionalWriteUnits(KB)).toBe(1);
      expect(failedConditionalWriteUnits(2 * KB)).toBe(2);
    });

    it('charges one unit when the item does not exist, whatever the new item size', () => {
      expect(failedConditionalWriteUnits(undefined, 10 * KB)).toBe(1);
    });

    it('charges the larger of existing and new item when the item exists', () => {
      expect(failedConditionalWriteUnits(300, 3 * KB)).toBe(3);
      expect(failedConditionalWriteUnits(5 * KB, 300)).toBe(5);
    });
  });

  describe('batchWriteItemUnits', () => {
    it('rounds each item before summing: 500 B + 3.5 KB is 5 units (docs example)', () => {
      expect(batchWriteItemUnits([500, 3.5 * KB])).toBe(5);
    });
  });

  describe('readUnits', () => {
    it('rounds a 3,500-byte read up to 4 KB (docs example)', () => {
      expect(readUnits(3500)).toBe(1);
    });

    it('charges an 8 KB item 2 strong, 1 eventual, 4 transactional (docs example)', () => {
      expect(readUnits(8 * KB, ReadConsistency.strong)).toBe(2);
      expect(readUnits(8 * KB, ReadConsistency.eventual)).toBe(1);
      expect(readUnits(8 * KB, ReadConsistency.transactional)).toBe(4);
    });

    it('charges an eventually consistent 80 KB read 10 units (docs example)', () => {
      expect(readUnits(80 * KB, ReadConsistency.eventual)).toBe(10);
    });
  });

  describe('getItemReadUnits', () => {
    it('rounds 3.5 KB to 4 KB and 10 KB to 12 KB (docs example)', () => {
      expect(getItemReadUnits(3.5 * KB, ReadConsistency.strong)).toBe(1);
      expect(getItemReadUnits(10 * KB, ReadConsistency.strong)).toBe(3);
    });

    it('halves the units of an eventually consistent read (the default)', () => {
      expect(getItemReadUnits(10 * KB, ReadConsistency.eventual)).toBe(1.5);
    });

    it('still charges 1, or 0.5 eventual, when the item does not exist (docs)', () => {
      expect(getItemReadUnits(undefined, ReadConsistency.strong)).toBe(1);
      expect(getItemReadUnits(undefined, ReadConsistency.eventual)).toBe(0.5);
    });
  });

  describe('batchGetItemReadUnits', () => {
    it('charges 1.5 KB + 6.5 KB as 12 KB, not 8 KB (docs example)', () => {
      expect(batchGetItemReadUnits([1.5 * KB, 6.5 * KB], ReadConsistency.strong)).toBe(3);
    });
  });

  describe('queryReadUnits', () => {
    it('rounds the sum, not each item: 10 items of 40.8 KB total is 44 KB (docs example)', () => {
      const sizes = Array.from({ length: 10 }, () => (40.8 * KB) / 10);
      expect(queryReadUnits(sizes, ReadConsistency.strong)).toBe(11);
    });

    it('charges 1500 items of 64 bytes as 96 KB (docs example)', () => {
      const sizes = Array.from({ length: 1500 }, () => 64);
      expect(queryReadUnits(sizes, ReadConsistency.strong)).toBe(24);
    });

    it('charges a GSI query of 8 entries of 2,000 bytes 2 units (GSI docs example)', () => {
      const sizes = Array.from({ length: 8 }, () => 2000);
      expect(queryReadUnits(sizes, ReadConsistency.eventual)).toBe(2);
    });

    it('charges 3 strongly consistent items of 1.5 KB 2 units', () => {
      expect(queryReadUnits([1536, 1536, 1536], ReadConsistency.strong)).toBe(2);
    });

    it('charges the minimum when the page found nothing', () => {
      expect(queryReadUnits([], ReadConsistency.strong)).toBe(1);
      expect(queryReadUnits([], ReadConsistency.eventual)).toBe(0.5);
    });
  });
});
