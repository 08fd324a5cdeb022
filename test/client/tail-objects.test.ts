/**
 * `tailShard` and the objects it meets: void-only and row-less WAL objects,
 * and every kind of broken object — corrupt or foreign WAL objects, a chain
 * that does not continue, a corrupt segment (held in memory or read twice),
 * an export that does not verify, a legacy-only export — each a loud error
 * (or a loud fallback) with no row of the broken object yielded.
 */
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { tailShard } from '../../lib/client/reader/index.js';
import type { TailRow } from '../../lib/client/reader/tail-options.js';
import { CorruptDataError, UnavailableError, UnknownFormatVersionError } from '../../lib/errors.js';
import { manifestKey } from '../../lib/manifest/format.js';
import { aofKey, walKey } from '../../lib/paths.js';
import { segmentKey } from '../../lib/segment/format.js';
import { MemoryObjectStore } from '../../lib/store/memory-store.js';
import { encodeWal } from '../../lib/wal/encode.js';
import { manifestAt } from '../export/helpers.js';
import { overwrite } from '../recovery/support.js';
import { fixture, useDynalite } from '../support/harness.js';
import { editText, gunzipText, walObject } from '../wal/helpers.js';
import { collect, keylessRows, noticeLog, RecordingStore, TailHistory } from './tail-support.js';

const dynalite = useDynalite();

/** A memory store holding a WAL chain from position 0, seq 1, offset 0: one object per entry. */
async function chain(objects: Array<Parameters<typeof walObject>[0]>): Promise<MemoryObjectStore> {
  const store = new MemoryObjectStore();
  let firstSeq = 1;
  let firstRowOffset = 0;
  for (const [position, batches] of objects.entries()) {
    const object = walObject(batches, { position, firstSeq, firstRowOffset });
    await store.putIfAbsent(walKey('s1', position), encodeWal(object));
    firstSeq = object.header.lastSeq + 1;
    firstRowOffset += object.header.rowCount;
  }
  return store;
}

/** Rows read before the read failed, and the error. */
async function readUntilError(rows: AsyncIterable<TailRow>) {
  const read: TailRow[] = [];
  const error = await (async () => {
    for await (const row of rows) read.push(row);
  })().catch((e) => e);
  return { read, error };
}

