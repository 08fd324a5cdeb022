/**
 * The `ObjectStore` contract (see `lib/store/object-store.ts`) as one suite
 * that every adapter runs, so the S3, filesystem and memory stores cannot
 * drift apart.
 */
import type { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { walKey } from '../../lib/paths.js';
import type { ObjectStore } from '../../lib/store/object-store.js';

/** A fresh, empty store and how to dispose of it. */
export interface StoreUnderTest {
  store: ObjectStore;
  cleanup: () => Promise<void>;
}

/** What the backend behind an adapter can honour. */
export interface ContractOptions {
  /** False for backends that ignore `If-None-Match` (s3rver); those cases are then skipped. */
  enforcesCreateIfAbsent?: boolean;
}

/** Reads a stream to the end. */
export async function readAll(stream: Readable): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Uint8Array));
  return new Uint8Array(Buffer.concat(chunks));
}

/** Collects an async iterable. */
export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

/** Compares bytes whatever the concrete class (Buffer, Uint8Array). */
export function expectBytes(actual: Uint8Array | undefined, expected: Uint8Array): void {
  expect(actual).toBeDefined();
  expect(Buffer.from(actual!).equals(Buffer.from(expected))).toBe(true);
}

/** Yields `chunks` one by one, each after a turn of the event loop (as a stream would). */
export async function* stream(chunks: readonly Uint8Array[]): AsyncGenerator<Uint8Array> {
  for (const chunk of chunks) {
    await new Promise((resolve) => setImmediate(resolve));
    yield chunk;
  }
}

/** Every byte value, so encodings that mangle binary show up. */
const ALL_BYTES = Uint8Array.from({ length: 256 }, (_, i) => i);

/** A body unique to `writer`, large enough that a torn write would be visible. */
function writerBody(writer: number): Uint8Array {
  return new Uint8Array(Buffer.alloc(64 * 1024, `writer-${writer};`));
}

