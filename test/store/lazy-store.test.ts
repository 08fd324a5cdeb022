import { describe, expect, it } from 'vitest';
import { InternalError } from '../../lib/errors.js';
import { walKey } from '../../lib/paths.js';
import { LazyObjectStore } from '../../lib/store/lazy-store.js';
import { MemoryObjectStore } from '../../lib/store/memory-store.js';
import type { ObjectStore } from '../../lib/store/object-store.js';
import { collect, objectStoreContract } from './contract.js';

objectStoreContract('LazyObjectStore', async () => ({
  store: new LazyObjectStore(async () => new MemoryObjectStore()),
  cleanup: async () => {},
}));

/** A lazy store over a memory store, counting the loads. */
function counted(load: () => Promise<ObjectStore> = async () => new MemoryObjectStore()) {
  let loads = 0;
  const store = new LazyObjectStore(() => {
    loads++;
    return load();
  });
  return { store, loads: () => loads };
}

describe('LazyObjectStore', () => {
  describe('constructor', () => {
    it('loads nothing until an operation is called', () => {
      const { loads } = counted();
      expect(loads()).toBe(0);
    });
  });

  describe('every operation', () => {
    it('loads the store once, at the first call, and sends every call to it', async () => {
      const { store, loads } = counted();
      const key = walKey('a', 0);
      const [first, second] = await Promise.all([
        store.putIfAbsent(key, Uint8Array.of(1)),
        store.putIfAbsent(key, Uint8Array.of(2)),
      ]);
      expect([first, second].sort()).toEqual(['created', 'exists']);
      expect(await collect(store.list('shards/a/'))).toEqual([key]);
      await store.delete(key);
      expect(await store.get(key)).toBeUndefined();
      expect(loads()).toBe(1);
    });

    it('fails with the load’s error, at every call, when the store cannot be built', async () => {
      const cause = new InternalError('no S3 chunk in the bundle');
      const { store, loads } = counted(async () => {
        throw cause;
      });
      await expect(store.get(walKey('a', 0))).rejects.toBe(cause);
      await expect(collect(store.list('shards/a/'))).rejects.toBe(cause);
      await expect(store.putIfAbsent(walKey('a', 0), Uint8Array.of(1))).rejects.toBe(cause);
      expect(loads()).toBe(1);
    });
  });
});
