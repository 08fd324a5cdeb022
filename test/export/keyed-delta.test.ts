/**
 * KeyedDelta's held changes: what the compaction policy counts without
 * writing them (`heldRawBytes`) is exactly what the part would have taken,
 * and `takeHeld` hands them over in key order, deletes included.
 */
import { describe, expect, it } from 'vitest';
import { KeyedDelta } from '../../lib/export/keyed-delta.js';
import { seededRandom } from '../../lib/seeded-random.js';
import { MemoryObjectStore } from '../../lib/store/memory-store.js';
import type { WalRow } from '../../lib/wal/format.js';

/** Keyed rows with string and number keys, unicode, big numbers and deletes. */
function rows(count: number, seed: number): WalRow[] {
  const random = seededRandom(seed);
  return Array.from({ length: count }, (_, offset) => {
    const n = Math.floor(random() * 40);
    const key =
      n % 3 === 0 ? String(12345678901234567890n + BigInt(n)) : JSON.stringify(`k-é-${n}`);
    const seq = 1 + Math.floor(offset / 5);
    if (random() < 0.2) return { seq, offset, key, delete: true };
    return { seq, offset, key, text: `{"n":${n},"s":"🙂${'x'.repeat(n)}","big":1e400}` };
  });
}

function deltaOf(store: MemoryObjectStore): KeyedDelta {
  return new KeyedDelta(store, 's1', { from: 3, to: 9, gzipLevel: 6 });
}

describe('KeyedDelta', () => {
  describe('heldRawBytes', () => {
    it('equals the rawBytes of the part the held changes are written as', async () => {
      for (const seed of [1, 2, 3]) {
        const store = new MemoryObjectStore();
        const delta = deltaOf(store);
        for (const row of rows(300, seed)) delta.apply(3, row);
        const counted = delta.heldRawBytes();
        await delta.finish(false);
        expect(delta.parts).toHaveLength(1);
        expect(counted).toBe(delta.parts[0]!.rawBytes);
      }
    });
  });

  describe('takeHeld', () => {
    it('hands over the newest change of each key in key order, deletes included, and forgets them', () => {
      const delta = deltaOf(new MemoryObjectStore());
      delta.apply(3, { seq: 1, offset: 0, key: '"b"', text: '{"v":1}' });
      delta.apply(3, { seq: 1, offset: 1, key: '"a"', text: '{"v":2}' });
      delta.apply(3, { seq: 2, offset: 2, key: '"b"', delete: true });
      delta.apply(3, { seq: 2, offset: 3, key: '7', text: '{"v":3}' });
      expect(delta.takeHeld()).toEqual([
        { key: '7', seq: 2, offset: 3, text: '{"v":3}' },
        { key: '"a"', seq: 1, offset: 1, text: '{"v":2}' },
        { key: '"b"', seq: 2, offset: 2, delete: true },
      ]);
      expect(delta.heldRawBytes()).toBe(0);
      expect(delta.takeHeld()).toEqual([]);
    });
  });
});