/** Defines the shared contract suite for the store `makeStore` builds. */
export function objectStoreContract(
  name: string,
  makeStore: () => Promise<StoreUnderTest>,
  options: ContractOptions = {},
): void {
  const createIfAbsent = options.enforcesCreateIfAbsent ?? true;

  describe(`${name} (ObjectStore contract)`, () => {
    let store: ObjectStore;
    let cleanup: () => Promise<void>;

    beforeEach(async () => {
      ({ store, cleanup } = await makeStore());
    });
    afterEach(async () => {
      await cleanup();
    });

    describe('putIfAbsent', () => {
      it('stores binary bytes that get returns unchanged when the key is new', async () => {
        expect(await store.putIfAbsent(walKey('a', 0), ALL_BYTES)).toBe('created');
        expectBytes(await store.get(walKey('a', 0)), ALL_BYTES);
      });

      it.runIf(createIfAbsent)(
        'returns exists and keeps the first bytes when the key is taken',
        async () => {
          await store.putIfAbsent(walKey('a', 0), Uint8Array.of(1, 2, 3));
          expect(await store.putIfAbsent(walKey('a', 0), Uint8Array.of(9))).toBe('exists');
          expectBytes(await store.get(walKey('a', 0)), Uint8Array.of(1, 2, 3));
        },
      );

      it.runIf(createIfAbsent)('lets exactly one writer win when 20 race for one key', async () => {
        const key = walKey('a', 7);
        const results = await Promise.all(
          Array.from({ length: 20 }, (_, writer) => store.putIfAbsent(key, writerBody(writer))),
        );
        const winners = results.flatMap((result, writer) => (result === 'created' ? [writer] : []));
        expect(winners).toHaveLength(1);
        expectBytes(await store.get(key), writerBody(winners[0]!));
      });

      it('keeps the stored bytes when the caller mutates its buffer after the put', async () => {
        const body = Uint8Array.of(1, 2, 3);
        await store.putIfAbsent(walKey('a', 0), body);
        body.fill(0);
        expectBytes(await store.get(walKey('a', 0)), Uint8Array.of(1, 2, 3));
      });
    });

    describe('putStreamIfAbsent', () => {
      it('stores the chunks joined when the key is new', async () => {
        const body = stream([ALL_BYTES.subarray(0, 100), ALL_BYTES.subarray(100)]);
        expect(await store.putStreamIfAbsent(walKey('a', 1), body)).toBe('created');
        expectBytes(await store.get(walKey('a', 1)), ALL_BYTES);
      });

      it.runIf(createIfAbsent)(
        'returns exists and keeps the first bytes when the key is taken',
        async () => {
          await store.putIfAbsent(walKey('a', 1), Uint8Array.of(1, 2, 3));
          expect(await store.putStreamIfAbsent(walKey('a', 1), stream([Uint8Array.of(9)]))).toBe(
            'exists',
          );
          expectBytes(await store.get(walKey('a', 1)), Uint8Array.of(1, 2, 3));
        },
      );

      it('publishes nothing and passes the error on when the body fails', async () => {
        const failure = new Error('the fold stopped');
        async function* failing() {
          yield Uint8Array.of(1, 2, 3);
          throw failure;
        }
        await expect(store.putStreamIfAbsent(walKey('a', 2), failing())).rejects.toBe(failure);
        expect(await store.get(walKey('a', 2))).toBeUndefined();
        expect(await collect(store.list('shards/a/'))).toEqual([]);
      });

      it.runIf(createIfAbsent)('lets exactly one writer win when 10 race for one key', async () => {
        const key = walKey('a', 8);
        const results = await Promise.all(
          Array.from({ length: 10 }, (_, writer) => {
            const body = writerBody(writer);
            return store.putStreamIfAbsent(
              key,
              stream([body.subarray(0, 1000), body.subarray(1000)]),
            );
          }),
        );
        const winners = results.flatMap((result, writer) => (result === 'created' ? [writer] : []));
        expect(winners).toHaveLength(1);
        expectBytes(await store.get(key), writerBody(winners[0]!));
      });
    });

    describe('get', () => {
      it('returns undefined when the key is absent', async () => {
        expect(await store.get(walKey('a', 0))).toBeUndefined();
      });

      it('returns bytes whose mutation does not change the stored object', async () => {
        await store.putIfAbsent(walKey('a', 0), Uint8Array.of(1, 2, 3));
        (await store.get(walKey('a', 0)))!.fill(0);
        expectBytes(await store.get(walKey('a', 0)), Uint8Array.of(1, 2, 3));
      });
    });

    describe('getStream', () => {
      it('streams the stored bytes when the key exists', async () => {
        await store.putIfAbsent(walKey('a', 0), ALL_BYTES);
        const stream = await store.getStream(walKey('a', 0));
        expectBytes(await readAll(stream!), ALL_BYTES);
      });

      it('returns undefined when the key is absent', async () => {
        expect(await store.getStream(walKey('a', 0))).toBeUndefined();
      });
    });

    describe('list', () => {
      it('yields keys in ascending order whatever the insertion order', async () => {
        for (const position of [10, 2, 100, 0, 9]) {
          await store.putIfAbsent(walKey('a', position), Uint8Array.of(position));
        }
        expect(await collect(store.list('shards/a/wal/'))).toEqual(
          [0, 2, 9, 10, 100].map((p) => walKey('a', p)),
        );
      });

      it('yields only keys strictly after startAfter when it is given', async () => {
        for (const position of [0, 1, 2, 3]) {
          await store.putIfAbsent(walKey('a', position), Uint8Array.of(position));
        }
        const after1 = await collect(store.list('shards/a/wal/', { startAfter: walKey('a', 1) }));
        expect(after1).toEqual([walKey('a', 2), walKey('a', 3)]);
        // A startAfter that is not itself a key still splits the listing.
        const mid = await collect(store.list('shards/a/wal/', { startAfter: 'shards/a/wal/0000' }));
        expect(mid).toHaveLength(4);
      });

      it('keeps shards apart when one name is a prefix of another', async () => {
        await store.putIfAbsent(walKey('a', 0), Uint8Array.of(1));
        await store.putIfAbsent('shards/a/aof/00000000000000000000', Uint8Array.of(2));
        await store.putIfAbsent(walKey('ab', 0), Uint8Array.of(3));
        expect(await collect(store.list('shards/a/wal/'))).toEqual([walKey('a', 0)]);
        expect(await collect(store.list('shards/ab/'))).toEqual([walKey('ab', 0)]);
        expect(await collect(store.list('shards/a/'))).toEqual([
          'shards/a/aof/00000000000000000000',
          walKey('a', 0),
        ]);
      });

      it('matches a prefix that ends mid-name the way S3 does', async () => {
        await store.putIfAbsent(walKey('a', 0), Uint8Array.of(1));
        await store.putIfAbsent(walKey('ab', 0), Uint8Array.of(2));
        await store.putIfAbsent(walKey('b', 0), Uint8Array.of(3));
        expect(await collect(store.list('shards/a'))).toEqual([walKey('a', 0), walKey('ab', 0)]);
        expect(await collect(store.list('shards/a/wal/000'))).toEqual([walKey('a', 0)]);
      });

      it('yields nothing when no key has the prefix', async () => {
        await store.putIfAbsent(walKey('a', 0), Uint8Array.of(1));
        expect(await collect(store.list('shards/z/wal/'))).toEqual([]);
      });
    });

    describe('delete', () => {
      it('removes the object and succeeds again when it is already absent', async () => {
        await store.putIfAbsent(walKey('a', 0), Uint8Array.of(1));
        await store.delete(walKey('a', 0));
        await store.delete(walKey('a', 0));
        expect(await store.get(walKey('a', 0))).toBeUndefined();
        expect(await collect(store.list('shards/a/'))).toEqual([]);
      });

      it('frees the key for a later putIfAbsent', async () => {
        await store.putIfAbsent(walKey('a', 0), Uint8Array.of(1));
        await store.delete(walKey('a', 0));
        expect(await store.putIfAbsent(walKey('a', 0), Uint8Array.of(2))).toBe('created');
        expectBytes(await store.get(walKey('a', 0)), Uint8Array.of(2));
      });
    });
  });
}
