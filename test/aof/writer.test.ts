import { gunzipSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AOF_MAGIC } from '../../lib/aof/format.js';
import {
  AOF_FRAME,
  AofTag,
  headerFields,
  keyedFields,
  keylessFields,
} from '../../lib/aof/lines-v1.js';
import { decodeAof, readAof } from '../../lib/aof/reader.js';
import { AofWriter } from '../../lib/aof/writer.js';
import { InternalError } from '../../lib/errors.js';
import { compareKeyIds } from '../../lib/rows/key-id.js';
import { encodeFrame } from '../../lib/wal/framing.js';
import { caught, chunks } from '../wal/helpers.js';
import { AOF_KEY, aofObject, writeAof } from './helpers.js';

const SEED = 20_260_312;

describe(AofWriter, () => {
  describe('finish', () => {
    it('writes what decodeAof reads back', async () => {
      const object = aofObject();
      expect(decodeAof(AOF_KEY, await writeAof(object))).toStrictEqual(object);
    });

    it('writes the same uncompressed text the shared framing writes for the same records', async () => {
      const object = aofObject();
      const framed = encodeFrame(AOF_FRAME, headerFields(object.header), [
        ...object.keyed.map((row) => ({ tag: AofTag.keyed, fields: keyedFields(row) })),
        ...object.keyless.map((row) => ({ tag: AofTag.keyless, fields: keylessFields(row) })),
      ]);
      const text = gunzipSync(await writeAof(object)).toString('utf8');
      expect(text).toBe(gunzipSync(framed).toString('utf8'));
      expect(JSON.parse(text.split('\n')[0]!)).toMatchObject({ t: 'h', magic: AOF_MAGIC, v: 2 });
    });

    it('writes an export with no rows at all', async () => {
      const object = aofObject({ keyed: [], keyless: [] });
      expect(decodeAof(AOF_KEY, await writeAof(object))).toStrictEqual(object);
    });

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

    it('refuses keyed rows out of key order', async () => {
      const object = aofObject();
      object.keyed.reverse();
      expect(await caught(() => writeAof(object))).toBeInstanceOf(InternalError);
    });

    it('refuses a keyed row count other than the header says', async () => {
      const object = aofObject();
      object.header.keyedCount = 7;
      const error = await caught(() => writeAof(object));
      expect(error).toBeInstanceOf(InternalError);
      expect(error.message).toContain('header says 7 keyed rows, 4 were given');
    });

    it('refuses keyless rows whose offsets do not ascend', async () => {
      const writer = new AofWriter(AOF_KEY);
      await writer.keyless({ seq: 1, offset: 5, text: '{}' });
      expect(await caught(() => writer.keyless({ seq: 1, offset: 5, text: '{}' }))).toBeInstanceOf(
        InternalError,
      );
      writer.abort();
    });
  });
});
