/**
 * Snapshot format v1: a part's lines are exactly the committed golden text
 * (keys in order, number keys and rows exact), the committed gzip reads back
 * against its record, and a snapshot is its parts merged by key, the later
 * part winning and a delete removing the key.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { CorruptDataError, InternalError, UnknownFormatVersionError } from '../../lib/errors.js';
import type { SnapshotEntry, SnapshotPartRef } from '../../lib/snapshot/format.js';
import { snapshotPartKey } from '../../lib/snapshot/format.js';
import { snapshotLine, snapshotLineBytes } from '../../lib/snapshot/lines.js';
import { mergeSnapshot, readPart } from '../../lib/snapshot/reader.js';
import { type PartName, SnapshotPartWriter } from '../../lib/snapshot/writer.js';
import { MemoryObjectStore } from '../../lib/store/memory-store.js';
import { caught } from '../wal/helpers.js';

const fixture = (name: string) => readFileSync(path.join(import.meta.dirname, 'fixtures', name));

/** The golden delta: a number key (exact past 2^53), string keys with escapes, a delete. */
const GOLDEN: SnapshotEntry[] = [
  // Number keys first, by their text (`compareKeyIds`), then string keys.
  { key: '12345678901234567890', seq: 1003, offset: 5004, text: '{"n":1e400}' },
  { key: '7', seq: 1002, offset: 5002, text: '{"id":7,"big":12345678901234567890}' },
  { key: '"a"', seq: 1001, offset: 5001, delete: true },
  { key: '"é\\"q"', seq: 1004, offset: 5007, text: '{"q":"say \\"hi\\""}' },
];
const GOLDEN_NAME: PartName = { kind: 'delta', from: 40, to: 44, index: 0 };

async function write(store: MemoryObjectStore, name: PartName, entries: SnapshotEntry[]) {
  const writer = new SnapshotPartWriter(store, 's1', name, 6);
  for (const entry of entries) await writer.entry(entry);
  const { result, ref } = await writer.finish();
  expect(result).toBe('created');
  return ref;
}

describe('snapshot format v1', () => {
  it('writes exactly the committed golden text, and reads the committed gzip back', async () => {
    const store = new MemoryObjectStore();
    const ref = await write(store, GOLDEN_NAME, GOLDEN);
    const key = snapshotPartKey('s1', GOLDEN_NAME);
    expect(key).toBe('shards/s1/snap/00000000000000000040-00000000000000000044-delta-0.ndjson.gz');
    expect(gunzipSync((await store.get(key))!).toString('utf8')).toBe(
      fixture('golden-delta-v1.ndjson').toString('utf8'),
    );
    expect(ref).toMatchObject({ v: 1, rows: 4, deletes: 1 });
    const committed = new MemoryObjectStore();
    const gz = fixture('golden-delta-v1.ndjson.gz');
    await committed.putIfAbsent(key, gz);
    const read: SnapshotEntry[] = [];
    await readPart(committed, 's1', { ...ref, bytes: gz.length }, (entry) => void read.push(entry));
    expect(read).toEqual(GOLDEN);
  });

  it('refuses keys out of order and deletes in a base, before a byte is stored', async () => {
    const store = new MemoryObjectStore();
    const writer = new SnapshotPartWriter(store, 's1', GOLDEN_NAME, 6);
    await writer.entry(GOLDEN[1]!);
    expect(() => writer.entry(GOLDEN[0]!)).toThrow(InternalError);
    expect(() => writer.entry(GOLDEN[1]!)).toThrow(InternalError);
    await writer.abort();
    const base = new SnapshotPartWriter(store, 's1', { kind: 'base', from: 0, to: 4, index: 0 }, 6);
    expect(() => base.entry(GOLDEN[2]!)).toThrow(InternalError);
    await base.abort();
    expect(store.keys()).toEqual([]);
  });

  it('fails loud on a part that does not match its record, or in an unknown version', async () => {
    const store = new MemoryObjectStore();
    const ref = await write(store, GOLDEN_NAME, GOLDEN);
    for (const change of [
      { crc32: 7 },
      { deletes: 0 },
      { rows: 3 },
    ] as Partial<SnapshotPartRef>[]) {
      const error = await caught(() => readPart(store, 's1', { ...ref, ...change }));
      expect(error).toBeInstanceOf(CorruptDataError);
      expect((error as Error).message).toContain(snapshotPartKey('s1', ref));
    }
    expect(await caught(() => readPart(store, 's1', { ...ref, v: 9 }))).toBeInstanceOf(
      UnknownFormatVersionError,
    );
    expect(await caught(() => readPart(store, 's1', { ...ref, index: 1 }))).toBeInstanceOf(
      CorruptDataError,
    );
  });

  it('merges parts by key: the later part wins, a delete removes, order is key order', async () => {
    const store = new MemoryObjectStore();
    const base = await write(store, { kind: 'base', from: 0, to: 40, index: 0 }, [
      { key: '7', seq: 1, offset: 1, text: '{"v":"base"}' },
      { key: '"a"', seq: 2, offset: 2, text: '{"v":"base"}' },
      { key: '"b"', seq: 3, offset: 3, text: '{"v":"base"}' },
    ]);
    const delta = await write(store, GOLDEN_NAME, GOLDEN);
    const spill = await write(store, { ...GOLDEN_NAME, index: 1 }, [
      { key: '7', seq: 1005, offset: 5009, text: '{"v":"last"}' },
    ]);
    const merged: Array<[string, string | undefined]> = [];
    for await (const { entry } of mergeSnapshot(store, 's1', [base, delta, spill])) {
      merged.push([entry.key, entry.text]);
    }
    expect(merged).toEqual([
      ['12345678901234567890', '{"n":1e400}'],
      ['7', '{"v":"last"}'],
      ['"b"', '{"v":"base"}'],
      ['"é\\"q"', '{"q":"say \\"hi\\""}'],
    ]);
  });

  it('fails the merge when one of its parts does not verify', async () => {
    const store = new MemoryObjectStore();
    const base = await write(store, { kind: 'base', from: 0, to: 40, index: 0 }, [GOLDEN[1]!]);
    const delta = await write(store, GOLDEN_NAME, GOLDEN);
    const error = await caught(async () => {
      for await (const _ of mergeSnapshot(store, 's1', [base, { ...delta, crc32: 1 }])) {
        // drain
      }
    });
    expect(error).toBeInstanceOf(CorruptDataError);
  });
});

describe('snapshotLineBytes', () => {
  it('is the UTF-8 size of the line snapshotLine spells, for rows and deletes', () => {
    const entries: SnapshotEntry[] = [
      { key: '"k-é-🙂"', seq: 1, offset: 0, text: '{"s":"🙂","n":1e400}' },
      { key: '12345678901234567890', seq: 123_456, offset: 9_876_543, text: '{}' },
      { key: '"gone"', seq: 7, offset: 70, delete: true },
    ];
    for (const entry of entries) {
      expect(snapshotLineBytes(entry)).toBe(Buffer.byteLength(snapshotLine(entry)));
    }
  });
});