describe('tailShard', () => {
  describe('WAL objects without rows', () => {
    it('steps over void-only objects and objects with no rows, keeping offsets contiguous', async () => {
      const store = await chain([
        [[{ row: { a: 0 } }], 'void'],
        ['void', 'void'],
        [[{ row: { a: 1 } }, { key: 'k', row: { a: 2 } }], 'void'],
        ['void'],
        [[{ key: 'k', delete: true }]],
      ]);
      const rows = await collect(tailShard(store, 's1'));
      expect(rows.map((r) => [r.seq, r.offset, r.text ?? 'delete'])).toEqual([
        [1, 0, '{"a":0}'],
        [5, 1, '{"a":1}'],
        [5, 2, '{"a":2}'],
        [8, 3, 'delete'],
      ]);
      const fromVoid = await collect(tailShard(store, 's1', { fromSeq: 3 }));
      expect(fromVoid).toEqual(rows.slice(1));
    });
  });

  describe('broken WAL objects', () => {
    it('fails at a checksum mismatch naming the object, after the rows before it and none of its own', async () => {
      const store = await chain([[[{ row: { a: 0 } }]], [[{ row: { a: 1 } }, { row: { a: 2 } }]]]);
      const key = walKey('s1', 1);
      const good = await store.get(key);
      await store.delete(key);
      await store.putIfAbsent(
        key,
        editText(good!, (t) => t.replace('{"a":2}', '{"a":3}')),
      );
      const { read, error } = await readUntilError(tailShard(store, 's1'));
      expect(read.map((r) => r.text)).toEqual(['{"a":0}']);
      expect(error).toBeInstanceOf(CorruptDataError);
      expect(error.message).toMatch(new RegExp(`^${key}: .*checksum`));
    });

    it('fails at an unknown format version with UnknownFormatVersionError', async () => {
      const store = await chain([[[{ row: { a: 0 } }]]]);
      const key = walKey('s1', 0);
      const good = await store.get(key);
      await store.delete(key);
      const text = gunzipText(good!).replace('"v":2', '"v":9');
      await store.putIfAbsent(key, gzipSync(Buffer.from(text)));
      const { read, error } = await readUntilError(tailShard(store, 's1'));
      expect(read).toEqual([]);
      expect(error).toBeInstanceOf(UnknownFormatVersionError);
      expect(error.message).toContain('unknown WAL format version 9');
    });

    it('fails when an object does not continue the one before it', async () => {
      const store = await chain([[[{ row: { a: 0 } }]]]);
      const stray = walObject([[{ row: { a: 1 } }]], {
        position: 1,
        firstSeq: 5,
        firstRowOffset: 1,
      });
      await store.putIfAbsent(walKey('s1', 1), encodeWal(stray));
      const { read, error } = await readUntilError(tailShard(store, 's1'));
      expect(read).toHaveLength(1);
      expect(error).toBeInstanceOf(CorruptDataError);
      expect(error.message).toBe(
        `${walKey('s1', 1)}: starts at seq 5, row offset 1; what precedes it ends at seq 1, before row offset 1`,
      );
    });
  });

  describe('broken exports', () => {
    /** Two exports of 3 keyless rows each (two segments), and a WAL tail of 2 rows. */
    async function exported(): Promise<{ h: TailHistory; watermarks: number[] }> {
      const h = new TailHistory(await fixture(dynalite()));
      const watermarks: number[] = [];
      for (let round = 0; round < 2; round++) {
        await h.put(keylessRows(round * 3, round * 3 + 3));
        await h.flush();
        watermarks.push((await h.export()).coveredPosition!);
      }
      await h.put(keylessRows(10, 12));
      await h.flush();
      return { h, watermarks };
    }

    for (const [path, segmentBufferBytes] of [
      ['held in memory', undefined],
      ['read twice', 1],
    ] as const) {
      it(`fails at a corrupt segment (${path}) before yielding any of its rows`, async () => {
        const { h, watermarks } = await exported();
        const manifest = await manifestAt(h.f.memory, watermarks[1]!);
        const key = segmentKey('s1', manifest.segments[1]!.first);
        const stored = await h.f.memory.get(key);
        await overwrite(
          h.f,
          key,
          editText(stored!, (t) => t.replace('{"n":5}', '{"n":6}')),
        );
        const { read, error } = await readUntilError(
          tailShard(h.f.memory, 's1', { segmentBufferBytes }),
        );
        expect(read.map((r) => r.text)).toEqual(['{"n":0}', '{"n":1}', '{"n":2}']);
        expect(error).toBeInstanceOf(CorruptDataError);
        expect(error.message).toMatch(new RegExp(`^${key}: the manifest records crc32`));
      });
    }

    it('fails when a segment read whole disagrees with what its seek read of it said', async () => {
      const { h, watermarks } = await exported();
      const manifest = await manifestAt(h.f.memory, watermarks[1]!);
      const second = manifest.segments[1]!;
      const key = segmentKey('s1', second.first);
      // The first read of the second segment (the seek's probe) sees a forged first line.
      let forged = false;
      const store = new (class extends RecordingStore {
        override async getStream(k: string) {
          if (k !== key || forged) return super.getStream(k);
          forged = true;
          const line = `{"seq":1,"offset":${second.firstOffset},"row":{"n":3}}\n`;
          return Readable.from([gzipSync(line)]);
        }
      })(h.f.memory);
      const { read, error } = await readUntilError(tailShard(store, 's1', { fromSeq: 2 }));
      expect(forged).toBe(true);
      expect(read).toEqual([]);
      expect(error).toBeInstanceOf(CorruptDataError);
      expect(error.message).toBe(`${key}: line 1 has seq 2, but read a moment ago it had seq 1`);
    });

    it('reads the whole history from segments read twice exactly as from segments held', async () => {
      const { h, watermarks } = await exported();
      const held = await collect(tailShard(h.f.memory, 's1'));
      const twice = await collect(tailShard(h.f.memory, 's1', { segmentBufferBytes: 1 }));
      expect(twice).toEqual(held);
      expect(held).toEqual(h.expected(1, watermarks[1]!));
    });

    it('falls back, loudly, to the previous export when the newest does not verify', async () => {
      const { h, watermarks } = await exported();
      await overwrite(h.f, manifestKey('s1', watermarks[1]!), gzipSync('not a manifest\n'));
      const log = noticeLog();
      const rows = await collect(tailShard(h.f.memory, 's1', { onNotice: log.onNotice }));
      expect(rows).toEqual(h.expected(1, watermarks[0]!));
      const fallback = log.notices.find((n) => n.kind === 'export-fallback');
      expect(fallback?.message).toMatch(
        new RegExp(
          `^export ${manifestKey('s1', watermarks[1]!)} does not verify \\(CorruptDataError: .*\\); reading the older export ${manifestKey('s1', watermarks[0]!)}$`,
        ),
      );
    });

    it('fails when no export verifies, naming the newest', async () => {
      const { h, watermarks } = await exported();
      for (const w of watermarks) await overwrite(h.f, manifestKey('s1', w), gzipSync('x\n'));
      const { read, error } = await readUntilError(tailShard(h.f.memory, 's1'));
      expect(read).toEqual([]);
      expect(error).toBeInstanceOf(CorruptDataError);
      expect(error.objectKey).toBe(manifestKey('s1', watermarks[1]!));
    });

    it('refuses a shard whose only export is a legacy AOF export', async () => {
      const store = await chain([[[{ row: { a: 0 } }]]]);
      await store.putIfAbsent(aofKey('s1', 1), gzipSync('legacy\n'));
      const error = await collect(tailShard(store, 's1')).catch((e) => e);
      expect(error).toBeInstanceOf(UnavailableError);
      expect(error.message).toBe(
        `shard s1: its export is a legacy AOF export (${aofKey('s1', 1)}), which tail does not read; the next export (\`shardwal export s1\`) converts it to a manifest`,
      );
    });
  });
});
