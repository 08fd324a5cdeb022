/**
 * fast-check arbitraries of JSON texts that only an exact reader keeps
 * intact: numbers past double precision (20-digit ids, `1e400`, `-0`,
 * exponents), strings with raw and escaped code points (astral ones raw or
 * as surrogate-pair escapes, hex digits in either case), nesting up to the
 * row limit, insignificant whitespace anywhere between tokens. Each text
 * comes with its minified form — what the store must give back — built from
 * the same tokens, never by a JSON library.
 */
import fc from 'fast-check';
import { canonicalNumber } from '../../lib/json/exact-number.js';
import { MAX_ROW_DEPTH } from '../../lib/put/schema.js';

/** JSON text as tokens: `tokens.join('')` is the minified text. */
export interface Tokens {
  tokens: string[];
}

/** A JSON string literal: its source spelling and its decoded value. */
export interface JsonString {
  text: string;
  value: string;
}

const hex4 = (code: number, upper: boolean) => {
  const text = code.toString(16).padStart(4, '0');
  return upper ? text.toUpperCase() : text;
};

const SHORT_ESCAPES: Record<number, string> = {
  34: '\\"',
  92: '\\\\',
  47: '\\/',
  8: '\\b',
  12: '\\f',
  10: '\\n',
  13: '\\r',
  9: '\\t',
};

/** Code points worth spelling: ASCII, Latin-1, other BMP (no surrogates), astral. */
const codePoint = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: 0x20, max: 0x7e }) },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 0x1f }) },
  { weight: 1, arbitrary: fc.integer({ min: 0x80, max: 0x7ff }) },
  { weight: 1, arbitrary: fc.integer({ min: 0x800, max: 0xd7ff }) },
  { weight: 1, arbitrary: fc.integer({ min: 0xe000, max: 0xffff }) },
  { weight: 2, arbitrary: fc.integer({ min: 0x10000, max: 0x10ffff }) },
  { weight: 1, arbitrary: fc.constantFrom(0x22, 0x5c, 0x2f, 0xfeff, 0x2028, 0x1f600) },
);

/** One code point, spelled raw or escaped (how is kept in the text, so it must come back). */
const spelledPoint = fc.tuple(codePoint, fc.nat(3), fc.boolean()).map(([code, how, upper]) => {
  const value = String.fromCodePoint(code);
  const mustEscape = code < 0x20 || code === 0x22 || code === 0x5c;
  const short = SHORT_ESCAPES[code];
  if (!mustEscape && how === 0) return { text: value, value };
  if (short !== undefined && how !== 2) return { text: short, value };
  if (code > 0xffff) {
    const high = 0xd800 + ((code - 0x10000) >> 10);
    const low = 0xdc00 + ((code - 0x10000) & 0x3ff);
    return { text: `\\u${hex4(high, upper)}\\u${hex4(low, upper)}`, value };
  }
  return { text: `\\u${hex4(code, upper)}`, value };
});

/** A JSON string of up to `max` code points. */
export const jsonString = (max = 12): fc.Arbitrary<JsonString> =>
  fc.array(spelledPoint, { maxLength: max }).map((points) => ({
    text: `"${points.map((p) => p.text).join('')}"`,
    value: points.map((p) => p.value).join(''),
  }));

const digits = (min: number, max: number) =>
  fc
    .array(fc.integer({ min: 0, max: 9 }), { minLength: min, maxLength: max })
    .map((d) => d.join(''));

/** JSON number texts, most of which a double cannot hold exactly. */
const jsonNumber: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '0',
    '-0',
    '-0.0',
    '0e0',
    '1e400',
    '-1E-400',
    '12345678901234567890',
    '9007199254740993',
    '9007199254740992',
    '1E2',
    '100',
    '100.000',
    '1.7976931348623157e309',
    '5e-324',
    '4.9e-325',
    '0.1',
  ),
  fc
    .record({
      negative: fc.boolean(),
      lead: fc.integer({ min: 1, max: 9 }),
      rest: digits(0, 30),
      fraction: fc.option(digits(1, 25), { nil: undefined }),
      exponent: fc.option(
        fc.tuple(fc.constantFrom('e', 'E'), fc.constantFrom('', '+', '-'), digits(1, 4)),
        { nil: undefined },
      ),
      zero: fc.boolean(),
    })
    .map(({ negative, lead, rest, fraction, exponent, zero }) => {
      const int = zero ? '0' : `${lead}${rest}`;
      const frac = fraction === undefined ? '' : `.${fraction}`;
      const exp = exponent === undefined ? '' : exponent.join('');
      return `${negative ? '-' : ''}${int}${frac}${exp}`;
    }),
);

/** A JSON value as tokens, nested at most `depth` more levels. */
function jsonValue(depth: number): fc.Arbitrary<Tokens> {
  const scalar: fc.Arbitrary<Tokens> = fc.oneof(
    jsonNumber.map((n) => ({ tokens: [n] })),
    jsonString().map((s) => ({ tokens: [s.text] })),
    fc.constantFrom('true', 'false', 'null').map((t) => ({ tokens: [t] })),
  );
  if (depth <= 0) return scalar;
  return fc.oneof(
    { weight: 3, arbitrary: scalar },
    { weight: 1, arbitrary: fc.array(jsonValue(depth - 1), { maxLength: 3 }).map(arrayTokens) },
    { weight: 1, arbitrary: members(jsonValue(depth - 1), 3).map(objectTokens) },
  );
}

