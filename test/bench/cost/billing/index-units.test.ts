import { describe, expect, it } from 'vitest';
import {
  canonical,
  type IndexSchema,
  indexEntry,
  indexEntryStorageBytes,
  indexWriteUnits,
  ProjectionType,
} from '../../../../bench/cost/billing/index-units.js';
import { itemSize } from '../../../../bench/cost/billing/item-size.js';

const TABLE_KEYS = ['pk', 'sk'];
const pending: IndexSchema = {
  name: 'pending',
  keyNames: ['pendingPk', 'pendingShard'],
  projection: ProjectionType.keysOnly,
  nonKeyAttributes: [],
};
const record = {
  pk: { S: 'shard#s1' },
  sk: { S: 'meta' },
  nextSeq: { N: '2' },
  note: { S: 'x'.repeat(2000) },
};
const marked = { ...record, pendingPk: { S: 'pending' }, pendingShard: { S: 's1' } };

describe('index-units', () => {
  describe('indexEntry', () => {
    it('keeps only table and index keys when the projection is KEYS_ONLY', () => {
      expect(indexEntry(marked, pending, TABLE_KEYS)).toEqual({
        pk: { S: 'shard#s1' },
        sk: { S: 'meta' },
        pendingPk: { S: 'pending' },
        pendingShard: { S: 's1' },
      });
    });

    it('leaves the item out of a sparse index when an index key is missing', () => {
      expect(indexEntry(record, pending, TABLE_KEYS)).toBeUndefined();
      const half = { ...record, pendingPk: { S: 'pending' } };
      expect(indexEntry(half, pending, TABLE_KEYS)).toBeUndefined();
    });

    it('adds the named non-key attributes when the projection is INCLUDE', () => {
      const include = {
        ...pending,
        projection: ProjectionType.include,
        nonKeyAttributes: ['nextSeq'],
      };
      expect(indexEntry(marked, include, TABLE_KEYS)?.nextSeq).toEqual({ N: '2' });
      expect(indexEntry(marked, include, TABLE_KEYS)?.note).toBeUndefined();
    });

    it('copies the whole item when the projection is ALL', () => {
      const all = { ...pending, projection: ProjectionType.all };
      expect(indexEntry(marked, all, TABLE_KEYS)).toEqual(marked);
    });
  });

  describe('indexWriteUnits', () => {
    it('costs one put of the entry size when a write defines the index key', () => {
      const entrySize = itemSize(indexEntry(marked, pending, TABLE_KEYS)!);
      expect(entrySize).toBe(10 + 6 + 16 + 14);
      expect(indexWriteUnits(record, marked, pending, TABLE_KEYS)).toEqual({
        units: 1,
        puts: 1,
        deletes: 0,
      });
    });

    it('costs one delete when a write removes the index key', () => {
      expect(indexWriteUnits(marked, record, pending, TABLE_KEYS)).toEqual({
        units: 1,
        puts: 0,
        deletes: 1,
      });
    });

    it('costs a delete and a put when an indexed key changes value', () => {
      const moved = { ...marked, pendingShard: { S: 's2' } };
      expect(indexWriteUnits(marked, moved, pending, TABLE_KEYS)).toEqual({
        units: 2,
        puts: 1,
        deletes: 1,
      });
    });

    it('costs nothing when the write leaves the entry unchanged', () => {
      const grown = { ...marked, nextSeq: { N: '3' }, note: { S: 'y'.repeat(3000) } };
      expect(indexWriteUnits(marked, grown, pending, TABLE_KEYS).units).toBe(0);
    });

    it('costs nothing when the item is in the index neither before nor after', () => {
      expect(indexWriteUnits(undefined, record, pending, TABLE_KEYS).units).toBe(0);
      expect(indexWriteUnits(record, undefined, pending, TABLE_KEYS).units).toBe(0);
    });

    it('costs one write of the larger entry when only a projected attribute changes', () => {
      const all = { ...pending, projection: ProjectionType.all };
      const grown = { ...marked, note: { S: 'y'.repeat(3000) } };
      // the grown entry is 3,059 bytes: 3 units
      expect(indexWriteUnits(marked, grown, all, TABLE_KEYS)).toEqual({
        units: 3,
        puts: 1,
        deletes: 0,
      });
    });

    it('prices a write by the entry size without the 100-byte storage overhead', () => {
      const all = { ...pending, projection: ProjectionType.all };
      const entry = { ...marked, note: { S: 'x'.repeat(1897) } };
      // 1,956 bytes is 2 units; with the storage overhead (2,056 bytes) it would be 3
      expect(itemSize(entry)).toBe(1956);
      expect(indexWriteUnits(undefined, entry, all, TABLE_KEYS).units).toBe(2);
    });

    it('rounds a large entry by 1 KB like a table write', () => {
      const all = { ...pending, projection: ProjectionType.all };
      expect(indexWriteUnits(undefined, marked, all, TABLE_KEYS).units).toBe(
        Math.ceil(itemSize(marked) / 1024),
      );
    });
  });

  describe('indexEntryStorageBytes', () => {
    it('adds the 100-byte per-entry overhead to the entry size', () => {
      const entry = indexEntry(marked, pending, TABLE_KEYS)!;
      expect(indexEntryStorageBytes(entry)).toBe(46 + 100);
    });
  });

  describe('canonical', () => {
    it('renders equal items equally whatever the attribute and set order', () => {
      const a = { x: { SS: ['b', 'a'] }, y: { B: Buffer.from('hi') } };
      const b = { y: { B: new Uint8Array(Buffer.from('hi')) }, x: { SS: ['a', 'b'] } };
      expect(canonical(a)).toBe(canonical(b));
      expect(canonical(a)).not.toBe(canonical({ ...a, x: { SS: ['a', 'c'] } }));
    });
  });
});
