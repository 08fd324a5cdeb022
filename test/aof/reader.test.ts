import { Readable } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeAof, peekAofHeader, readAof, scanAof } from '../../lib/aof/reader.js';
import {
  CorruptDataError,
  UnknownFormatVersionError,
  UnknownRecordTagError,
} from '../../lib/errors.js';
import { aofKey } from '../../lib/paths.js';
import { compareKeyIds } from '../../lib/rows/key-id.js';
import { bodyLines, caught, chunks, editText, reframe } from '../wal/helpers.js';
import { AOF_KEY, aofObject, writeAof } from './helpers.js';

const SEED = 20_260_312;

/** Reads through the streaming reader to the end. */
async function readAll(key: string, bytes: Uint8Array, size = 7): Promise<void> {
  for await (const _ of readAof(key, chunks(bytes, size))) {
    // drain
  }
}

/** Re-frames the export's lines after `edit` changes them, with a correct trailer. */
async function reframed(
  edit: (lines: Record<string, unknown>[]) => Record<string, unknown>[],
): Promise<Uint8Array> {
  const lines = bodyLines(await writeAof(aofObject())).map((line) => JSON.parse(line));
  return reframe(edit(lines).map((line) => JSON.stringify(line)));
}

interface Case {
  when: string;
  bytes: () => Promise<Uint8Array>;
  error: new (...args: never[]) => CorruptDataError;
  message: string;
}

const CASES: Case[] = [
  {
    when: 'the version is unknown',
    bytes: () => reframed(([h, ...rest]) => [{ ...h, v: 3 }, ...rest]),
    error: UnknownFormatVersionError,
    message: 'unknown AOF format version 3; this reader supports 1, 2',
  },
  {
    when: 'a record tag is unknown',
    bytes: () => reframed((lines) => [...lines.slice(0, 2), { t: 'x', s: 1 }, ...lines.slice(2)]),
    error: UnknownRecordTagError,
    message: 'line 3: unknown record tag "x"',
  },
  {
    when: 'the magic is a WAL object',
    bytes: () => reframed(([h, ...rest]) => [{ ...h, magic: 'shardwal-wal' }, ...rest]),
    error: CorruptDataError,
    message: 'expected magic "shardwal-aof", got "shardwal-wal"',
  },
  {
    when: 'a byte of content changed under the checksum',
    bytes: async () =>
      editText(await writeAof(aofObject()), (text) => text.replace('"v":1}', '"v":5}')),
    error: CorruptDataError,
    message: 'checksum mismatch',
  },
  {
    when: 'the compressed bytes are cut short',
    bytes: async () => {
      const bytes = await writeAof(aofObject());
      return bytes.subarray(0, bytes.length - 9);
    },
    error: CorruptDataError,
    message: 'not a valid gzip stream',
  },
  {
    when: 'the trailer is missing',
    bytes: async () =>
      editText(
        await writeAof(aofObject()),
        (text) => text.split('\n').slice(0, -2).join('\n') + '\n',
      ),
    error: CorruptDataError,
    message: 'truncated: no trailer',
  },
  {
    when: 'a keyed record follows a keyless one',
    bytes: () => reframed(([h, k1, k2, k3, ...keyless]) => [h!, k1!, k2!, ...keyless, k3!]),
    error: CorruptDataError,
    message: 'a keyed record after a keyless one',
  },
  {
    when: 'keys do not strictly ascend',
    bytes: () => reframed(([h, k1, k2, ...rest]) => [h!, k2!, k1!, ...rest]),
    error: CorruptDataError,
    message: 'keys strictly ascend',
  },
  {
    when: 'the header counts disagree with the records',
    bytes: () => reframed(([h, ...rest]) => [{ ...h, keylessCount: 4 }, ...rest]),
    error: CorruptDataError,
    message: 'header says 4 keyed and 4 keyless records, the export has 4 and 3',
  },
  {
    when: 'a row offset is at or beyond nextRowOffset',
    bytes: () => reframed(([h, ...rest]) => [{ ...h, nextRowOffset: 20 }, ...rest]),
    error: CorruptDataError,
    message: 'offset 20 is outside [0, 20)',
  },
  {
    when: 'a record has an unknown field',
    bytes: () => reframed(([h, k1, ...rest]) => [h!, { ...k1, extra: 1 }, ...rest]),
    error: CorruptDataError,
    message: 'unknown fields [extra]',
  },
];

