/**
 * `npm run bench:codec`: weighs batch codecs on measured write units. On the
 * same seeded puts of 100 event-like 1 KB rows (and the low-compressibility
 * variant), for gzip levels 1/6/9, brotli qualities 4/6/9/11 and deflate
 * with a preset dictionary trained from sample rows: the compressed batch
 * size, the write units of the batch item (1 KB units, with the item's
 * other attributes), and the CPU time to compress and to decompress one put.
 * The last column prices a million puts at the dated price table
 * (`billing/prices.ts`): the batch item's write units plus the put
 * function's compress CPU (512 MB, x86): the put path's gzip level is chosen
 * by it (`lib/memtable/batch-codec.ts`). Since WAL v3 the flusher writes the
 * put's compressed bytes as they are, so nothing else compresses the rows
 * again before the export.
 *
 * Node 20's zlib has no brotli custom dictionary (no shared-dictionary
 * parameter among its BROTLI_PARAM_* constants) and no zstd, so the
 * dictionary variant is zlib's `dictionary` option on deflate.
 *
 *   node --import tsx bench/cost/codec.ts [puts] [codec name prefix, e.g. gzip]
 */
import {
  brotliCompressSync,
  brotliDecompressSync,
  constants,
  deflateSync,
  gunzipSync,
  gzipSync,
  inflateSync,
} from 'node:zlib';
import { rowsHeadItem } from '../../lib/memtable/batch-item.js';
import { writeUnits } from './billing/dynamodb-units.js';
import { itemSize } from './billing/item-size.js';
import { PRICES_US_EAST_1, priceOf } from './billing/prices.js';
import { putBodyText, RowVariant, rowGenerator } from './rows.js';
import { textTable } from './text-table.js';

/** One codec under test. */
export interface Codec {
  name: string;
  compress: (input: Buffer) => Buffer;
  decompress: (input: Buffer) => Buffer;
}

/**
 * Bytes of a batch item's attributes other than its payload: the head item
 * `lib/memtable/batch-item.ts` writes for an idempotent put of 100 rows
 * (the client keys every batch), with an empty payload.
 */
export const BATCH_ITEM_OVERHEAD_BYTES = itemSize(
  rowsHeadItem({
    shard: 's000',
    seq: 1,
    parts: 1,
    rowCount: 100,
    bytes: 102_400,
    nowMs: 1_796_000_000_000,
    expiresAt: { N: '1796086400' },
    putId: '3a9274b8-867f-4a48-aac7-e26898098d0c',
    payload: { data: new Uint8Array(0) },
    allocatedAtMs: 1_796_000_000_000,
    chargeEnd: 10_240_000,
    idempotencyKey: '7f3c2a91-5d0e-4b7a-9c61-2e8d4f0b1a33',
  }),
);

/** Write units of a batch item holding `payloadBytes` of compressed rows. */
export function batchItemWriteUnits(payloadBytes: number): number {
  return writeUnits(payloadBytes + BATCH_ITEM_OVERHEAD_BYTES);
}

/** zlib's window: a preset dictionary longer than this is cut to its last 32 KB. */
export const DICTIONARY_BYTES = 32 * 1024;

/**
 * A preset dictionary: sample rows of another seed, concatenated, its last
 * `DICTIONARY_BYTES` kept (deflate looks back from the end, so the most
 * common strings are best placed last; the samples are alike, so the order
 * matters little).
 */
export function trainDictionary(variant: RowVariant, seed: number): Buffer {
  const sample = Buffer.from(
    rowGenerator({ variant, seed })
      .take(64)
      .map((row) => JSON.stringify(row))
      .join(','),
  );
  return sample.subarray(Math.max(0, sample.length - DICTIONARY_BYTES));
}

