import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_SEQ, parseExactInteger, quoteParameter } from '../lib/exact-integer.js';

const SEQ_BOUNDS = { min: 1, max: MAX_SEQ, maxName: 'the largest seq' };

describe('parseExactInteger', () => {
  it('returns exactly the value of any digit string within the bounds, and refuses every other', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.bigInt({ min: 0n, max: 2n ** 70n }).map(String),
          fc.stringMatching(/^0{0,3}[0-9]{1,25}$/),
        ),
        (text) => {
          const exact = BigInt(text);
          const parsed = parseExactInteger(text, SEQ_BOUNDS);
          if (exact >= 1n && exact <= BigInt(MAX_SEQ)) {
            expect(parsed).toEqual({ ok: true, value: Number(exact) });
            expect(BigInt(parsed.ok ? parsed.value : -1)).toBe(exact);
          } else {
            expect(parsed.ok).toBe(false);
          }
        },
      ),
      { seed: 20, numRuns: 2_000 },
    );
  });

  it('names the bound it crossed, quoting the text as sent', () => {
    expect(parseExactInteger('9007199254740992', SEQ_BOUNDS)).toEqual({
      ok: false,
      problem: '"9007199254740992" is above the largest seq, 9007199254740991',
    });
    expect(parseExactInteger('0', SEQ_BOUNDS)).toEqual({
      ok: false,
      problem: 'expected an integer from 1 to 9007199254740991, got "0"',
    });
  });

  it.each(['', '-1', '+1', '1.0', '1e3', ' 1', '1 ', '0x1f', '١', 'Infinity', '1_000'])(
    'refuses %j as not digits only',
    (text) => {
      const parsed = parseExactInteger(text, SEQ_BOUNDS);
      expect(parsed).toEqual({
        ok: false,
        problem: `expected an integer from 1 to 9007199254740991 (digits only), got ${quoteParameter(text)}`,
      });
    },
  );

  it('refuses bounds past the largest exact integer', () => {
    expect(() => parseExactInteger('1', { min: 1, max: MAX_SEQ + 1 })).toThrow(RangeError);
  });
});

describe('quoteParameter', () => {
  it('quotes a short text whole and a long one by its first 40 characters and its length', () => {
    expect(quoteParameter('12')).toBe('"12"');
    expect(quoteParameter('1'.repeat(400))).toBe(`"${'1'.repeat(40)}"… (400 characters)`);
  });
});
