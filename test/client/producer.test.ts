import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  ProducerBatchError,
  ProducerClosedError,
  ProducerStoppedError,
  RowRejectedError,
  UnavailableApiError,
} from '../../lib/client/errors.js';
import { ShardwalHttpClient } from '../../lib/client/http-client.js';
import { createHttpProducer } from '../../lib/client/http-producer.js';
import {
  BatchingProducer,
  type BatchOutcome,
  type ProducerOptions,
  type SealedBatch,
} from '../../lib/client/producer.js';
import { ackStep, fakeFetch } from './fake-fetch.js';

/** A sender whose sends stay pending until the test settles them. */
function heldSender() {
  const sends: Array<{
    batch: SealedBatch;
    resolve: (ack: string) => void;
    reject: (error: unknown) => void;
  }> = [];
  const send = (batch: SealedBatch) =>
    new Promise<string>((resolve, reject) => sends.push({ batch, resolve, reject }));
  return { send, sends };
}

function producer(
  send: (batch: SealedBatch) => Promise<string>,
  options: Partial<ProducerOptions<string>> = {},
) {
  return new BatchingProducer<string>(
    send,
    {
      maxBatchRows: 2,
      maxBatchBytes: 10_000,
      lingerMs: undefined,
      maxInFlight: 4,
      keyPrefix: 'p',
      ...options,
    },
    { overheadBytes: 11 },
  );
}

const settledSoon = async <T>(promise: Promise<T>): Promise<boolean> => {
  let settled = false;
  promise.then(
    () => {
      settled = true;
    },
    () => {
      settled = true;
    },
  );
  for (let i = 0; i < 10; i++) await Promise.resolve();
  return settled;
};

afterEach(() => {
  vi.useRealTimers();
});

