import { describe, expect, it } from 'vitest';
import { UnavailableError } from '../../lib/errors.js';
import { walKey } from '../../lib/paths.js';
import { FaultyObjectStore } from '../../lib/store/faulty-store.js';
import { InstrumentedObjectStore } from '../../lib/store/instrumented-store.js';
import { MemoryObjectStore } from '../../lib/store/memory-store.js';
import type { StoreOperation } from '../../lib/store/store-operation.js';
import { collect } from './contract.js';

describe('InstrumentedObjectStore', () => {
  describe('counts', () => {
    it('counts one request per call of each operation', async () => {
      const store = new InstrumentedObjectStore(new MemoryObjectStore());
      await store.putIfAbsent(walKey('a', 0), Uint8Array.of(1));
      await store.putIfAbsent(walKey('a', 0), Uint8Array.of(1));
      await store.get(walKey('a', 0));
      (await store.getStream(walKey('a', 0)))?.destroy();
      await collect(store.list('shards/a/'));
      await store.delete(walKey('a', 0));
      expect(store.counts()).toEqual({ putIfAbsent: 2, get: 1, getStream: 1, list: 1, delete: 1 });
    });

    it('counts requests that fail, since they are still sent and billed', async () => {
      const faulty = new FaultyObjectStore(new MemoryObjectStore(), {
        script: { putIfAbsent: ['fail'] },
      });
      const store = new InstrumentedObjectStore(faulty);
      await expect(store.putIfAbsent(walKey('a', 0), Uint8Array.of(1))).rejects.toBeInstanceOf(
        UnavailableError,
      );
      expect(store.counts().putIfAbsent).toBe(1);
    });

    it('returns a snapshot that later requests do not change', async () => {
      const store = new InstrumentedObjectStore(new MemoryObjectStore());
      const before = store.counts();
      await store.get(walKey('a', 0));
      expect(before.get).toBe(0);
      expect(store.counts().get).toBe(1);
    });
  });

  describe('reset', () => {
    it('zeroes every count when called between phases of a test', async () => {
      const store = new InstrumentedObjectStore(new MemoryObjectStore());
      await store.putIfAbsent(walKey('a', 0), Uint8Array.of(1));
      store.reset();
      await store.get(walKey('a', 0));
      expect(store.counts()).toEqual({ putIfAbsent: 0, get: 1, getStream: 0, list: 0, delete: 0 });
    });
  });

  describe('putStreamIfAbsent', () => {
    it('counts a streamed create as one putIfAbsent, whatever the number of chunks', async () => {
      const store = new InstrumentedObjectStore(new MemoryObjectStore());
      async function* body() {
        yield Uint8Array.of(1);
        yield Uint8Array.of(2);
      }
      expect(await store.putStreamIfAbsent(walKey('a', 0), body())).toBe('created');
      expect(store.counts()).toEqual({ putIfAbsent: 1, get: 0, getStream: 0, list: 0, delete: 0 });
    });
  });

  describe('onRequest', () => {
    it('reports each request with its key, or prefix for list, in call order', async () => {
      const seen: [StoreOperation, string][] = [];
      const store = new InstrumentedObjectStore(new MemoryObjectStore(), {
        onRequest: (operation, key) => seen.push([operation, key]),
      });
      await store.putIfAbsent(walKey('a', 0), Uint8Array.of(1));
      await collect(store.list('shards/a/wal/'));
      expect(seen).toEqual([
        ['putIfAbsent', walKey('a', 0)],
        ['list', 'shards/a/wal/'],
      ]);
    });
  });
});