/** The codecs weighed. */
export function codecs(dictionary: Buffer): Codec[] {
  const gzip = (level: number): Codec => ({
    name: `gzip ${level}`,
    compress: (b) => gzipSync(b, { level }),
    decompress: (b) => gunzipSync(b),
  });
  const brotli = (quality: number): Codec => ({
    name: `brotli ${quality}`,
    compress: (b) =>
      brotliCompressSync(b, {
        params: {
          [constants.BROTLI_PARAM_QUALITY]: quality,
          [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
          [constants.BROTLI_PARAM_SIZE_HINT]: b.length,
        },
      }),
    decompress: (b) => brotliDecompressSync(b),
  });
  const dict = (level: number): Codec => ({
    name: `deflate ${level} + dictionary`,
    compress: (b) => deflateSync(b, { level, dictionary }),
    decompress: (b) => inflateSync(b, { dictionary }),
  });
  return [gzip(1), gzip(6), gzip(9), brotli(4), brotli(6), brotli(9), brotli(11), dict(6), dict(9)];
}

/** Figures of one codec over a set of puts. */
export interface CodecResult {
  codec: string;
  meanBytes: number;
  ratio: number;
  meanWriteUnits: number;
  /** Write units relative to gzip 6 (negative: fewer). */
  vsGzip6: number;
  compressUs: number;
  decompressUs: number;
}

/** Weighs `list` on `puts` (each the JSON text of one put's rows). */
export function weigh(
  list: readonly Codec[],
  puts: readonly Buffer[],
  timingPuts: number,
): CodecResult[] {
  const raw = puts.reduce((s, p) => s + p.length, 0);
  const results = list.map((codec) => {
    const compressed = puts.map((p) => codec.compress(p));
    for (let i = 0; i < puts.length; i++) {
      if (!codec.decompress(compressed[i]!).equals(puts[i]!)) {
        throw new Error(`${codec.name} does not round-trip put ${i}`);
      }
    }
    const bytes = compressed.reduce((s, c) => s + c.length, 0);
    const units = compressed.reduce((s, c) => s + batchItemWriteUnits(c.length), 0);
    const sample = puts.slice(0, timingPuts);
    const packed = compressed.slice(0, timingPuts);
    return {
      codec: codec.name,
      meanBytes: bytes / puts.length,
      ratio: raw / bytes,
      meanWriteUnits: units / puts.length,
      vsGzip6: 0,
      compressUs: cpuMicrosPer(sample, (p) => codec.compress(p)),
      decompressUs: cpuMicrosPer(packed, (c) => codec.decompress(c)),
    };
  });
  const base = results.find((r) => r.codec === 'gzip 6')?.meanWriteUnits ?? 1;
  for (const r of results) r.vsGzip6 = r.meanWriteUnits / base - 1;
  return results;
}

/** CPU µs per item of `fn` over `items`: the best of three passes (less noise from other work). */
function cpuMicrosPer<T>(items: readonly T[], fn: (item: T) => unknown): number {
  let best = Number.POSITIVE_INFINITY;
  for (let pass = 0; pass < 3; pass++) {
    const start = process.cpuUsage();
    for (const item of items) fn(item);
    const used = process.cpuUsage(start);
    best = Math.min(best, (used.user + used.system) / items.length);
  }
  return best;
}

/** The JSON text of `count` puts of `rowsPerPut` rows, as the batch codec compresses them. */
export function putPayloads(
  variant: RowVariant,
  seed: number,
  count: number,
  rowsPerPut = 100,
): Buffer[] {
  const rows = rowGenerator({ variant, seed });
  return Array.from({ length: count }, () => Buffer.from(JSON.stringify(rows.take(rowsPerPut))));
}

/** The put function's memory (GB) whose CPU time compresses a batch. */
const PUT_FUNCTION_GB = 0.5;

/** Dollars per million puts of a codec: the batch item's write units plus the put's compress CPU. */
function dollarsPerMillionPuts(r: { meanWriteUnits: number; compressUs: number }): number {
  const { dynamodb, lambda } = PRICES_US_EAST_1;
  const units = priceOf(dynamodb.writeRequestUnit, r.meanWriteUnits * 1e6);
  const cpu = priceOf(lambda.x86GbSecond, (r.compressUs / 1e6) * PUT_FUNCTION_GB * 1e6);
  return units + cpu;
}

async function main(): Promise<void> {
  const count = Number(process.argv[2] ?? 100);
  const timingPuts = Math.min(count, 20);
  const started = performance.now();
  console.log(
    `codec weighing: ${count} seeded puts of 100 rows per variant; write units of the batch item ` +
      `(payload + ${BATCH_ITEM_OVERHEAD_BYTES} bytes of other attributes, 1 KB units); CPU µs per put ` +
      `on this machine (best of 3 passes over ${timingPuts} puts: timing-dependent)`,
  );
  for (const variant of [RowVariant.event, RowVariant.random]) {
    const puts = putPayloads(variant, 7, count);
    const body = putBodyText(rowGenerator({ variant, seed: 7 }).take(100));
    const only = process.argv[3];
    const chosen = codecs(trainDictionary(variant, 1_000)).filter(
      (codec) => only === undefined || codec.name.startsWith(only),
    );
    const results = weigh(chosen, puts, timingPuts);
    console.log(
      `\n${variant} rows: ${(puts.reduce((s, p) => s + p.length, 0) / count / 1024).toFixed(1)} KiB JSON per put ` +
        `(gzip 6 ratio of a 100-row put body: ${(Buffer.byteLength(body) / gzipSync(body, { level: 6 }).length).toFixed(2)})`,
    );
    console.log(
      textTable(
        results.map((r) => ({
          codec: r.codec,
          'bytes/put': Math.round(r.meanBytes),
          ratio: Number(r.ratio.toFixed(2)),
          'WCU/put': Number(r.meanWriteUnits.toFixed(2)),
          'vs gzip 6': `${(r.vsGzip6 * 100).toFixed(1)} %`,
          'compress µs/put': Math.round(r.compressUs),
          'decompress µs/put': Math.round(r.decompressUs),
          '$/M puts (WCU + CPU)': Number(dollarsPerMillionPuts(r).toFixed(3)),
        })),
      ),
    );
  }
  console.log(`\ntook ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

if (process.argv[1] && import.meta.url === new URL(process.argv[1], 'file://').href) {
  await main();
}
