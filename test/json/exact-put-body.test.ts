import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../lib/errors.js';
import { InvalidJsonError, JsonProblem } from '../../lib/json/errors.js';
import { BomPolicy } from '../../lib/json/exact-parse.js';
import { type PutBodyRules, scanPutBody } from '../../lib/json/exact-put-body.js';
import { DELETE_MEMBER, MAX_KEY_CHARS, MAX_ROW_DEPTH } from '../../lib/put/schema.js';
import { caught } from './helpers.js';

const RULES: PutBodyRules = {
  maxRows: 3,
  maxRowDepth: MAX_ROW_DEPTH,
  maxKeyChars: MAX_KEY_CHARS,
  maxKeyNameChars: 256,
  deleteMember: DELETE_MEMBER,
};

const nested = (depth: number): string => `${'['.repeat(depth)}${']'.repeat(depth)}`;

/** The ids of the keys of `text`'s rows. */
const keyIds = (text: string) =>
  scanPutBody(text, { ...RULES, maxRows: 10 }).rows.map((row) => row.key?.id);

describe('scanPutBody', () => {
  describe('rows', () => {
    it('returns each keyless row as its minified source text', () => {
      const body = scanPutBody(
        '{ "rows" : [ {"a": 1E2, "b": [ -0, 1e400 ]}, {"s":"\\u00e9"} ] }',
        RULES,
      );
      expect(body.key).toBeUndefined();
      expect(body.rows).toEqual([
        { text: '{"a":1E2,"b":[-0,1e400]}' },
        { text: '{"s":"\\u00e9"}' },
      ]);
    });

    it('keeps numbers JSON.parse would round, digit for digit', () => {
      const body = scanPutBody(
        '{"rows":[{"id":12345678901234567890,"f":0.1000000000000000000001}]}',
        RULES,
      );
      expect(body.rows[0]!.text).toBe('{"id":12345678901234567890,"f":0.1000000000000000000001}');
    });

    it('keeps member order and a __proto__ member as data', () => {
      const body = scanPutBody('{"rows":[{"z":1,"__proto__":{"x":1},"a":2}]}', RULES);
      expect(body.rows[0]!.text).toBe('{"z":1,"__proto__":{"x":1},"a":2}');
    });

    it('reads a body with the members in either order', () => {
      const body = scanPutBody('{"rows":[{"id":"a"}],"key":"id"}', RULES);
      expect(body.key).toBe('id');
      expect(body.rows[0]!.key).toEqual({ type: 'string', value: 'a', id: '"a"' });
    });
  });

  describe('keys', () => {
    it('keys rows by type and exact value', () => {
      expect(
        keyIds(
          '{"key":"id","rows":[{"id":"a"},{"id":"\\u0061"},{"id":"1"},{"id":1},{"id":1E0},{"id":1.0},{"id":-0},{"id":0}]}',
        ),
      ).toEqual(['"a"', '"a"', '"1"', '1', '1', '1', '0', '0']);
    });

    it('keeps keys apart that JSON.parse would merge', () => {
      const [first, second] = keyIds(
        '{"key":"id","rows":[{"id":9007199254740993},{"id":9007199254740992}]}',
      );
      expect(first).toBe('9007199254740993');
      expect(second).toBe('9007199254740992');
    });

    it('accepts a number key JSON.parse could not hold, keeping its text', () => {
      const body = scanPutBody('{"key":"id","rows":[{"id":1e400}]}', RULES);
      expect(body.rows[0]!.key).toEqual({ type: 'number', text: '1e400', id: '1e+400' });
    });

    it('turns a $delete row into a keyed delete', () => {
      const body = scanPutBody(
        '{"key":"id","rows":[{"id":"a","v":1},{"id":"a","$delete":true}]}',
        RULES,
      );
      expect(body.rows).toEqual([
        { text: '{"id":"a","v":1}', key: { type: 'string', value: 'a', id: '"a"' } },
        {
          text: '{"id":"a","$delete":true}',
          key: { type: 'string', value: 'a', id: '"a"' },
          delete: true,
        },
      ]);
    });

    it('accepts __proto__ as the key field', () => {
      const body = scanPutBody('{"key":"__proto__","rows":[{"__proto__":"k1","v":1}]}', RULES);
      expect(body.rows[0]!.key?.id).toBe('"k1"');
    });

    it('gives equal ids exactly to equal keys', () => {
      type Key = { text: string } | { integer: bigint; spelling: number } | { fraction: number };
      const keyArb: fc.Arbitrary<Key> = fc.oneof(
        fc.string({ unit: 'binary', minLength: 1, maxLength: 4 }).map((text) => ({ text })),
        fc.record({
          integer: fc.bigInt({ min: -(10n ** 25n), max: 10n ** 25n }),
          spelling: fc.nat(2),
        }),
        fc
          .double({ noNaN: true, noDefaultInfinity: true })
          .filter((x) => !Number.isInteger(x))
          .map((fraction) => ({ fraction })),
      );
      // Integers spelled three ways with one value; fractions the way JSON.stringify spells them.
      const spell = (key: Key) => {
        if ('text' in key) return JSON.stringify(key.text);
        if ('fraction' in key) return JSON.stringify(key.fraction);
        return [`${key.integer}`, `${key.integer}e0`, `${key.integer}0e-1`][key.spelling]!;
      };
      const same = (a: Key, b: Key) => {
        if ('text' in a || 'text' in b) return 'text' in a && 'text' in b && a.text === b.text;
        if ('integer' in a && 'integer' in b) return a.integer === b.integer;
        return 'fraction' in a && 'fraction' in b && a.fraction === b.fraction;
      };
      fc.assert(
        fc.property(keyArb, keyArb, (a, b) => {
          const [idA, idB] = keyIds(`{"key":"k","rows":[{"k":${spell(a)}},{"k":${spell(b)}}]}`);
          expect(idA === idB).toBe(same(a, b));
        }),
        { seed: 1_024, numRuns: 1000 },
      );
    });
  });

  describe('refusals', () => {
    it.each([
      ['rows missing', '{}', 'body.rows'],
      ['rows empty', '{"rows":[]}', 'body.rows'],
      ['rows not an array', '{"rows":{"a":1}}', 'body.rows'],
      ['too many rows', '{"rows":[{},{},{},{}]}', 'body.rows'],
      ['a row that is a string', '{"rows":[{},"x"]}', 'body.rows[1]'],
      ['a row that is an array', '{"rows":[[1]]}', 'body.rows[0]'],
      ['a row that is null', '{"rows":[null]}', 'body.rows[0]'],
      ['an unknown top-level field', '{"rows":[{}],"durable":true}', 'body'],
      [
        'a keyed row without its key',
        '{"key":"id","rows":[{"id":"a"},{"v":1}]}',
        'body.rows[1].id',
      ],
      ['an empty key value', '{"key":"id","rows":[{"id":""}]}', 'body.rows[0].id'],
      ['an object key value', '{"key":"id","rows":[{"id":{"x":1}}]}', 'body.rows[0].id'],
      ['a boolean key value', '{"key":"id","rows":[{"id":true}]}', 'body.rows[0].id'],
      ['$delete without key', '{"rows":[{"id":"a","$delete":true}]}', 'body.rows[0].$delete'],
      ['$delete not true', '{"key":"id","rows":[{"id":"a","$delete":1}]}', 'body.rows[0].$delete'],
      ['$delete false', '{"key":"id","rows":[{"id":"a","$delete":false}]}', 'body.rows[0].$delete'],
      ['key named $delete', '{"key":"$delete","rows":[{}]}', 'body.key'],
      ['an empty key name', '{"key":"","rows":[{}]}', 'body.key'],
      ['a key name that is not a string', '{"key":1,"rows":[{}]}', 'body.key'],
      ['a body that is an array', '[{"rows":[]}]', 'body'],
      ['a body that is null', 'null', 'body'],
      ['an empty body', '  ', 'body'],
    ])('refuses %s, naming %s', (_, text, field) => {
      const error = caught(InvalidInputError, () => scanPutBody(text, RULES));
      expect(error.field).toBe(field);
      expect(error.message.startsWith(`${field}: `)).toBe(true);
    });

    it('says what is wrong with a key value, echoing a bounded part of it', () => {
      const long = 'x'.repeat(MAX_KEY_CHARS + 1);
      const error = caught(InvalidInputError, () =>
        scanPutBody(`{"key":"id","rows":[{"id":"${long}"}]}`, RULES),
      );
      expect(error.message).toBe(
        `body.rows[0].id: expected a non-empty string or a number of at most ${MAX_KEY_CHARS} characters, got "${'x'.repeat(63)}…`,
      );
    });

    it('names the unknown top-level member', () => {
      const error = caught(InvalidInputError, () => scanPutBody('{"rows":[{}],"extra":1}', RULES));
      expect(error.message).toBe('body: unknown member "extra"');
    });

    it('refuses a duplicate member in a row, naming the path', () => {
      const error = caught(InvalidJsonError, () =>
        scanPutBody('{"rows":[{},{"user":{"id":1,"id":2}}]}', RULES),
      );
      expect(error.field).toBe('body.rows[1].user.id');
      expect(error.problem).toBe(JsonProblem.duplicateMember);
    });

    it('refuses a duplicate rows member instead of taking the last', () => {
      const error = caught(InvalidJsonError, () => scanPutBody('{"rows":[{}],"rows":[{}]}', RULES));
      expect(error.message).toBe('body.rows: duplicate member "rows" at char 13');
    });

    it('accepts rows nested up to the limit and refuses one level more, naming the row', () => {
      const atLimit = `{"rows":[{"a":${nested(MAX_ROW_DEPTH - 1)}}]}`;
      expect(scanPutBody(atLimit, RULES).rows).toHaveLength(1);
      const error = caught(InvalidJsonError, () =>
        scanPutBody(`{"rows":[{"ok":1},{"a":${nested(MAX_ROW_DEPTH)}}]}`, RULES),
      );
      expect(error.field).toBe('body.rows[1]');
      expect(error.message).toMatch(/^body\.rows\[1\]: nested deeper than 100 levels at char \d+$/);
    });

    it('refuses 20,000 levels as too deep, without a stack overflow', () => {
      const error = caught(InvalidJsonError, () =>
        scanPutBody(`{"rows":[{"a":${nested(20_000)}}]}`, RULES),
      );
      expect(error.field).toBe('body.rows[0]');
      expect(error.problem).toBe(JsonProblem.tooDeep);
    });
  });

  describe('options', () => {
    it('returns the accepted other members, as the SQS message carries its shard', () => {
      const body = scanPutBody('{"shard":"s-1","rows":[{}]}', {
        ...RULES,
        otherMembers: ['shard'],
      });
      expect(body.others.get('shard')).toMatchObject({ kind: 'string', value: 's-1' });
    });

    it('skips a leading byte order mark only when told to', () => {
      expect(() => scanPutBody('\uFEFF{"rows":[{}]}', RULES)).toThrow(InvalidJsonError);
      const body = scanPutBody('\uFEFF{"rows":[ {} ]}', { ...RULES, bom: BomPolicy.ignore });
      expect(body.rows).toEqual([{ text: '{}' }]);
    });
  });
});
