/**
 * `pushToPull`, the bridge the reader streams large segments through: order
 * kept, the producer held at the high-water mark, stopped when the consumer
 * stops, and its error delivered after what it emitted before.
 */
import { describe, expect, it } from 'vitest';
import { pushToPull } from '../../lib/client/reader/push-to-pull.js';

describe('pushToPull', () => {
  it('yields every item in order, in batches no larger than the high-water mark', async () => {
    const batches: number[][] = [];
    for await (const batch of pushToPull<number>(async (emit) => {
      for (let i = 0; i < 50; i++) await emit(i);
    }, 8)) {
      batches.push(batch);
    }
    expect(batches.flat()).toEqual(Array.from({ length: 50 }, (_, i) => i));
    expect(Math.max(...batches.map((b) => b.length))).toBeLessThanOrEqual(8);
    expect(batches.every((b) => b.length > 0)).toBe(true);
  });

  it('holds the producer at the high-water mark until the consumer pulls', async () => {
    let emitted = 0;
    const batches = pushToPull<number>(async (emit) => {
      for (let i = 0; i < 100; i++) {
        await emit(i);
        emitted++;
      }
    }, 4);
    const first = (await batches.next()).value as number[];
    for (let i = 0; i < 10; i++) await new Promise((resolve) => setImmediate(resolve));
    // Behind the batch handed over, the producer filled the queue to 4 and waits there.
    expect(emitted).toBe(first.length + 3);
    expect((await batches.next()).value).toEqual([1, 2, 3, 4].map((i) => i + first.length - 1));
    await batches.return();
  });

  it('stops the producer when the consumer stops, and waits for it to end', async () => {
    let producerEnded: unknown;
    const batches = pushToPull<number>(async (emit) => {
      try {
        for (let i = 0; ; i++) await emit(i);
      } catch (error) {
        producerEnded = error;
        throw error;
      }
    }, 2);
    for await (const batch of batches) {
      expect(batch[0]).toBe(0);
      break;
    }
    expect(producerEnded).toBeDefined();
  });

  it('delivers what was emitted, then the producer’s error', async () => {
    const seen: number[] = [];
    const failure = new Error('stream broke');
    const run = (async () => {
      for await (const batch of pushToPull<number>(async (emit) => {
        await emit(1);
        await emit(2);
        throw failure;
      })) {
        seen.push(...batch);
      }
    })();
    await expect(run).rejects.toBe(failure);
    expect(seen).toEqual([1, 2]);
  });
});
