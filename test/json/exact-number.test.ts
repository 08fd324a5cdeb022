import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../lib/errors.js';
import { canonicalNumber, numberFitsDouble } from '../../lib/json/exact-number.js';
import { caught } from './helpers.js';

const SEED = 20_250_214;

/** A JSON spelling of digits × 10^exponent: zeros padded on either side, the point moved, e/E, signs. */
const spellingArb = (digits: string, exponent: number) =>
  fc
    .record({
      leadingZeros: fc.nat(3),
      trailingZeros: fc.nat(3),
      pointAt: fc.nat(digits.length + 6),
      upper: fc.boolean(),
      plus: fc.boolean(),
    })
    .map(({ leadingZeros, trailingZeros, pointAt, upper, plus }) => {
      const all = '0'.repeat(leadingZeros) + digits + '0'.repeat(trailingZeros);
      // Value = all × 10^(exponent − trailingZeros); put the point `fraction` digits from the end.
      const fraction = Math.min(pointAt, all.length - 1);
      let integer = all.slice(0, all.length - fraction).replace(/^0+(?=\d)/, '');
      if (integer === '') integer = '0';
      const decimals = all.slice(all.length - fraction);
      const e = exponent - trailingZeros + fraction;
      const mantissa = decimals === '' ? integer : `${integer}.${decimals}`;
      const mark = upper ? 'E' : 'e';
      return e === 0 && !plus ? mantissa : `${mantissa}${mark}${e >= 0 && plus ? '+' : ''}${e}`;
    });

/** Digits without leading or trailing zeros. */
const digitsArb = fc.oneof(
  fc.integer({ min: 1, max: 9 }).map(String),
  fc
    .tuple(
      fc.integer({ min: 1, max: 9 }),
      fc.string({ unit: fc.constantFrom(...'0123456789'), maxLength: 30 }),
      fc.integer({ min: 1, max: 9 }),
    )
    .map(([first, middle, last]) => `${first}${middle}${last}`),
);

describe('canonicalNumber', () => {
  it.each([
    ['1E2', '100'],
    ['100', '100'],
    ['100.0', '100'],
    ['1.00e2', '100'],
    ['10000e-2', '100'],
    ['-0', '0'],
    ['-0.000e-5', '0'],
    ['0', '0'],
    ['12345678901234567890', '12345678901234567890'],
    ['12345678901234567000', '12345678901234567000'],
    ['1e21', '1e+21'],
    ['1e20', '100000000000000000000'],
    ['0.000001', '0.000001'],
    ['1e-7', '1e-7'],
    ['123e-20', '1.23e-18'],
    ['-1.5e+3', '-1500'],
    ['1e400', '1e+400'],
    ['1e-400', '1e-400'],
    ['1e999999999999999999999', '1e+999999999999999999999'],
    ['-25e-999999999999999999999', '-2.5e-999999999999999999998'],
    ['1e-000000000000000000000000000007', '1e-7'],
    ['1e+000000000000000000000000000002', '100'],
  ])('gives %s the canonical form %s', (text, canonical) => {
    expect(canonicalNumber(text)).toBe(canonical);
  });

  it('keeps values apart that a double would merge', () => {
    expect(canonicalNumber('9007199254740993')).not.toBe(canonicalNumber('9007199254740992'));
    expect(canonicalNumber('0.1000000000000000000001')).not.toBe(canonicalNumber('0.1'));
  });

  it('handles mantissas of a thousand digits without a float or a BigInt of the value', () => {
    expect(canonicalNumber(`1${'0'.repeat(999)}`)).toBe('1e+999');
    expect(canonicalNumber(`0.${'0'.repeat(999)}1`)).toBe('1e-1000');
    expect(canonicalNumber(`${'9'.repeat(1000)}e-1000`)).toBe(`0.${'9'.repeat(1000)}`);
  });

  it.each(['', '01', '1.', '.5', '+1', '1e', 'NaN', ' 1', '0x1'])(
    'refuses %j, which is not a JSON number',
    (text) => {
      expect(caught(InvalidInputError, () => canonicalNumber(text)).field).toBe('number');
    },
  );

  it('prints every finite double the way Number#toString does', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (value) => {
        expect(canonicalNumber(String(value))).toBe(String(value));
      }),
      { seed: SEED, numRuns: 2000 },
    );
  });

  it('gives every spelling of one exact value the same form', () => {
    fc.assert(
      fc.property(
        digitsArb.chain((digits) =>
          fc
            .integer({ min: -40, max: 40 })
            .chain((exponent) =>
              fc.tuple(
                spellingArb(digits, exponent),
                spellingArb(digits, exponent),
                fc.constant([digits, exponent] as const),
              ),
            ),
        ),
        ([first, second, [digits, exponent]]) => {
          expect(canonicalNumber(first)).toBe(canonicalNumber(second));
          expect(canonicalNumber(`-${first}`)).toBe(`-${canonicalNumber(second)}`);
          // The same value written as plain digits with an exponent.
          expect(canonicalNumber(first)).toBe(canonicalNumber(`${digits}e${exponent}`));
        },
      ),
      { seed: SEED, numRuns: 1000 },
    );
  });

  it('gives different exact values different forms', () => {
    fc.assert(
      fc.property(
        digitsArb,
        digitsArb,
        fc.integer({ min: -30, max: 30 }),
        fc.integer({ min: -30, max: 30 }),
        (a, b, ea, eb) => {
          // Digits without leading or trailing zeros: a×10^ea = b×10^eb only when a = b and ea = eb.
          const same = a === b && ea === eb;
          expect(canonicalNumber(`${a}e${ea}`) === canonicalNumber(`${b}e${eb}`)).toBe(same);
        },
      ),
      { seed: SEED, numRuns: 1000 },
    );
  });
});

describe('numberFitsDouble', () => {
  it.each([
    ['0.1', true],
    ['-0', true],
    ['100.00', true],
    ['9007199254740992', true],
    ['9007199254740993', false],
    ['12345678901234567890', false],
    ['1.00000000000000001', false],
    ['1e400', false],
    ['1e-400', false],
    ['5e-324', true],
  ])('says whether %s survives JSON.parse then JSON.stringify: %s', (text, fits) => {
    expect(numberFitsDouble(text)).toBe(fits);
    const back = JSON.stringify(JSON.parse(text));
    expect(back !== 'null' && canonicalNumber(back) === canonicalNumber(text)).toBe(fits);
  });
});