function arrayTokens(items: readonly Tokens[]): Tokens {
  const tokens = ['['];
  items.forEach((item, i) => {
    if (i > 0) tokens.push(',');
    tokens.push(...item.tokens);
  });
  tokens.push(']');
  return { tokens };
}

/** Object members with distinct decoded names (duplicates are refused, not kept). */
function members(value: fc.Arbitrary<Tokens>, max: number, exclude: readonly string[] = []) {
  return fc
    .uniqueArray(fc.tuple(jsonString(6), value), {
      maxLength: max,
      selector: ([name]) => name.value,
    })
    .map((pairs) => pairs.filter(([name]) => !exclude.includes(name.value)));
}

function objectTokens(pairs: readonly (readonly [JsonString, Tokens])[]): Tokens {
  const tokens = ['{'];
  pairs.forEach(([name, value], i) => {
    if (i > 0) tokens.push(',');
    tokens.push(name.text, ':', ...value.tokens);
  });
  tokens.push('}');
  return { tokens };
}

/** A value nested exactly `levels` deep in arrays and objects (for the row depth limit). */
export const deepValue = (levels: number): Tokens => {
  const tokens: string[] = [];
  for (let i = 0; i < levels; i++) tokens.push(i % 2 === 0 ? '[' : '{"d":');
  tokens.push('-0');
  for (let i = levels - 1; i >= 0; i--) tokens.push(i % 2 === 0 ? ']' : '}');
  return { tokens };
};

/** A row: what is sent (tokens) and what the dump must show for it. */
export interface RowCase {
  tokens: string[];
  /** The key id the dump shows (`lib/rows/key-id.ts`), when keyed. */
  keyId?: string;
  delete?: true;
}

/** The key member's value: a string or a number, with its id. */
const keyValue = fc.oneof(
  jsonString(8)
    .filter((s) => s.value.length > 0)
    .map((s) => ({ tokens: [s.text], id: JSON.stringify(s.value) })),
  jsonNumber.map((n) => ({ tokens: [n], id: canonicalNumber(n) })),
);

/** The row levels left for nested values: the row object is level 1 of `MAX_ROW_DEPTH`. */
const ROW_NESTING = MAX_ROW_DEPTH - 1;

/** A row object; keyed rows carry `key` at a random position, some are deletes. */
function rowCase(key: string | undefined): fc.Arbitrary<RowCase> {
  const reserved = key === undefined ? ['$delete'] : ['$delete', key];
  const plain = members(jsonValue(2), 4, reserved);
  const deep = fc
    .integer({ min: 1, max: ROW_NESTING })
    .map((levels) => [[{ text: '"deep"', value: 'deep' }, deepValue(levels)] as const]);
  const body = fc.oneof({ weight: 5, arbitrary: plain }, { weight: 1, arbitrary: deep });
  if (key === undefined) return body.map((pairs) => ({ tokens: objectTokens(pairs).tokens }));
  const keyName = { text: JSON.stringify(key), value: key };
  return fc
    .record({ pairs: body, k: keyValue, at: fc.nat(), isDelete: fc.nat(5) })
    .map(({ pairs, k, at, isDelete }) => {
      if (isDelete === 0) {
        const tokens = ['{', keyName.text, ':', ...k.tokens, ',', '"$delete"', ':', 'true', '}'];
        return { tokens, keyId: k.id, delete: true as const };
      }
      const all: (readonly [JsonString, Tokens])[] = [...pairs];
      all.splice(at % (pairs.length + 1), 0, [keyName, { tokens: k.tokens }]);
      return { tokens: objectTokens(all).tokens, keyId: k.id };
    });
}

/** A put body: rows (keyed by `id` or not), tokens and the expected rows. */
export interface PutCase {
  key: string | undefined;
  rows: RowCase[];
}

/** A put of 1 to `maxRows` rows, keyed by `id` half the time. */
export const putCase = (maxRows = 4): fc.Arbitrary<PutCase> =>
  fc
    .constantFrom<string | undefined>(undefined, 'id')
    .chain((key) =>
      fc.array(rowCase(key), { minLength: 1, maxLength: maxRows }).map((rows) => ({ key, rows })),
    );

/** The body tokens of `put`, with `shard` first when given (the SQS message form). */
export function bodyTokens(put: PutCase, shard?: string): string[] {
  const tokens = ['{'];
  if (shard !== undefined) tokens.push('"shard"', ':', JSON.stringify(shard), ',');
  if (put.key !== undefined) tokens.push('"key"', ':', JSON.stringify(put.key), ',');
  tokens.push('"rows"', ':', '[');
  put.rows.forEach((row, i) => {
    if (i > 0) tokens.push(',');
    tokens.push(...row.tokens);
  });
  tokens.push(']', '}');
  return tokens;
}

/** Insignificant whitespace runs to put between tokens. */
export const gaps = fc.array(fc.stringMatching(/^[ \t\r\n]{0,3}$/), {
  minLength: 1,
  maxLength: 16,
});

/** `tokens` joined with the whitespace runs of `between`, cycled. */
export function spaced(tokens: readonly string[], between: readonly string[]): string {
  let text = between[0] ?? '';
  tokens.forEach((token, i) => {
    text += token + (i < tokens.length - 1 ? (between[(i + 1) % between.length] ?? '') : '');
  });
  return text;
}
