import { describe, expect, it } from 'vitest';
import { ConfigError, UnavailableError } from '../../lib/errors.js';
import { walKey } from '../../lib/paths.js';
import { seededRandom as seeded } from '../../lib/seeded-random.js';
import { FaultyObjectStore } from '../../lib/store/faulty-store.js';
import { MemoryObjectStore } from '../../lib/store/memory-store.js';
import { collect } from './contract.js';

const key = walKey('a', 0);

describe('FaultyObjectStore', () => {
  describe('putIfAbsent', () => {
    it('throws UnavailableError and stores nothing when scripted to fail', async () => {
      const inner = new MemoryObjectStore();
      const store = new FaultyObjectStore(inner, { script: { putIfAbsent: ['fail'] } });
      await expect(store.putIfAbsent(key, Uint8Array.of(1))).rejects.toThrow(
        /failed before it ran/,
      );
      expect(inner.size).toBe(0);
    });

    it('stores the object but throws UnavailableError when scripted to lose the ack', async () => {
      const inner = new MemoryObjectStore();
      const store = new FaultyObjectStore(inner, { script: { putIfAbsent: ['lostAck'] } });
      await expect(store.putIfAbsent(key, Uint8Array.of(1))).rejects.toBeInstanceOf(
        UnavailableError,
      );
      // The caller's retry then meets its own write: the case the flusher adopts.
      expect(await store.putIfAbsent(key, Uint8Array.of(1))).toBe('exists');
    });

    it('consumes scripted actions in order, then passes through', async () => {
      const store = new FaultyObjectStore(new MemoryObjectStore(), {
        script: { putIfAbsent: ['fail', 'pass'] },
      });
      store.enqueue('putIfAbsent', 'fail');
      const outcomes = [];
      for (const position of [0, 1, 2, 3]) {
        outcomes.push(
          await store.putIfAbsent(walKey('a', position), Uint8Array.of(1)).catch(() => 'error'),
        );
      }
      expect(outcomes).toEqual(['error', 'created', 'error', 'created']);
    });

    it('injects the same faults when run twice with the same seed', async () => {
      const run = async (seed: number) => {
        const store = new FaultyObjectStore(new MemoryObjectStore(), {
          random: seeded(seed),
          failProbability: { putIfAbsent: 0.3 },
          lostAckProbability: 0.2,
        });
        const outcomes: string[] = [];
        for (let position = 0; position < 50; position++) {
          const outcome = await store
            .putIfAbsent(walKey('a', position), Uint8Array.of(1))
            .catch((error: Error) => (error.message.includes('lost') ? 'lostAck' : 'fail'));
          outcomes.push(outcome);
        }
        return outcomes;
      };
      const first = await run(42);
      expect(await run(42)).toEqual(first);
      expect(new Set(first)).toEqual(new Set(['created', 'fail', 'lostAck']));
      expect(await run(7)).not.toEqual(first);
    });
  });

  describe('putStreamIfAbsent', () => {
    it("draws from putIfAbsent's script: a fail reads no byte of the body, a lost ack stores it", async () => {
      const inner = new MemoryObjectStore();
      const store = new FaultyObjectStore(inner, { script: { putIfAbsent: ['fail', 'lostAck'] } });
      let pulled = 0;
      async function* body() {
        pulled += 1;
        yield Uint8Array.of(1, 2);
      }
      await expect(store.putStreamIfAbsent(key, body())).rejects.toThrow(/failed before it ran/);
      expect(pulled).toBe(0);
      expect(inner.size).toBe(0);
      await expect(store.putStreamIfAbsent(key, body())).rejects.toThrow(
        /acknowledgement was lost/,
      );
      expect(await inner.get(key)).toEqual(Uint8Array.of(1, 2));
      expect(await store.putStreamIfAbsent(key, body())).toBe('exists');
    });
  });

  describe('list', () => {
    it('throws UnavailableError on the first step when scripted to fail', async () => {
      const inner = new MemoryObjectStore();
      await inner.putIfAbsent(key, Uint8Array.of(1));
      const store = new FaultyObjectStore(inner, { script: { list: ['fail', 'pass'] } });
      await expect(collect(store.list('shards/a/'))).rejects.toBeInstanceOf(UnavailableError);
      expect(await collect(store.list('shards/a/'))).toEqual([key]);
    });
  });

  describe('constructor', () => {
    it('throws ConfigError when a probability is given without a seeded random', () => {
      expect(
        () => new FaultyObjectStore(new MemoryObjectStore(), { lostAckProbability: 0.1 }),
      ).toThrow(ConfigError);
    });

    it('throws ConfigError naming the setting when a probability is outside 0..1', () => {
      expect(
        () =>
          new FaultyObjectStore(new MemoryObjectStore(), {
            random: seeded(1),
            failProbability: { get: 1.5 },
          }),
      ).toThrow(/failProbability\.get=1\.5/);
    });
  });
});
