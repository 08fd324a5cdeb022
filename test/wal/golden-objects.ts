/**
 * The golden WAL objects: what fixtures/golden-v1.jsonl(.gz) and
 * fixtures/golden-v2.jsonl(.gz) hold. `golden.test.ts` checks the encoder and
 * reader against them; the .gz files are committed once and never regenerated.
 */
import type { WalObject } from '../../lib/wal/format.js';

/**
 * The object behind fixtures/golden-v1.jsonl(.gz), as this code reads it: v1
 * wrote keys as strings and rows through JSON.stringify; they read as string
 * key ids and that text.
 */
export const GOLDEN_V1: WalObject = {
  header: {
    shard: 'orders-eu',
    position: 42,
    epoch: 5,
    firstSeq: 1000,
    lastSeq: 1003,
    firstRowOffset: 5000,
    rowCount: 5,
    voidSeqs: [1002],
    createdAtMs: 1_712_345_678_901,
  },
  rows: [
    {
      seq: 1000,
      offset: 5000,
      key: '"user-1"',
      text: '{"name":"Zoë","city":"Zürich","n":1,"tags":["a","b"],"nested":{"ok":true,"none":null}}',
    },
    {
      seq: 1000,
      offset: 5001,
      text: '{"event":"click","emoji":"🚀","cjk":"日本語","quote":"say \\"hi\\"\\nnext\\tline"}',
    },
    { seq: 1001, offset: 5002, key: '"user-2"', text: '{}' },
    { seq: 1003, offset: 5003, key: '"user-1"', delete: true },
    { seq: 1003, offset: 5004, text: '{"n":-1.5,"max":9007199254740991,"exp":1e+21}' },
  ],
};

/**
 * The object behind fixtures/golden-v2.jsonl(.gz): rows exactly as sent
 * (20-digit numbers, 1e400, -0, exponents and escapes as spelled), string and
 * number keys, a delete, a void.
 */
export const GOLDEN_V2: WalObject = {
  header: {
    ...GOLDEN_V1.header,
    position: 43,
    firstSeq: 1004,
    lastSeq: 1007,
    firstRowOffset: 5005,
    voidSeqs: [1006],
  },
  rows: [
    {
      seq: 1004,
      offset: 5005,
      key: '12345678901234567890',
      text: '{"id":12345678901234567890,"big":1e400,"neg":-0,"sci":1E2,"name":"Zo\\u00eb"}',
    },
    {
      seq: 1004,
      offset: 5006,
      key: '"12345678901234567890"',
      text: '{"id":"12345678901234567890"}',
    },
    { seq: 1005, offset: 5007, text: '{"emoji":"🚀","nested":{"a":[1.50,{"b":null}]}}' },
    { seq: 1007, offset: 5008, key: '12345678901234567890', delete: true },
    { seq: 1007, offset: 5009, key: '1e+400', text: '{"id":1E400}' },
  ],
};

/** When the golden v3 object's batches were buffered, by seq (ms since the Unix epoch). */
const GOLDEN_V3_INGESTED_AT: Record<number, number> = {
  1008: 1_712_345_677_001,
  1009: 1_712_345_677_502,
  1011: 1_712_345_678_250,
};

/**
 * The object behind fixtures/golden-v3.wal.gz and golden-v3.jsonl: the v2
 * golden rows again, each batch a gzip member as the put path compressed it,
 * behind a batch frame that gives its rows seq, offset and buffering time.
 */
export const GOLDEN_V3: WalObject = {
  header: {
    ...GOLDEN_V2.header,
    position: 44,
    firstSeq: 1008,
    lastSeq: 1011,
    firstRowOffset: 5010,
    voidSeqs: [1010],
  },
  rows: GOLDEN_V2.rows.map((row, i) => {
    const seq = row.seq + 4;
    return { ...row, seq, offset: 5010 + i, ingestedAtMs: GOLDEN_V3_INGESTED_AT[seq]! };
  }),
};