describe('BatchingProducer', () => {
  describe('append', () => {
    it('sends a batch when full, keyed <prefix>-<index>, with its first row', async () => {
      const held = heldSender();
      const p = producer(held.send);
      for (const id of [1, 2, 3, 4, 5]) await p.append({ id });
      expect(held.sends.map((s) => s.batch)).toEqual([
        { index: 0, key: 'p-0', firstRow: 0, rowTexts: ['{"id":1}', '{"id":2}'] },
        { index: 1, key: 'p-1', firstRow: 2, rowTexts: ['{"id":3}', '{"id":4}'] },
      ]);
    });

    it('waits while maxInFlight batches are in flight (backpressure)', async () => {
      const held = heldSender();
      const p = producer(held.send, { maxInFlight: 2, maxBatchRows: 1 });
      await p.append({ id: 1 });
      await p.append({ id: 2 });
      const third = p.append({ id: 3 });
      expect(await settledSoon(third)).toBe(false);
      expect(held.sends).toHaveLength(2);
      expect(p.stats().inFlight).toBe(2);
      held.sends[0]!.resolve('ack-0');
      await third;
      expect(held.sends).toHaveLength(3);
    });

    it('sends one batch at a time, in order, with maxInFlight 1', async () => {
      const log: string[] = [];
      const p = producer(
        async (batch) => {
          log.push(`start ${batch.index}`);
          await new Promise((resolve) => setImmediate(resolve));
          log.push(`end ${batch.index}`);
          return 'ok';
        },
        { maxInFlight: 1, maxBatchRows: 1 },
      );
      for (const id of [1, 2, 3]) await p.append({ id });
      await p.flush();
      expect(log).toEqual(['start 0', 'end 0', 'start 1', 'end 1', 'start 2', 'end 2']);
    });

    it('rejects a row that is not an object, and goes on with the next', async () => {
      const held = heldSender();
      const p = producer(held.send);
      await expect(p.append([1] as unknown as object)).rejects.toBeInstanceOf(RowRejectedError);
      await p.append({ id: 1 });
      await p.append({ id: 2 });
      expect(held.sends).toHaveLength(1);
      expect(p.stats().appendedRows).toBe(2);
    });

    it('sends a partial batch lingerMs after it opened', async () => {
      vi.useFakeTimers();
      const held = heldSender();
      const p = producer(held.send, { lingerMs: 50, maxBatchRows: 10 });
      await p.append({ id: 1 });
      await vi.advanceTimersByTimeAsync(49);
      expect(held.sends).toHaveLength(0);
      await vi.advanceTimersByTimeAsync(1);
      expect(held.sends.map((s) => s.batch.rowTexts)).toEqual([['{"id":1}']]);
    });

    it('sends nothing before flush without lingering', async () => {
      vi.useFakeTimers();
      const held = heldSender();
      const p = producer(held.send, { lingerMs: undefined, maxBatchRows: 10 });
      await p.append({ id: 1 });
      await vi.advanceTimersByTimeAsync(60_000);
      expect(held.sends).toHaveLength(0);
    });
  });

  describe('flush', () => {
    it('sends the open batch and waits for every batch so far', async () => {
      const held = heldSender();
      const p = producer(held.send);
      for (const id of [1, 2, 3]) await p.append({ id });
      const flushed = p.flush();
      await Promise.resolve();
      await Promise.resolve();
      expect(held.sends).toHaveLength(2);
      expect(await settledSoon(flushed)).toBe(false);
      held.sends[0]!.resolve('a');
      expect(await settledSoon(flushed)).toBe(false);
      held.sends[1]!.resolve('b');
      await flushed;
      expect(p.stats()).toMatchObject({ ackedBatches: 2, ackedRows: 3, inFlight: 0 });
    });

    it('throws the batches that failed since the last flush, then starts clean', async () => {
      const outcomes: BatchOutcome<string>[] = [];
      const p = producer(
        async (batch) => {
          if (batch.index === 1) throw new UnavailableApiError('down', { origin: 'service' });
          return `ack-${batch.index}`;
        },
        { onBatch: (outcome) => outcomes.push(outcome) },
      );
      for (const id of [1, 2, 3, 4, 5]) await p.append({ id });
      const error = await p.flush().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(ProducerBatchError);
      expect((error as ProducerBatchError).failures).toEqual([
        { index: 1, key: 'p-1', rows: 2, error: expect.any(UnavailableApiError) },
      ]);
      expect((error as ProducerBatchError).kind).toBe('unavailable');
      expect(outcomes.map((o) => o.error?.kind ?? o.ack)).toEqual([
        'ack-0',
        'unavailable',
        'ack-2',
      ]);
      expect(p.stats()).toMatchObject({ failedBatches: 1, failedRows: 2, ackedRows: 3 });
      await expect(p.flush()).resolves.toBeUndefined();
    });

    it('sends nothing after a failed batch with stopOnFailure', async () => {
      const held = heldSender();
      const p = producer(held.send, { maxInFlight: 2, maxBatchRows: 2, stopOnFailure: true });
      for (const id of [1, 2, 3, 4, 5]) await p.append({ id });
      expect(held.sends.map((s) => s.batch.index)).toEqual([0, 1]);
      held.sends[1]!.reject(new UnavailableApiError('down', { origin: 'service' }));
      held.sends[0]!.resolve('ok');
      const stopped = await p.append({ id: 6 }).catch((e: unknown) => e);
      expect(stopped).toBeInstanceOf(ProducerStoppedError);
      expect((stopped as ProducerStoppedError).failure).toMatchObject({ index: 1, key: 'p-1' });
      await expect(p.close()).rejects.toBeInstanceOf(ProducerBatchError);
      // Row 5 waited in the open batch: never sent.
      expect(held.sends).toHaveLength(2);
      expect(p.stats()).toMatchObject({ ackedRows: 2, failedRows: 2, unsentRows: 1 });
    });

    it('throws what onBatch threw', async () => {
      const p = producer(async () => 'ok', {
        onBatch: () => {
          throw new Error('listener bug');
        },
      });
      await p.append({ id: 1 });
      await expect(p.flush()).rejects.toThrow('listener bug');
    });
  });

  describe('cut', () => {
    it('ends the open batch where it is called, keyed by keyOf, without waiting for it', async () => {
      const { send, sends } = heldSender();
      const p = producer(send, {
        maxBatchRows: 10,
        keyOf: (batch) => `k-${batch.firstRow}-${batch.rowTexts.length}`,
      });
      await p.append({ a: 1 });
      await p.cut();
      await p.cut(); // nothing open: no empty batch
      await p.append({ b: 2 });
      await p.append({ c: 3 });
      await p.cut();
      expect(sends.map((s) => [s.batch.key, s.batch.rowTexts])).toEqual([
        ['k-0-1', ['{"a":1}']],
        ['k-1-2', ['{"b":2}', '{"c":3}']],
      ]);
      for (const s of sends) s.resolve('ok');
      await p.close();
    });
  });

  describe('close', () => {
    it('flushes, then refuses appends', async () => {
      const sent: SealedBatch[] = [];
      const p = producer(async (batch) => {
        sent.push(batch);
        return 'ok';
      });
      await p.append({ id: 1 });
      await p.close();
      expect(sent).toHaveLength(1);
      await expect(p.append({ id: 2 })).rejects.toBeInstanceOf(ProducerClosedError);
      await p.close();
    });
  });
});

describe('createHttpProducer', () => {
  it('puts each batch under its key with the key field, one at a time for keyed rows', async () => {
    const fake = fakeFetch([], ackStep(1));
    const client = new ShardwalHttpClient({ endpoint: 'http://api.test', fetch: fake.fetch });
    const p = createHttpProducer(client, 'users', {
      keyField: 'id',
      keyPrefix: 'imp',
      maxBatchRows: 2,
      lingerMs: null,
    });
    for (const id of ['a', 'b', 'c']) await p.append({ id });
    await p.close();
    expect(fake.requests.map((r) => [r.headers['idempotency-key'], r.text])).toEqual([
      ['imp-0', '{"rows":[{"id":"a"},{"id":"b"}],"key":"id"}'],
      ['imp-1', '{"rows":[{"id":"c"}],"key":"id"}'],
    ]);
    expect(p.stats()).toMatchObject({ ackedRows: 3, sentBatches: 2 });
  });
});
