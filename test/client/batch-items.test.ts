/** BatchItems: the items of batches one at a time, with an async generator's contract. */
import { describe, expect, it } from 'vitest';
import { BatchItems } from '../../lib/client/reader/batch-items.js';

/** An async generator of `batches`, failing with `error` after them when given; records whether it was closed. */
function source(batches: number[][], error?: Error) {
  const log = { pulled: 0, closed: false };
  async function* run(): AsyncGenerator<number[], void, undefined> {
    try {
      for (const batch of batches) {
        log.pulled += 1;
        yield batch;
      }
      if (error) throw error;
    } finally {
      log.closed = true;
    }
  }
  return { batches: run(), log };
}

async function collect(items: AsyncIterable<number>): Promise<number[]> {
  const out: number[] = [];
  for await (const item of items) out.push(item);
  return out;
}

describe(BatchItems, () => {
  describe('next', () => {
    it('yields every item of every batch in order, then done', async () => {
      const { batches, log } = source([[1, 2], [], [3], [4, 5, 6]]);
      expect(await collect(new BatchItems(batches, () => false))).toEqual([1, 2, 3, 4, 5, 6]);
      expect(log.closed).toBe(true);
    });

    it('serves calls made before the earlier ones settle in order', async () => {
      const { batches } = source([[1], [2, 3], [4]]);
      const items = new BatchItems(batches, () => false);
      const results = await Promise.all([1, 2, 3, 4, 5].map(() => items.next()));
      expect(results).toEqual([
        { value: 1, done: false },
        { value: 2, done: false },
        { value: 3, done: false },
        { value: 4, done: false },
        { value: undefined, done: true },
      ]);
    });

    it('serves a call made while a return waits after the return, even with items at hand', async () => {
      const { batches } = source([[1, 2, 3]]);
      const items = new BatchItems(batches, () => false);
      expect(await items.next()).toEqual({ value: 1, done: false });
      const [returned, next] = await Promise.all([items.return(), items.next()]);
      expect(returned).toEqual({ value: undefined, done: true });
      expect(next).toEqual({ value: undefined, done: true });
    });

    it('ends and closes the batches when stop turns true before an item', async () => {
      const { batches, log } = source([[1, 2, 3], [4]]);
      let stop = false;
      const items = new BatchItems(batches, () => stop);
      expect(await items.next()).toEqual({ value: 1, done: false });
      stop = true;
      expect(await items.next()).toEqual({ value: undefined, done: true });
      expect(log.closed).toBe(true);
      expect(log.pulled).toBe(1);
    });

    it("rejects with the batches' error, then is done", async () => {
      const failure = new Error('damaged object');
      const { batches } = source([[1]], failure);
      const items = new BatchItems(batches, () => false);
      expect(await items.next()).toEqual({ value: 1, done: false });
      await expect(items.next()).rejects.toBe(failure);
      expect(await items.next()).toEqual({ value: undefined, done: true });
    });
  });

  describe('return', () => {
    it('closes the batches when the consumer leaves early (break)', async () => {
      const { batches, log } = source([[1, 2], [3]]);
      const items = new BatchItems(batches, () => false);
      for await (const item of items) if (item === 1) break;
      expect(log.closed).toBe(true);
      expect(await items.next()).toEqual({ value: undefined, done: true });
    });
  });

  describe('throw', () => {
    it('closes the batches and rejects with the error', async () => {
      const { batches, log } = source([[1, 2]]);
      const items = new BatchItems(batches, () => false);
      await items.next();
      const error = new Error('consumer failed');
      await expect(items.throw(error)).rejects.toBe(error);
      expect(log.closed).toBe(true);
    });
  });
});
