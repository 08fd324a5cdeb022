/**
 * WAL format v3 (docs/wal-format.md, "Version 3"): the batches' own gzip
 * members behind batch frames. The golden object pins the bytes; the three
 * readers (`decodeWal`, `readWal`, recovery's `scanWal`) agree on it, and each
 * frame rule fails loud.
 */
import { readFileSync } from 'node:fs';
import { crc32, gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { CorruptDataError, InternalError } from '../../lib/errors.js';
import { walKey } from '../../lib/paths.js';
import { scanWal } from '../../lib/recovery/wal-scan.js';
import { crc32Combine } from '../../lib/wal/crc32-combine.js';
import { decodeWal } from '../../lib/wal/decode.js';
import { encodeWalBatches } from '../../lib/wal/encode-batches.js';
import type { WalRow } from '../../lib/wal/format.js';
import { GOLDEN_V3 } from './golden-objects.js';
import { framedBatches } from './golden-v3.js';
import { chunks, readWalObject, reframe } from './helpers.js';

const fixture = (name: string) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url));
const KEY = walKey('orders-eu', 44);
const GOLDEN_TEXT = () => fixture('golden-v3.jsonl').toString('utf8');

/** The golden text's lines (trailer dropped) with `edit` applied, behind a correct trailer. */
function edited(edit: (lines: string[]) => string[]): Uint8Array {
  return reframe(edit(GOLDEN_TEXT().split('\n').slice(0, -2)));
}

describe('WAL format v3', () => {
  describe(encodeWalBatches, () => {
    it('writes exactly the checked-in golden bytes, every batch member as the put compressed it', () => {
      const batches = framedBatches(GOLDEN_V3);
      const bytes = Buffer.from(encodeWalBatches(GOLDEN_V3.header, batches));
      expect(bytes.equals(fixture('golden-v3.wal.gz'))).toBe(true);
      for (const batch of batches) expect(bytes.indexOf(batch.member)).toBeGreaterThan(0);
    });

    it('refuses a payload that is not one gzip member of the stated length', () => {
      const batches = framedBatches(GOLDEN_V3);
      batches[1] = { ...batches[1]!, textBytes: batches[1]!.textBytes + 1 };
      expect(() => encodeWalBatches(GOLDEN_V3.header, batches)).toThrow(InternalError);
    });

    it('refuses a frame whose rows disagree with the header row count', () => {
      const header = { ...GOLDEN_V3.header, rowCount: 4 };
      expect(() => encodeWalBatches(header, framedBatches(GOLDEN_V3))).toThrow(InternalError);
    });
  });

  describe(decodeWal, () => {
    it('reads the golden object: seq, offset and buffering time from each frame', () => {
      expect(decodeWal(KEY, fixture('golden-v3.wal.gz'))).toStrictEqual(GOLDEN_V3);
    });

    it('leaves out the buffering time when ingestedAt is false, and nothing else', () => {
      const rows = GOLDEN_V3.rows.map(({ ingestedAtMs: _at, ...row }) => row);
      const decoded = decodeWal(KEY, fixture('golden-v3.wal.gz'), { ingestedAt: false });
      expect(decoded).toStrictEqual({ header: GOLDEN_V3.header, rows });
    });

    it('finds the golden gzip object and the golden text in agreement, as gzip -dc would', () => {
      expect(gunzipSync(fixture('golden-v3.wal.gz')).toString('utf8')).toBe(GOLDEN_TEXT());
    });

    const cases: Array<{ when: string; bytes: () => Uint8Array; message: RegExp }> = [
      {
        when: 'a frame promises more rows than follow it',
        bytes: () =>
          edited((l) =>
            l.map((x) => x.replace('"s":1009,"o":5012,"n":1', '"s":1009,"o":5012,"n":2')),
          ),
        message: /batch frame of seq 1009 holds 2 rows, 1 followed it/,
      },
      {
        when: 'a frame has fewer rows than follow it',
        bytes: () =>
          edited((l) =>
            l.map((x) => x.replace('"s":1008,"o":5010,"n":2', '"s":1008,"o":5010,"n":1')),
          ),
        message: /more rows than batch frame of seq 1008 holds \(1\)/,
      },
      {
        when: 'a frame names the wrong first offset',
        bytes: () => edited((l) => l.map((x) => x.replace('"o":5012', '"o":5013'))),
        message: /batch frame offset 5013, expected 5012/,
      },
      {
        when: 'a row comes before any frame',
        bytes: () => edited((l) => [l[0]!, l[2]!, l[1]!, ...l.slice(3)]),
        message: /line 2: a row before any batch frame/,
      },
      {
        when: 'a row of a v3 object names its own seq',
        bytes: () =>
          edited((l) => l.map((x) => x.replace('{"t":"r","row"', '{"t":"r","s":1009,"row"'))),
        message: /unknown row fields \[s\]/,
      },
      {
        when: 'a frame has no buffering time',
        bytes: () => edited((l) => l.map((x) => x.replace(',"at":1712345677502', ''))),
        message: /batch frame missing fields \[at\]/,
      },
    ];
    for (const c of cases) {
      it(`throws CorruptDataError naming the key when ${c.when}`, async () => {
        const bytes = c.bytes();
        expect(() => decodeWal(KEY, bytes)).toThrow(CorruptDataError);
        expect(() => decodeWal(KEY, bytes)).toThrow(c.message);
        await expect(readWalObject(KEY, bytes, 7)).rejects.toThrow(c.message);
        await expect(scanRows(bytes)).rejects.toThrow(c.message);
      });
    }

    it('throws a checksum mismatch when two batch members trade places', () => {
      const golden = fixture('golden-v3.wal.gz');
      const [first, second] = framedBatches(GOLDEN_V3).map((b) => Buffer.from(b.member));
      const a = golden.indexOf(first!);
      const b = golden.indexOf(second!);
      // Same-length members would swap silently in a naive reader; these differ, so swap frames too.
      const swapped = Buffer.concat([
        golden.subarray(0, a),
        second!,
        golden.subarray(a + first!.length, b),
        first!,
        golden.subarray(b + second!.length),
      ]);
      expect(() => decodeWal(KEY, swapped)).toThrow(CorruptDataError);
    });
  });

  describe('the streaming readers', () => {
    it('yield what decodeWal returns, whatever the chunk size', async () => {
      const bytes = fixture('golden-v3.wal.gz');
      for (const size of [1, 7, 64, 1 << 16]) {
        expect(await readWalObject(KEY, bytes, size)).toStrictEqual(GOLDEN_V3);
        expect(await scanRows(bytes, size)).toStrictEqual(GOLDEN_V3.rows);
      }
    });
  });

  describe(crc32Combine, () => {
    it('gives the CRC-32 of a concatenation from the CRCs of its parts', () => {
      const parts = ['', 'a', '{"t":"h"}\n', 'x'.repeat(70_000), 'é🚀\n'].map((s) =>
        Buffer.from(s),
      );
      for (const a of parts) {
        for (const b of parts) {
          expect(crc32Combine(crc32(a), crc32(b), b.length)).toBe(crc32(Buffer.concat([a, b])));
        }
      }
    });
  });
});

async function scanRows(bytes: Uint8Array, size = 1 << 16): Promise<WalRow[]> {
  const rows: WalRow[] = [];
  await scanWal('orders-eu', 44, chunks(bytes, size), {
    header: () => true,
    row: (row) => {
      rows.push(row);
    },
  });
  return rows;
}
