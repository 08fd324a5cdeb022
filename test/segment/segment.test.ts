/**
 * Segment format v1: the writer's lines are exactly the committed golden
 * text, the committed gzip reads back to the golden rows against its record,
 * and the reader fails loud on anything the record does not vouch for.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { CorruptDataError, UnknownFormatVersionError } from '../../lib/errors.js';
import { SEGMENT_FORMAT_VERSION, type SegmentRef, segmentKey } from '../../lib/segment/format.js';
import { readSegment } from '../../lib/segment/reader.js';
import { SegmentWriter } from '../../lib/segment/writer.js';
import { MemoryObjectStore } from '../../lib/store/memory-store.js';
import { caught } from '../wal/helpers.js';

const fixture = (name: string) => readFileSync(path.join(import.meta.dirname, 'fixtures', name));

/** The golden rows: exact numbers, escapes, unicode, as sent. */
const GOLDEN_ROWS = [
  { seq: 1000, offset: 5001, text: '{"event":"click","emoji":"🚀","quote":"say \\"hi\\"\\nnext"}' },
  {
    seq: 1004,
    offset: 5006,
    text: '{"big":12345678901234567890,"huge":1e400,"neg":-0,"exp":1E+2}',
  },
  { seq: 1004, offset: 5008, text: '{}' },
];

/** The manifest's record of the committed golden-v1.ndjson.gz. */
function goldenRef(): SegmentRef {
  const gz = fixture('golden-v1.ndjson.gz');
  const text = gunzipSync(gz);
  return {
    v: 1,
    first: 43,
    end: 45,
    firstOffset: 5001,
    lastOffset: 5008,
    createdAtMs: 1_712_345_678_901,
    rows: 3,
    rawBytes: text.length,
    crc32: 4_026_470_657,
    bytes: gz.length,
  };
}

async function written(): Promise<{ store: MemoryObjectStore; ref: SegmentRef }> {
  const store = new MemoryObjectStore();
  const writer = new SegmentWriter(store, 'orders-eu', 43, 6);
  for (const row of GOLDEN_ROWS) await writer.row(row.seq, row.offset, row.text);
  const { result, ref } = await writer.finish(45, 1_712_345_678_901);
  expect(result).toBe('created');
  return { store, ref };
}

describe('segment format v1', () => {
  it('writes exactly the committed golden text, one self-contained row per line', async () => {
    const { store, ref } = await written();
    const bytes = await store.get(segmentKey('orders-eu', 43));
    expect(gunzipSync(bytes!).toString('utf8')).toBe(fixture('golden-v1.ndjson').toString('utf8'));
    expect(ref).toMatchObject({
      v: SEGMENT_FORMAT_VERSION,
      rows: 3,
      firstOffset: 5001,
      lastOffset: 5008,
    });
    expect(ref.crc32).toBe(goldenRef().crc32);
  });

  it('reads the committed gzip back to the golden rows, checked against its record', async () => {
    const store = new MemoryObjectStore();
    await store.putIfAbsent(segmentKey('orders-eu', 43), fixture('golden-v1.ndjson.gz'));
    const rows: unknown[] = [];
    await readSegment(store, 'orders-eu', goldenRef(), (row) => void rows.push(row));
    expect(rows).toEqual(GOLDEN_ROWS);
  });

  it('fails loud, naming the segment, on a record it does not match', async () => {
    const store = new MemoryObjectStore();
    const key = segmentKey('orders-eu', 43);
    await store.putIfAbsent(key, fixture('golden-v1.ndjson.gz'));
    const cases: Array<[Partial<SegmentRef>, RegExp]> = [
      [{ crc32: 1 }, /crc32/],
      [{ rows: 4 }, /rows/],
      [{ lastOffset: 5009 }, /offset 5008/],
      [{ firstOffset: 5000 }, /offset 5001, expected 5000/],
    ];
    for (const [change, message] of cases) {
      const error = await caught(() =>
        readSegment(store, 'orders-eu', { ...goldenRef(), ...change }),
      );
      expect(error).toBeInstanceOf(CorruptDataError);
      expect((error as Error).message).toMatch(message);
      expect((error as Error).message).toContain(key);
    }
    expect(
      await caught(() => readSegment(store, 'orders-eu', { ...goldenRef(), v: 3 })),
    ).toBeInstanceOf(UnknownFormatVersionError);
    expect(
      await caught(() => readSegment(store, 'orders-eu', { ...goldenRef(), first: 44 })),
    ).toBeInstanceOf(CorruptDataError);
  });

  it('fails loud on a line out of shape or out of order, even with a matching count', async () => {
    const store = new MemoryObjectStore();
    const text = '{"seq":1,"offset":2,"row":{"a":1}}\n{"seq":1,"offset":1,"row":{"a":2}}\n';
    const gz = gzipSync(text);
    await store.putIfAbsent(segmentKey('s', 0), gz);
    const ref: SegmentRef = {
      v: 1,
      first: 0,
      end: 1,
      firstOffset: 2,
      lastOffset: 9,
      createdAtMs: 0,
      rows: 2,
      rawBytes: text.length,
      crc32: 0,
      bytes: gz.length,
    };
    const error = await caught(() => readSegment(store, 's', ref));
    expect((error as Error).message).toMatch(/line 2: offset 1, expected at least 3/);
  });
});
