import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InvalidJsonError, JsonProblem } from '../../lib/json/errors.js';
import { canonicalNumber } from '../../lib/json/exact-number.js';
import { parseExact } from '../../lib/json/exact-parse.js';
import { seededRandom } from '../../lib/seeded-random.js';
import { toPlain } from './helpers.js';

const SEED = 8_259;

/** Any JSON value with any code points in its strings and names. */
const jsonArb = fc.jsonValue({ stringUnit: 'binary', maxDepth: 4 });

const WHITESPACE = ' \t\n\r';

/** JSON text of `value` with random whitespace between tokens and random escapes in strings. */
function respell(value: unknown, random: () => number): string {
  const ws = () => {
    let out = '';
    while (random() < 0.3) out += WHITESPACE[Math.floor(random() * 4)];
    return out;
  };
  const string = (text: string) => {
    let out = '"';
    for (const char of text) {
      const plain = JSON.stringify(char).slice(1, -1);
      if (random() < 0.2) {
        // \uXXXX for every UTF-16 unit: astral chars become an escaped surrogate pair.
        for (let i = 0; i < char.length; i++) {
          out += `\\u${char.charCodeAt(i).toString(16).padStart(4, '0')}`;
        }
      } else {
        out += plain;
      }
    }
    return `${out}"`;
  };
  if (Array.isArray(value)) {
    return `[${ws()}${value.map((item) => `${ws()}${respell(item, random)}${ws()}`).join(',')}]`;
  }
  if (typeof value === 'object' && value !== null) {
    const members = Object.entries(value).map(
      ([name, item]) => `${ws()}${string(name)}${ws()}:${ws()}${respell(item, random)}${ws()}`,
    );
    return `{${ws()}${members.join(',')}}`;
  }
  if (typeof value === 'string') return string(value);
  if (typeof value === 'number' && random() < 0.5) return value.toExponential();
  return JSON.stringify(value);
}

/** Valid JSON number texts, far past what a double holds. */
const numberTextArb = fc
  .record({
    minus: fc.boolean(),
    integer: fc.oneof(fc.constant('0'), fc.stringMatching(/^[1-9][0-9]{0,39}$/)),
    fraction: fc.option(fc.stringMatching(/^[0-9]{1,30}$/), { nil: undefined }),
    exponent: fc.option(fc.stringMatching(/^[eE][+-]?[0-9]{1,6}$/), { nil: undefined }),
  })
  .map(
    ({ minus, integer, fraction, exponent }) =>
      `${minus ? '-' : ''}${integer}${fraction === undefined ? '' : `.${fraction}`}${exponent ?? ''}`,
  );

describe('parseExact round trip', () => {
  it('returns JSON.stringify output unchanged as its minified text, and the same value', () => {
    fc.assert(
      fc.property(jsonArb, (value) => {
        const text = JSON.stringify(value);
        const document = parseExact(text);
        expect(document.minifiedText).toBe(text);
        expect(toPlain(document, document.root)).toEqual(JSON.parse(text));
      }),
      { seed: SEED, numRuns: 500 },
    );
  });

  it('minifies indented JSON.stringify output to the compact output', () => {
    fc.assert(
      fc.property(jsonArb, fc.constantFrom(1, 2, '\t', '\r\n '), (value, indent) => {
        const document = parseExact(JSON.stringify(value, null, indent));
        expect(document.minifiedText).toBe(JSON.stringify(value));
      }),
      { seed: SEED, numRuns: 300 },
    );
  });

  it('reads respelled text (whitespace, escapes, exponents) as the same value at any materialized depth', () => {
    fc.assert(
      fc.property(jsonArb, fc.integer(), fc.nat(4), (value, seed, materializeDepth) => {
        const text = respell(value, seededRandom(seed));
        const document = parseExact(text, { materializeDepth });
        const expected = JSON.parse(JSON.stringify(value));
        expect(toPlain(document, document.root)).toEqual(expected);
        // Minifying keeps the value and is idempotent.
        expect(JSON.parse(document.minifiedText)).toEqual(expected);
        expect(parseExact(document.minifiedText).minifiedText).toBe(document.minifiedText);
        expect(document.minified(document.root)).toBe(document.minifiedText);
      }),
      { seed: SEED, numRuns: 500 },
    );
  });

  it('keeps every number as its source text, however far past a double', () => {
    fc.assert(
      fc.property(fc.array(numberTextArb, { minLength: 1, maxLength: 6 }), (numbers) => {
        const document = parseExact(`{"n": [ ${numbers.join(' , ')} ]}`);
        const root = document.root;
        if (root.kind !== 'object') throw new Error(`expected an object, got ${root.kind}`);
        const array = root.members[0]![1];
        if (array.kind !== 'array') throw new Error(`expected an array, got ${array.kind}`);
        expect(array.items.map((item) => item.kind === 'number' && item.text)).toEqual(numbers);
        expect(document.minifiedText).toBe(`{"n":[${numbers.join(',')}]}`);
        for (const text of numbers) expect(() => canonicalNumber(text)).not.toThrow();
      }),
      { seed: SEED, numRuns: 500 },
    );
  });
});

/** Chars that make or break JSON. */
const MUTATION_CHARS = [...'{}[]",:0123-+.eE\\u tfn\n\t\u0000\u00a0\ud800\udc00é'];

describe('parseExact against JSON.parse', () => {
  it('accepts what JSON.parse accepts, except duplicates and lone surrogates, with the same value', () => {
    fc.assert(
      fc.property(
        jsonArb,
        fc.array(fc.tuple(fc.nat(), fc.nat(2), fc.constantFrom(...MUTATION_CHARS)), {
          minLength: 1,
          maxLength: 3,
        }),
        (value, mutations) => {
          let text = JSON.stringify(value);
          for (const [at, kind, char] of mutations) {
            const i = at % (text.length + 1);
            if (kind === 0) text = text.slice(0, i) + char + text.slice(i);
            else if (kind === 1) text = text.slice(0, i) + text.slice(i + 1);
            else text = text.slice(0, i) + char + text.slice(i + 1);
          }
          let expected: unknown;
          let parsed = true;
          try {
            expected = JSON.parse(text);
          } catch {
            parsed = false;
          }
          let exact: unknown;
          let refused: InvalidJsonError | undefined;
          try {
            const document = parseExact(text);
            exact = toPlain(document, document.root);
          } catch (error) {
            if (!(error instanceof InvalidJsonError)) throw error;
            refused = error;
          }
          if (refused === undefined) {
            expect(parsed).toBe(true);
            expect(exact).toEqual(expected);
          } else if (parsed) {
            expect([JsonProblem.duplicateMember, JsonProblem.loneSurrogate]).toContain(
              refused.problem,
            );
          }
        },
      ),
      { seed: SEED, numRuns: 3000 },
    );
  });
});
