import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../lib/errors.js';
import { walKey, walPrefix } from '../../lib/paths.js';
import { FsObjectStore } from '../../lib/store/fs-store.js';
import { collect, expectBytes, objectStoreContract } from './contract.js';

async function tempRoot(): Promise<string> {
  return mkdtemp(path.join(os.tmpdir(), 'shardwal-fs-store-'));
}

objectStoreContract('FsObjectStore', async () => {
  const root = await tempRoot();
  return {
    store: new FsObjectStore(root),
    cleanup: () => rm(root, { recursive: true, force: true }),
  };
});

describe('FsObjectStore', () => {
  let root: string;
  let store: FsObjectStore;
  const walDir = () => path.join(root, ...walPrefix('a').split('/'));

  beforeEach(async () => {
    root = await tempRoot();
    store = new FsObjectStore(root);
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  describe('putIfAbsent', () => {
    it('leaves no temp file behind when the key is created or already exists', async () => {
      await store.putIfAbsent(walKey('a', 0), Uint8Array.of(1));
      await store.putIfAbsent(walKey('a', 0), Uint8Array.of(2));
      expect(await readdir(walDir())).toEqual(['00000000000000000000']);
    });

    it('creates the key when a crashed writer left a temp file in the directory', async () => {
      await mkdir(walDir(), { recursive: true });
      await writeFile(path.join(walDir(), '.tmp-999-0123456789abcdef'), 'torn half-write');
      expect(await store.putIfAbsent(walKey('a', 0), Uint8Array.of(7))).toBe('created');
      expectBytes(await store.get(walKey('a', 0)), Uint8Array.of(7));
    });

    it('never shows a concurrent reader a partial object when large bodies race', async () => {
      const key = walKey('a', 3);
      const bodies = Array.from({ length: 8 }, (_, i) => new Uint8Array(Buffer.alloc(1 << 20, i)));
      const seen: (Uint8Array | undefined)[] = [];
      let writing = true;
      const reader = (async () => {
        while (writing) seen.push(await store.get(key));
      })();
      await Promise.all(bodies.map((body) => store.putIfAbsent(key, body)));
      writing = false;
      await reader;
      const stored = (await store.get(key))!;
      for (const observed of seen) {
        if (observed !== undefined) expectBytes(observed, stored);
      }
    });

    it('is visible to a new store on the same directory (survives a restart)', async () => {
      await store.putIfAbsent(walKey('a', 0), Uint8Array.of(5));
      expectBytes(await new FsObjectStore(root).get(walKey('a', 0)), Uint8Array.of(5));
    });

    it.each([
      ['a parent-directory segment', 'shards/../../etc/passwd'],
      ['an absolute path', '/etc/passwd'],
      ['a backslash', 'shards\\a\\wal'],
      ['an empty segment', 'shards//wal/1'],
      ['a trailing slash', 'shards/a/wal/'],
      ['a temp-file segment', 'shards/a/wal/.tmp-1'],
    ])('throws InvalidInputError naming the key when it has %s', async (_, key) => {
      const attempt = store.putIfAbsent(key, Uint8Array.of(1));
      await expect(attempt).rejects.toBeInstanceOf(InvalidInputError);
      await expect(attempt).rejects.toMatchObject({ field: 'key' });
      await expect(store.get(key)).rejects.toBeInstanceOf(InvalidInputError);
      await expect(store.delete(key)).rejects.toBeInstanceOf(InvalidInputError);
    });

    it('throws InvalidInputError when a key would need an existing object as its directory', async () => {
      await store.putIfAbsent('shards/a/wal', Uint8Array.of(1));
      await expect(store.putIfAbsent(walKey('a', 0), Uint8Array.of(2))).rejects.toBeInstanceOf(
        InvalidInputError,
      );
    });

    it('throws InvalidInputError rather than answer exists when the key is a directory on disk', async () => {
      await store.putIfAbsent(walKey('a', 0), Uint8Array.of(1));
      await expect(store.putIfAbsent('shards/a/wal', Uint8Array.of(2))).rejects.toBeInstanceOf(
        InvalidInputError,
      );
    });
  });

  describe('list', () => {
    it('never yields temp files when a write is in flight or was torn by a crash', async () => {
      await store.putIfAbsent(walKey('a', 0), Uint8Array.of(1));
      await writeFile(path.join(walDir(), '.tmp-1-ffff'), 'x');
      expect(await collect(store.list(walPrefix('a')))).toEqual([walKey('a', 0)]);
      expect(await collect(store.list(''))).toEqual([walKey('a', 0)]);
    });

    it('orders a key before a sibling directory the way S3 compares strings', async () => {
      // '-' sorts before '/', so `x/a-b` precedes `x/a/1` although directory `a` sorts first on disk.
      await store.putIfAbsent('x/a/1', Uint8Array.of(1));
      await store.putIfAbsent('x/a-b', Uint8Array.of(2));
      expect(await collect(store.list('x/'))).toEqual(['x/a-b', 'x/a/1']);
    });

    it('throws InvalidInputError when the prefix climbs out of the root', async () => {
      await expect(collect(store.list('../'))).rejects.toBeInstanceOf(InvalidInputError);
    });
  });
});
