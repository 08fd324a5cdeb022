/**
 * Segment lines are written to the store byte for byte as `segmentLine`
 * spells them, multi-byte rows included, however the lines fall against the
 * writer's batches (it writes a line without measuring it first when the
 * worst case fits): read back, they match the writer's record.
 */
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../lib/seeded-random.js';
import { segmentKey } from '../../lib/segment/format.js';
import { segmentLine } from '../../lib/segment/lines.js';
import { readSegment } from '../../lib/segment/reader.js';
import { SegmentWriter } from '../../lib/segment/writer.js';
import { MemoryObjectStore } from '../../lib/store/memory-store.js';

describe(SegmentWriter, () => {
  describe('row', () => {
    it('stores exactly the lines segmentLine spells across many batches, multi-byte rows included', async () => {
      const random = seededRandom(7);
      const pieces = ['a', 'é', '日本語', '🚀', '\\"', 'x'.repeat(300), '\u2028'];
      const rows: Array<{ seq: number; offset: number; text: string }> = [];
      for (let offset = 0; offset < 6000; offset++) {
        let value = '';
        const parts = 1 + Math.floor(random() * 40);
        for (let i = 0; i < parts; i++) value += pieces[Math.floor(random() * pieces.length)];
        rows.push({ seq: 1 + Math.floor(offset / 50), offset, text: JSON.stringify({ value }) });
      }
      // One line larger than a whole batch as well.
      rows.push({ seq: 200, offset: 6000, text: JSON.stringify({ big: '🚀'.repeat(100_000) }) });
      const store = new MemoryObjectStore();
      const writer = new SegmentWriter(store, 's1', 0, 1);
      for (const row of rows) await writer.row(row.seq, row.offset, row.text);
      const { result, ref } = await writer.finish(1, 0);
      expect(result).toBe('created');
      const expected = rows.map((r) => `${segmentLine(r.seq, r.offset, r.text)}\n`).join('');
      const stored = gunzipSync((await store.get(segmentKey('s1', 0)))!);
      expect(stored.toString('utf8')).toBe(expected);
      expect(ref.rawBytes).toBe(Buffer.byteLength(expected));
      const read: string[] = [];
      await readSegment(store, 's1', ref, (row) => void read.push(row.text));
      expect(read).toEqual(rows.map((r) => r.text));
    });
  });
});