describe(decodeAof, () => {
  for (const { when, bytes, error, message } of CASES) {
    it(`throws ${error.name} naming the key when ${when}`, async () => {
      const thrown = await caught(async () => decodeAof(AOF_KEY, await bytes()));
      expect(thrown).toBeInstanceOf(error);
      expect(thrown.message).toContain(AOF_KEY);
      expect(thrown.message).toContain(message);
    });
  }

  it('throws when the header names another covered position than the key', async () => {
    const thrown = await caught(async () =>
      decodeAof(aofKey('s1', 13), await writeAof(aofObject())),
    );
    expect(thrown).toBeInstanceOf(CorruptDataError);
    expect(thrown.message).toContain(
      'header says shard s1 coveredPosition 12, but the key says otherwise',
    );
  });
});

describe(readAof, () => {
  it('round-trips random exports through the streaming reader in random chunk sizes', async () => {
    const rowArb = fc
      .dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 })
      .map((row) => JSON.parse(JSON.stringify(row)));
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.string({ unit: 'binary', maxLength: 10 }), { maxLength: 30 }),
        fc.array(rowArb, { maxLength: 60 }),
        fc.integer({ min: 1, max: 300 }),
        async (keys, keylessRows, chunkSize) => {
          const sorted = keys.map((key) => JSON.stringify(key)).sort(compareKeyIds);
          const object = aofObject({
            keyed: sorted.map((key, i) => ({
              key,
              seq: 1 + i,
              offset: 2 * i,
              text: `{"key":${key}}`,
            })),
            keyless: keylessRows.map((row, i) => ({
              seq: 1 + i,
              offset: 2 * i + 1,
              text: JSON.stringify(row),
            })),
            header: { lastSeq: 100, nextRowOffset: 200 } as never,
          });
          object.header.keyedCount = object.keyed.length;
          object.header.keylessCount = object.keyless.length;
          const bytes = await writeAof(object);
          const read = {
            header: undefined as unknown,
            keyed: [] as unknown[],
            keyless: [] as unknown[],
          };
          for await (const entry of readAof(AOF_KEY, chunks(bytes, chunkSize))) {
            if (entry.kind === 'header') read.header = entry.header;
            else read[entry.kind].push(entry.row);
          }
          expect(read).toStrictEqual(object);
        },
      ),
      { seed: SEED, numRuns: 60 },
    );
  });

  for (const { when, bytes, error } of CASES) {
    it(`throws the same ${error.name} as decodeAof when ${when}`, async () => {
      const data = await bytes();
      const expected = await caught(() => decodeAof(AOF_KEY, data));
      const thrown = await caught(() => readAll(AOF_KEY, data));
      expect(thrown).toBeInstanceOf(error);
      expect(thrown.message).toBe(expected.message);
    });
  }
});

describe(scanAof, () => {
  it('hands the sink what decodeAof returns, and resolves to the header', async () => {
    const object = aofObject();
    const got = { header: undefined as unknown, keyed: [] as unknown[], keyless: [] as unknown[] };
    const header = await scanAof(AOF_KEY, chunks(await writeAof(object), 3), {
      header: (h) => {
        got.header = h;
      },
      keyed: (row) => void got.keyed.push(row),
      keyless: (row) => void got.keyless.push(row),
    });
    expect(header).toStrictEqual(object.header);
    expect(got).toStrictEqual(object);
  });

  for (const { when, bytes, error } of CASES) {
    it(`throws the same ${error.name} as decodeAof when ${when}`, async () => {
      const data = await bytes();
      const expected = await caught(() => decodeAof(AOF_KEY, data));
      const thrown = await caught(() =>
        scanAof(AOF_KEY, chunks(data, 11), { keyed: () => {}, keyless: () => undefined }),
      );
      expect(thrown).toBeInstanceOf(error);
      expect(thrown.message).toBe(expected.message);
    });
  }
});

describe(peekAofHeader, () => {
  it('returns the header without reading the rest', async () => {
    const object = aofObject();
    const stream = Readable.from([Buffer.from(await writeAof(object))]);
    expect(await peekAofHeader(AOF_KEY, stream)).toStrictEqual(object.header);
    expect(stream.destroyed).toBe(true);
  });
});
