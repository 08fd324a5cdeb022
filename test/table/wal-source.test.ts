import { gunzipSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { CorruptDataError, UnavailableError } from '../../lib/errors.js';
import { encodeBatchRows } from '../../lib/memtable/batch-codec.js';
import { walKey } from '../../lib/paths.js';
import { FaultyObjectStore } from '../../lib/store/faulty-store.js';
import { MemoryObjectStore } from '../../lib/store/memory-store.js';
import { appendTable } from '../../lib/table/append.js';
import { loadCurrent } from '../../lib/table/metadata.js';
import { readWalRange } from '../../lib/table/wal-source.js';
import { decodeWal } from '../../lib/wal/decode.js';
import { encodeWalBatches } from '../../lib/wal/encode-batches.js';
import type { WalHeader, WalRow } from '../../lib/wal/format.js';
import { testDeps } from './helpers.js';

const SHARD = 'clicks-0';
const T0 = Date.UTC(2026, 11, 1, 10);

/** A v3 object at `position`, as the flusher writes it: one gzip member per put. */
function v3Object(
  position: number,
  puts: Array<Array<{ key?: string; text?: string; delete?: true }>>,
) {
  let offset = position * 100;
  const firstSeq = position * 10 + 1;
  const batches = puts.map((rows, i) => {
    const put = encodeBatchRows(rows);
    return {
      seq: firstSeq + i,
      rows: rows.length,
      ingestedAtMs: T0 + i,
      member: put.compressed,
      textBytes: put.jsonBytes,
    };
  });
  const header = {
    shard: SHARD,
    position,
    epoch: 1,
    firstSeq,
    lastSeq: firstSeq + puts.length - 1,
    firstRowOffset: offset,
    rowCount: puts.reduce((sum, rows) => sum + rows.length, 0),
    voidSeqs: [],
    createdAtMs: T0 + 60_000,
  };
  offset += header.rowCount;
  return encodeWalBatches(header, batches);
}

describe('readWalRange', () => {
  it('reads v3 objects exactly as the WAL decoder does: rows, keys, deletes, seqs, offsets and buffering times', async () => {
    const store = new MemoryObjectStore();
    const objects = [
      v3Object(0, [
        [{ text: '{"a":1}' }, { text: '{"é":"\\u00e9","n":1.50}' }],
        [{ key: '7', text: '{"v":[1,{"w":"}"}]}' }],
      ]),
      v3Object(1, [
        [
          { key: '"k"', delete: true },
          { key: '"k"', text: '{}' },
        ],
      ]),
    ];
    for (const [position, bytes] of objects.entries())
      await store.putIfAbsent(walKey(SHARD, position), bytes);

    const read: Array<{ header: WalHeader; rows: WalRow[] }> = [];
    const range = await readWalRange(store, SHARD, 0, Number.POSITIVE_INFINITY, (header, row) => {
      if (read.at(-1)?.header !== header) read.push({ header, rows: [] });
      read.at(-1)!.rows.push(row);
    });

    expect(range).toMatchObject({ shard: SHARD, from: 0, to: 2 });
    expect(read).toEqual(
      objects.map((bytes, position) => decodeWal(walKey(SHARD, position), bytes)),
    );
  });

  it('fails with CorruptDataError, and the commit appends nothing, when an object does not verify', async () => {
    const store = new MemoryObjectStore();
    await store.putIfAbsent(walKey(SHARD, 0), v3Object(0, [[{ text: '{"a":1}' }]]));
    // A row changed under an intact gzip: only the trailer's checksum can tell.
    const text = gunzipSync(v3Object(1, [[{ text: '{"a":2}' }]])).toString('utf8');
    await store.putIfAbsent(walKey(SHARD, 1), gzipSync(text.replace('{"a":2}', '{"a":3}')));

    await expect(
      readWalRange(store, SHARD, 0, Number.POSITIVE_INFINITY, () => undefined),
    ).rejects.toThrow(CorruptDataError);
    await expect(
      readWalRange(store, SHARD, 0, Number.POSITIVE_INFINITY, () => undefined),
    ).rejects.toThrow(/checksum mismatch/);
    const deps = testDeps(store);
    await expect(appendTable(deps, 'clicks_0', [SHARD])).rejects.toThrow(CorruptDataError);
    expect(await loadCurrent(store, 'clicks_0')).toBeUndefined();
  });

  it('fetches no object past the byte budget when the objects read use it up', async () => {
    const store = new MemoryObjectStore();
    for (const position of [0, 1, 2]) {
      await store.putIfAbsent(walKey(SHARD, position), v3Object(position, [[{ text: '{"a":1}' }]]));
    }
    const fetched: string[] = [];
    const counting = Object.assign(Object.create(store) as MemoryObjectStore, {
      get: (key: string) => {
        fetched.push(key);
        return store.get(key);
      },
    });
    const first = (await store.get(walKey(SHARD, 0)))!.byteLength;

    const range = await readWalRange(counting, SHARD, 0, first, () => undefined);

    expect(range).toMatchObject({ from: 0, to: 1, bytes: first });
    expect(fetched).toEqual([walKey(SHARD, 0)]);
  });

  it('fails with the store error when fetching the next object fails', async () => {
    const store = new MemoryObjectStore();
    for (const position of [0, 1]) {
      await store.putIfAbsent(walKey(SHARD, position), v3Object(position, [[{ text: '{"a":1}' }]]));
    }
    const faulty = new FaultyObjectStore(store, { script: { get: ['pass', 'fail'] } });
    const rows: WalRow[] = [];

    await expect(
      readWalRange(faulty, SHARD, 0, Number.POSITIVE_INFINITY, (_, row) => {
        rows.push(row);
      }),
    ).rejects.toThrow(UnavailableError);
    expect(rows).toHaveLength(1);
  });

  it('fails with CorruptDataError, and leaves no rejection unhandled, when the next object was being fetched and fails too', async () => {
    const store = new MemoryObjectStore();
    const text = gunzipSync(v3Object(0, [[{ text: '{"a":2}' }]])).toString('utf8');
    await store.putIfAbsent(walKey(SHARD, 0), gzipSync(text.replace('{"a":2}', '{"a":3}')));
    await store.putIfAbsent(walKey(SHARD, 1), v3Object(1, [[{ text: '{"a":1}' }]]));
    const faulty = new FaultyObjectStore(store, { script: { get: ['pass', 'fail'] } });
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const rows: WalRow[] = [];
      await expect(
        readWalRange(faulty, SHARD, 0, Number.POSITIVE_INFINITY, (_, row) => {
          rows.push(row);
        }),
      ).rejects.toThrow(CorruptDataError);
      // No row of an object that does not verify is handed over.
      expect(rows).toEqual([]);
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
    expect(unhandled).toEqual([]);
  });
});
