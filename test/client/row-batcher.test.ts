import { describe, expect, it } from 'vitest';
import { RowRejectedError } from '../../lib/client/errors.js';
import { frameOverheadBytes, frameRows } from '../../lib/client/put-body.js';
import { RowBatcher } from '../../lib/client/row-batcher.js';
import { ConfigError, ErrorKind } from '../../lib/errors.js';
import { seededRandom } from '../../lib/seeded-random.js';

/** Rows of seeded random sizes, some with multi-byte characters. */
function randomRows(count: number, seed: number): string[] {
  const random = seededRandom(seed);
  return Array.from({ length: count }, (_, i) =>
    JSON.stringify({
      i,
      s: 'é'.repeat(Math.floor(random() * 40)),
      t: 'x'.repeat(Math.floor(random() * 300)),
    }),
  );
}

function cut(rows: string[], batcher: RowBatcher): string[][] {
  const batches = rows.flatMap((row) => batcher.add(row));
  const last = batcher.take();
  return last ? [...batches, last] : batches;
}

describe('RowBatcher', () => {
  describe('add', () => {
    it('closes a batch at maxRows', () => {
      const batcher = new RowBatcher({ maxRows: 3, maxBytes: 10_000, overheadBytes: 11 });
      const batches = cut(['{"a":1}', '{"a":2}', '{"a":3}', '{"a":4}'], batcher);
      expect(batches.map((b) => b.length)).toEqual([3, 1]);
    });

    it('keeps every body within maxBytes, counted exactly as the body is built', () => {
      const frame = { keyField: 'id' };
      const overheadBytes = frameOverheadBytes(frame);
      const maxBytes = 4_000;
      const rows = randomRows(500, 3);
      const batches = cut(rows, new RowBatcher({ maxRows: 1_000, maxBytes, overheadBytes }));
      expect(batches.flat()).toEqual(rows);
      for (const [i, batch] of batches.entries()) {
        const bytes = Buffer.byteLength(frameRows(frame, batch));
        expect(bytes).toBeLessThanOrEqual(maxBytes);
        // Greedy: the next batch's first row did not fit beside this batch.
        const next = batches[i + 1]?.[0];
        if (next) expect(bytes + 1 + Buffer.byteLength(next)).toBeGreaterThan(maxBytes);
      }
    });

    it('reports the open batch’s exact body size', () => {
      const frame = { shard: 'orders' };
      const batcher = new RowBatcher({
        maxRows: 100,
        maxBytes: 1_000,
        overheadBytes: frameOverheadBytes(frame),
      });
      batcher.add('{"n":"ü"}');
      batcher.add('{"n":2}');
      expect(batcher.bytes).toBe(Buffer.byteLength(frameRows(frame, ['{"n":"ü"}', '{"n":2}'])));
      expect(batcher.rowCount).toBe(2);
    });

    it('cuts the same rows the same way every time', () => {
      const rows = randomRows(300, 9);
      const limits = { maxRows: 37, maxBytes: 3_000, overheadBytes: 11 };
      expect(cut(rows, new RowBatcher(limits))).toEqual(cut(rows, new RowBatcher(limits)));
    });

    it('refuses a row that cannot fit any batch, leaving the open batch as it was', () => {
      const batcher = new RowBatcher({ maxRows: 10, maxBytes: 30, overheadBytes: 11 });
      batcher.add('{"a":1}');
      let error: unknown;
      try {
        batcher.add(JSON.stringify({ big: 'x'.repeat(30) }));
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(RowRejectedError);
      expect((error as RowRejectedError).kind).toBe(ErrorKind.tooLarge);
      expect(batcher.take()).toEqual(['{"a":1}']);
    });

    it('closes both batches when a row does not fit and fills a one-row batch', () => {
      const batcher = new RowBatcher({ maxRows: 1, maxBytes: 100, overheadBytes: 11 });
      expect(batcher.add('{"a":1}')).toEqual([['{"a":1}']]);
      expect(batcher.take()).toBeUndefined();
    });
  });

  it('refuses limits that cannot hold a row', () => {
    expect(() => new RowBatcher({ maxRows: 0, maxBytes: 100, overheadBytes: 11 })).toThrow(
      ConfigError,
    );
    expect(() => new RowBatcher({ maxRows: 5, maxBytes: 11, overheadBytes: 11 })).toThrow(
      /maxBatchBytes/,
    );
  });
});
