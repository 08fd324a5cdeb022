import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InvalidUtf8Error } from '../../lib/json/errors.js';
import { decodeUtf8Strict, findInvalidUtf8 } from '../../lib/json/utf8.js';
import { caught } from './helpers.js';

const SEED = 4_242;
const strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

const bytes = (...values: number[]) => Uint8Array.from(values);

describe('decodeUtf8Strict', () => {
  it('decodes ASCII, 2-, 3- and 4-byte sequences', () => {
    const text = 'a é € 𝄞 東京';
    expect(decodeUtf8Strict(Buffer.from(text, 'utf8'))).toBe(text);
  });

  it('keeps a leading byte order mark as U+FEFF for the parser to judge', () => {
    expect(decodeUtf8Strict(bytes(0xef, 0xbb, 0xbf, 0x7b, 0x7d))).toBe('\uFEFF{}');
  });

  it('decodes a view into a larger buffer at its own offset', () => {
    const whole = Buffer.from('xx{"a":"é"}yy', 'utf8');
    expect(decodeUtf8Strict(whole.subarray(2, whole.length - 2))).toBe('{"a":"é"}');
  });

  it.each([
    ['a lone continuation byte', bytes(0x61, 0x80), 1, 'unexpected continuation byte 0x80'],
    ['a byte never used in UTF-8', bytes(0x7b, 0xff, 0x7d), 1, 'byte 0xFF never appears in UTF-8'],
    ['an overlong slash', bytes(0xc0, 0xaf), 0, 'byte 0xC0 never appears in UTF-8'],
    ['an overlong 3-byte NUL', bytes(0x20, 0xe0, 0x80, 0x80), 1, 'overlong encoding of U+0000'],
    ['an overlong 4-byte form', bytes(0xf0, 0x8f, 0xbf, 0xbf), 0, 'overlong encoding of U+FFFF'],
    ['an encoded surrogate', bytes(0x22, 0xed, 0xa0, 0x80, 0x22), 1, 'encoded surrogate U+D800'],
    [
      'a code point above U+10FFFF',
      bytes(0xf4, 0x90, 0x80, 0x80),
      0,
      'code point U+110000 above U+10FFFF',
    ],
    [
      'a sequence cut by the end',
      bytes(0x61, 0x62, 0xe2, 0x82),
      2,
      'truncated sequence at end of input',
    ],
    [
      'a sequence cut by an ASCII byte',
      bytes(0x61, 0xe2, 0x41, 0x41),
      1,
      'expected a continuation byte at 2, got 0x41',
    ],
  ])('refuses %s, naming the first bad byte', (_, input, offset, detail) => {
    const error = caught(InvalidUtf8Error, () => decodeUtf8Strict(input));
    expect(error.byteOffset).toBe(offset);
    expect(error.message).toBe(`body: invalid UTF-8 at byte ${offset}: ${detail}`);
    expect(error.kind).toBe('invalid_input');
  });

  it('names the field it was given', () => {
    expect(caught(InvalidUtf8Error, () => decodeUtf8Strict(bytes(0xff), 'message')).field).toBe(
      'message',
    );
  });

  it('agrees with a fatal TextDecoder on random bytes, and the walk agrees on where', () => {
    // Bias toward bytes that form (and almost form) multi-byte sequences.
    const byteArb = fc.oneof(
      fc.integer({ min: 0x00, max: 0x7f }),
      fc.integer({ min: 0x80, max: 0xbf }),
      fc.integer({ min: 0xc0, max: 0xff }),
    );
    fc.assert(
      fc.property(fc.array(byteArb, { maxLength: 24 }), (values) => {
        const input = Uint8Array.from(values);
        let expected: string | undefined;
        try {
          expected = strict.decode(input);
        } catch {
          expected = undefined;
        }
        if (expected === undefined) {
          const error = caught(InvalidUtf8Error, () => decodeUtf8Strict(input));
          // Everything before the reported byte decodes; the reported sequence does not.
          expect(() => strict.decode(input.subarray(0, error.byteOffset))).not.toThrow();
          expect(findInvalidUtf8(input)?.offset).toBe(error.byteOffset);
        } else {
          expect(decodeUtf8Strict(input)).toBe(expected);
          expect(findInvalidUtf8(input)).toBeUndefined();
        }
      }),
      { seed: SEED, numRuns: 3000 },
    );
  });

  it('decodes any well-formed text back to itself', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 40 }), (text) => {
        expect(decodeUtf8Strict(Buffer.from(text, 'utf8'))).toBe(text);
      }),
      { seed: SEED, numRuns: 500 },
    );
  });
});
