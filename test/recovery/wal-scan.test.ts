import { describe, expect, it } from 'vitest';
import { scanWal } from '../../lib/recovery/wal-scan.js';
import { decodeWal } from '../../lib/wal/decode.js';
import type { WalHeader, WalRow } from '../../lib/wal/format.js';
import { BASE, BASE_BYTES, CORRUPT_CASES } from '../wal/corrupt-cases.js';
import { caught, chunks, KEY } from '../wal/helpers.js';

/**
 * Scans the object at KEY (shard s1, position 7) into a header and rows;
 * with `waitEvery`, the sink asks the scan to wait (backpressure) at every
 * such row, so the scan resumes mid-chunk.
 */
async function scanned(bytes: Uint8Array, size: number, waitEvery = 0) {
  let header: WalHeader | undefined;
  const rows: WalRow[] = [];
  const complete = await scanWal('s1', 7, chunks(bytes, size), {
    header: (h) => {
      header = h;
      return true;
    },
    row: (row) => {
      rows.push(row);
      if (waitEvery > 0 && rows.length % waitEvery === 0) {
        return new Promise<void>((resolve) => setImmediate(resolve));
      }
      return undefined;
    },
  });
  return { complete, object: { header: header!, rows } };
}

describe(scanWal, () => {
  for (const size of [1, 7, 65_536]) {
    it(`yields what decodeWal returns when chunks are ${size} bytes`, async () => {
      expect(await scanned(BASE_BYTES, size)).toStrictEqual({
        complete: true,
        object: decodeWal(KEY, BASE_BYTES),
      });
    });
  }

  for (const waitEvery of [1, 2]) {
    it(`yields the same rows when the sink asks to wait at every ${waitEvery === 1 ? '' : 'second '}row`, async () => {
      for (const size of [7, 65_536]) {
        expect(await scanned(BASE_BYTES, size, waitEvery)).toStrictEqual({
          complete: true,
          object: decodeWal(KEY, BASE_BYTES),
        });
      }
    });
  }

  it('hands every row in one reused object, holding what decodeWal reads, when the sink reuses rows', async () => {
    const seen = new Set<WalRow>();
    const copies: WalRow[] = [];
    await scanWal('s1', 7, chunks(BASE_BYTES, 7), {
      header: () => true,
      row: (row) => {
        seen.add(row);
        copies.push({ ...row });
      },
      reuseRows: true,
    });
    const { rows } = decodeWal(KEY, BASE_BYTES);
    expect(rows.length).toBeGreaterThan(1);
    expect(seen.size).toBe(1);
    expect(copies).toEqual(rows);
  });

  it('throws the same errors when the sink asks to wait at every row', async () => {
    for (const { bytes } of CORRUPT_CASES) {
      const expected = await caught(() => decodeWal(KEY, bytes));
      const thrown = await caught(() => scanned(bytes, 65_536, 1));
      expect(thrown.message).toBe(expected.message);
    }
  });

  it('stops after the header when the sink says so, reporting an incomplete scan', async () => {
    const rows: WalRow[] = [];
    const complete = await scanWal('s1', 7, chunks(BASE_BYTES, 16), {
      header: () => false,
      row: (r) => void rows.push(r),
    });
    expect(complete).toBe(false);
    expect(rows).toEqual([]);
    expect(BASE.rows.length).toBeGreaterThan(0);
  });

  it('rejects an object whose header names another position than the key', async () => {
    const error = await caught(() =>
      scanWal('s1', 8, chunks(BASE_BYTES, 64), { header: () => true, row: () => undefined }),
    );
    expect(error.message).toContain('header says shard s1 position 7, but the key says otherwise');
  });

  for (const { when, bytes, error } of CORRUPT_CASES) {
    it(`throws the same ${error.name} as decodeWal when ${when}`, async () => {
      const expected = await caught(() => decodeWal(KEY, bytes));
      const thrown = await caught(() => scanned(bytes, 5));
      expect(thrown).toBeInstanceOf(error);
      expect(thrown.message).toBe(expected.message);
    });
  }
});
