/**
 * The walk's read-ahead (it opens the next WAL position while it scans the
 * current one) never changes what a walk finds: an object absent when it was
 * opened ahead but listed by the time the walk reaches it is read, not taken
 * for a gap; an object opened ahead of a stop is let go of; and the
 * read-ahead's own failure surfaces only if the walk reads that object.
 */
import type { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { walKey } from '../../lib/paths.js';
import { walkWalChain } from '../../lib/recovery/wal-chain.js';
import { MemoryObjectStore } from '../../lib/store/memory-store.js';
import type { ObjectStore } from '../../lib/store/object-store.js';
import { encodeWal } from '../../lib/wal/encode.js';
import { caught, walObject } from '../wal/helpers.js';

/** Three chained objects of shard s1 at positions 0..2, one keyed and one keyless row each. */
async function chain(): Promise<MemoryObjectStore> {
  const store = new MemoryObjectStore();
  for (let position = 0; position < 3; position++) {
    const object = walObject(
      [[{ key: `k${position}`, row: { position } }, { row: { n: position } }]],
      {
        position,
        firstSeq: position + 1,
        firstRowOffset: position * 2,
      },
    );
    await store.putIfAbsent(walKey('s1', position), encodeWal(object));
  }
  return store;
}

/** `inner` with `getStream` replaced, and every stream it opened recorded. */
function watched(
  inner: ObjectStore,
  getStream: (key: string, calls: number) => Promise<Readable | undefined> | undefined,
) {
  const streams: Readable[] = [];
  const calls = new Map<string, number>();
  const store: ObjectStore = {
    putIfAbsent: (k, b) => inner.putIfAbsent(k, b),
    putStreamIfAbsent: (k, b) => inner.putStreamIfAbsent(k, b),
    get: (k) => inner.get(k),
    list: (p, o) => inner.list(p, o),
    delete: (k) => inner.delete(k),
    getStream: async (key) => {
      const n = (calls.get(key) ?? 0) + 1;
      calls.set(key, n);
      const stream = await (getStream(key, n) ?? inner.getStream(key));
      if (stream) streams.push(stream);
      return stream;
    },
  };
  return { store, streams, calls };
}

const START = { position: 0, lastSeq: 0, nextRowOffset: 0 };

describe(walkWalChain, () => {
  it('reads an object that was not there yet when it was opened ahead', async () => {
    const inner = await chain();
    // Position 1 answers "absent" the first time: the read-ahead ran before it was written.
    const { store, calls } = watched(inner, (key, n) =>
      key === walKey('s1', 1) && n === 1 ? Promise.resolve(undefined) : undefined,
    );
    const walk = await walkWalChain(store, 's1', START);
    expect(walk.stop).toEqual({ reason: 'end' });
    expect(walk.objects).toBe(3);
    expect(calls.get(walKey('s1', 1))).toBe(2);
  });

  it('lets go of the object opened ahead of a stop', async () => {
    const inner = await chain();
    await inner.delete(walKey('s1', 1));
    await inner.putIfAbsent(walKey('s1', 1), new Uint8Array([1, 2, 3]));
    const { store, streams } = watched(inner, () => undefined);
    const walk = await walkWalChain(store, 's1', START);
    expect(walk.stop).toMatchObject({ reason: 'corrupt', position: 1 });
    expect(walk.objects).toBe(1);
    await new Promise((resolve) => setImmediate(resolve));
    expect(streams).toHaveLength(3);
    for (const stream of streams) expect(stream.destroyed).toBe(true);
  });

  it('surfaces a read-ahead failure only when the walk reads that object', async () => {
    const inner = await chain();
    const failing = (key: string) =>
      key === walKey('s1', 2) ? Promise.reject(new Error('store unavailable')) : undefined;
    const full = await caught(() => walkWalChain(watched(inner, failing).store, 's1', START));
    expect(full.message).toBe('store unavailable');
    // Not read: past the walk's limit, or behind a stop (an unhandled rejection would fail the run).
    const limited = await walkWalChain(watched(inner, failing).store, 's1', START, { until: 2 });
    expect(limited.stop).toEqual({ reason: 'limit' });
    await inner.delete(walKey('s1', 1));
    await inner.putIfAbsent(walKey('s1', 1), new Uint8Array([1, 2, 3]));
    const stopped = await walkWalChain(watched(inner, failing).store, 's1', START);
    expect(stopped.stop).toMatchObject({ reason: 'corrupt', position: 1 });
    await new Promise((resolve) => setImmediate(resolve));
  });
});
