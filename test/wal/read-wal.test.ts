import { describe, expect, it } from 'vitest';
import { CorruptDataError } from '../../lib/errors.js';
import { decodeWal, readWal } from '../../lib/wal/decode.js';
import { BASE, BASE_BYTES, CORRUPT_CASES } from './corrupt-cases.js';
import { caught, chunks, KEY, readWalObject } from './helpers.js';

describe(readWal, () => {
  describe('when the object is valid', () => {
    for (const size of [1, 7, 65_536]) {
      it(`yields what decodeWal returns when chunks are ${size} bytes`, async () => {
        expect(await readWalObject(KEY, BASE_BYTES, size)).toStrictEqual(
          decodeWal(KEY, BASE_BYTES),
        );
      });
    }

    it('yields the header before any row', async () => {
      const kinds: string[] = [];
      for await (const entry of readWal(KEY, chunks(BASE_BYTES, 16))) kinds.push(entry.kind);
      expect(kinds).toEqual(['header', ...BASE.rows.map(() => 'row')]);
    });

    it('stops cleanly when the consumer breaks after the header', async () => {
      for await (const entry of readWal(KEY, chunks(BASE_BYTES, 16))) {
        expect(entry).toStrictEqual({ kind: 'header', header: BASE.header });
        break;
      }
    });
  });

  describe('when the object is damaged or foreign', () => {
    for (const { when, bytes, error } of CORRUPT_CASES) {
      it(`throws the same ${error.name} as decodeWal when ${when}`, async () => {
        const expected = await caught(() => decodeWal(KEY, bytes));
        const thrown = await caught(() => readWalObject(KEY, bytes, 5));
        expect(thrown).toBeInstanceOf(error);
        expect(thrown.message).toBe(expected.message);
      });
    }
  });

  it('passes a source error through unchanged when the stream fails', async () => {
    const failure = new Error('socket reset');
    async function* failing(): AsyncGenerator<Uint8Array> {
      yield BASE_BYTES.subarray(0, 20);
      throw failure;
    }
    const thrown = await caught(async () => {
      for await (const _ of readWal(KEY, failing())) {
        // drain
      }
    });
    expect(thrown).toBe(failure);
    expect(thrown).not.toBeInstanceOf(CorruptDataError);
  });
});
