import { describe, expect, it } from 'vitest';
import { InternalError } from '../../lib/errors.js';
import { InvalidJsonError, JsonProblem } from '../../lib/json/errors.js';
import { BomPolicy, parseExact } from '../../lib/json/exact-parse.js';
import { memberOf } from '../../lib/json/exact-tree.js';
import { caught, toPlain } from './helpers.js';

/** Texts RFC 8259 accepts (in the spirit of JSONTestSuite's y_ cases). */
const ACCEPTED: readonly [string, string][] = [
  ['empty array', '[]'],
  ['empty object', '{}'],
  ['nested empties', '[[],{},[{}]]'],
  ['whitespace of all four kinds', ' \t\n\r[ 1 ,\n2 ]\r\n '],
  ['a top-level string', '"x"'],
  ['a top-level number', '42'],
  ['top-level literals', 'true'],
  ['null', 'null'],
  ['literals in an array', '[null,true,false]'],
  ['minus zero', '[-0]'],
  ['zero with fraction and exponent', '[-0.0e-0]'],
  ['exponent with plus', '[1E+2]'],
  ['negative exponent', '[1e-2]'],
  ['exponent beyond double range', '[1.5E400,-1e-400]'],
  ['thirty digits', '[123456789012345678901234567890]'],
  ['exponent with leading zeros', '[1e007]'],
  ['every simple escape', '["\\"\\\\\\/\\b\\f\\n\\r\\t"]'],
  ['escaped NUL', '["\\u0000"]'],
  ['escaped BMP char, either hex case', '["\\u00e9\\u00E9"]'],
  ['escaped surrogate pair', '["\\uD834\\uDD1E"]'],
  ['raw astral char', '["𝄞🎉"]'],
  ['raw DEL, U+2028 and U+2029', '["\u007f\u2028\u2029"]'],
  ['a BOM inside a string', '["\uFEFF"]'],
  ['an empty member name', '{"":0}'],
  ['names that differ only in case', '{"a":1,"A":2}'],
  ['a __proto__ member', '{"__proto__":{"x":1}}'],
  ['the same name in sibling objects', '[{"a":1},{"a":2}]'],
  ['the same name at two levels', '{"a":{"a":1}}'],
  ['deep mixed nesting', '{"a":[{"b":[[{"c":null}]]}]}'],
  ['spaces around every token', ' { "a" : 1 , "b" : [ 1 , 2 ] } '],
  ['an empty string', '[""]'],
  ['non-ASCII text', '["Łódź 東京 naïve"]'],
];

/** Texts RFC 8259 refuses (the spirit of JSONTestSuite's n_ cases); JSON.parse refuses them too. */
const SYNTAX_ERRORS: readonly [string, string][] = [
  ['empty text', ''],
  ['whitespace only', ' \n'],
  ['unclosed array', '['],
  ['a lone close', ']'],
  ['trailing comma in an array', '[1,]'],
  ['leading comma', '[,1]'],
  ['comma alone in an object', '{,}'],
  ['trailing comma in an object', '{"a":1,}'],
  ['a name without a value', '{"a"}'],
  ['a missing colon', '{"a" 1}'],
  ['an unquoted name', '{a:1}'],
  ['single quotes', "['a']"],
  ['a leading zero', '[01]'],
  ['a negative leading zero', '[-01]'],
  ['a point without digits after', '[1.]'],
  ['a point without digits before', '[.1]'],
  ['a point then an exponent', '[1.e1]'],
  ['an empty exponent', '[1e]'],
  ['an exponent sign alone', '[1e+]'],
  ['a minus alone', '[-]'],
  ['a plus sign', '[+1]'],
  ['hex', '[0x10]'],
  ['NaN', '[NaN]'],
  ['Infinity', '[-Infinity]'],
  ['a cut literal', '[tru]'],
  ['a capitalized literal', '[True]'],
  ['an unknown escape', '["a\\x"]'],
  ['a short \\u escape', '["\\u12"]'],
  ['a bad hex digit', '["\\u12G4"]'],
  ['an unterminated string', '["a'],
  ['a raw newline in a string', '["a\nb"]'],
  ['a raw tab in a string', '["a\tb"]'],
  ['a raw NUL in a string', '["\u0000"]'],
  ['text after the value', '[1]x'],
  ['two values', '[1][2]'],
  ['an extra close', '{}}'],
  ['a missing comma', '[1 2]'],
  ['a missing comma between members', '{"a":1 "b":2}'],
  ['no-break space as whitespace', '\u00a0[]'],
  ['form feed as whitespace', '\f[]'],
  ['a comment', '/* c */ []'],
  ['a byte order mark (refused by default)', '\uFEFF[]'],
];

/** Texts JSON.parse accepts that exact parsing refuses, and why. */
const EXACT_ERRORS: readonly [string, string, JsonProblem][] = [
  ['an escaped lone high surrogate', '["\\ud800"]', JsonProblem.loneSurrogate],
  ['an escaped lone low surrogate', '["\\udc00"]', JsonProblem.loneSurrogate],
  ['a high surrogate before a BMP escape', '["\\ud800\\u0041"]', JsonProblem.loneSurrogate],
  ['a high surrogate before a plain char', '["\\ud800x"]', JsonProblem.loneSurrogate],
  ['a reversed pair', '["\\udc00\\ud800"]', JsonProblem.loneSurrogate],
  ['a raw lone high surrogate', '["\ud800"]', JsonProblem.loneSurrogate],
  ['a raw lone low surrogate', '["a\udc00"]', JsonProblem.loneSurrogate],
  ['a raw high surrogate before an escaped low', '["\ud800\\udc00"]', JsonProblem.loneSurrogate],
  ['an escaped high surrogate before a raw low', '["\\ud800\udc00"]', JsonProblem.loneSurrogate],
  ['a lone surrogate in a member name', '{"\\udfff":1}', JsonProblem.loneSurrogate],
  ['a duplicate member', '{"a":1,"a":2}', JsonProblem.duplicateMember],
  ['a duplicate spelled with an escape', '{"a":1,"\\u0061":2}', JsonProblem.duplicateMember],
  ['a duplicate after another member', '{"a":1,"b":2,"a":3}', JsonProblem.duplicateMember],
  ['a nested duplicate', '[{"x":{"k":1,"k":2}}]', JsonProblem.duplicateMember],
  ['a duplicate __proto__', '{"__proto__":1,"__proto__":2}', JsonProblem.duplicateMember],
];

const nestedArrays = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

describe('parseExact', () => {
  describe('RFC 8259 conformance', () => {
    it.each(ACCEPTED)('accepts %s', (_, text) => {
      const document = parseExact(text);
      expect(toPlain(document, document.root)).toEqual(JSON.parse(text));
    });

    it.each(SYNTAX_ERRORS)('refuses %s as a syntax error', (_, text) => {
      expect(() => JSON.parse(text)).toThrow(SyntaxError);
      expect(caught(InvalidJsonError, () => parseExact(text)).problem).toBe(JsonProblem.syntax);
    });

    it.each(EXACT_ERRORS)('refuses %s, which JSON.parse lets through', (_, text, problem) => {
      expect(() => JSON.parse(text)).not.toThrow();
      expect(caught(InvalidJsonError, () => parseExact(text)).problem).toBe(problem);
    });
  });

  describe('the tree', () => {
    it('keeps members in source order with numbers as their source text', () => {
      const document = parseExact('{"z":1E2,"a":-0,"m":12345678901234567890,"b":1e400}');
      const root = document.root;
      if (root.kind !== 'object') throw new Error(`expected an object, got ${root.kind}`);
      expect(
        root.members.map(([name, value]) => [name, value.kind === 'number' && value.text]),
      ).toEqual([
        ['z', '1E2'],
        ['a', '-0'],
        ['m', '12345678901234567890'],
        ['b', '1e400'],
      ]);
    });

    it('decodes strings and member names but keeps their escapes in the minified text', () => {
      const document = parseExact('{ "\\u0041b" : "x\\/\\uD834\\uDD1E\\n" }');
      const root = document.root;
      if (root.kind !== 'object') throw new Error(`expected an object, got ${root.kind}`);
      const value = memberOf(root, 'Ab');
      expect(value).toMatchObject({ kind: 'string', value: 'x/𝄞\n' });
      expect(document.minified(value!)).toBe('"x\\/\\uD834\\uDD1E\\n"');
      expect(document.minifiedText).toBe('{"\\u0041b":"x\\/\\uD834\\uDD1E\\n"}');
    });

    it('removes whitespace between tokens only, never inside strings', () => {
      const document = parseExact(' {\n  "a b" : [ " x " , 1 ,\ttrue ] ,\r\n "c":null }\n');
      expect(document.minifiedText).toBe('{"a b":[" x ",1,true],"c":null}');
    });

    it('returns the source itself as the minified text when it has no whitespace', () => {
      const text = '{"a":[1,{"b":"c"}]}';
      expect(parseExact(text).minifiedText).toBe(text);
    });

    it('gives each value its own minified text through its span', () => {
      const document = parseExact('[ {"a" : [ 1 , 2 ] } , "s" , 3 ]');
      const root = document.root;
      if (root.kind !== 'array') throw new Error(`expected an array, got ${root.kind}`);
      expect(root.items.map((item) => document.minified(item))).toEqual([
        '{"a":[1,2]}',
        '"s"',
        '3',
      ]);
    });
  });

  describe('materializeDepth', () => {
    it('keeps containers below the level as raw text and builds the scalars beside them', () => {
      const document = parseExact('{"a": {"b": [1, 2]}, "c": [ 3 ], "d": 4}', {
        materializeDepth: 1,
      });
      const root = document.root;
      if (root.kind !== 'object') throw new Error(`expected an object, got ${root.kind}`);
      expect(root.members.map(([name, value]) => [name, value.kind])).toEqual([
        ['a', 'raw'],
        ['c', 'raw'],
        ['d', 'number'],
      ]);
      expect(memberOf(root, 'a')).toMatchObject({ kind: 'raw', of: 'object' });
      expect(document.minified(memberOf(root, 'a')!)).toBe('{"b":[1,2]}');
      expect(document.minified(memberOf(root, 'c')!)).toBe('[3]');
    });

    it('returns the root itself as raw when the level is 0', () => {
      const document = parseExact('[ 1 ]', { materializeDepth: 0 });
      expect(document.root).toEqual({ kind: 'raw', of: 'array', start: 0, end: 3 });
    });

    it.each([
      ['a duplicate', '{"a":{"b":{"c":1,"c":2}}}', JsonProblem.duplicateMember],
      ['a leading zero', '{"a":{"b":[01]}}', JsonProblem.syntax],
      ['a lone surrogate', '{"a":{"b":"\\udc00"}}', JsonProblem.loneSurrogate],
      ['a raw control char', '{"a":{"b":"\u0001"}}', JsonProblem.syntax],
    ])('still refuses %s inside a raw subtree', (_, text, problem) => {
      const error = caught(InvalidJsonError, () => parseExact(text, { materializeDepth: 1 }));
      expect(error.problem).toBe(problem);
    });
  });

  describe('errors', () => {
    it('names the path, the problem and the char offset of a bad number', () => {
      const text = '{"rows":[{"a":1},{"b":{"c":[1,2,01]}}]}';
      const error = caught(InvalidJsonError, () => parseExact(text));
      expect(error.field).toBe('body.rows[1].b.c[2]');
      expect(error.offset).toBe(text.indexOf('01'));
      expect(error.message).toBe(
        `body.rows[1].b.c[2]: invalid number: leading zero at char ${error.offset}`,
      );
    });

    it('names the duplicate member and where its second spelling starts', () => {
      const text = '{"rows":[{},{},{"a":1,"\\u0061":2}]}';
      const error = caught(InvalidJsonError, () => parseExact(text));
      expect(error.message).toBe(
        `body.rows[2].a: duplicate member "a" at char ${text.indexOf('"\\u0061')}`,
      );
    });

    it('finds duplicates in objects large enough to use a set', () => {
      const members = Array.from({ length: 40 }, (_, i) => `"m${i}":${i}`);
      const text = `{${members.join(',')},"m7":0}`;
      const error = caught(InvalidJsonError, () => parseExact(text));
      expect(error.message).toBe(
        `body.m7: duplicate member "m7" at char ${text.lastIndexOf('"m7"')}`,
      );
    });

    it('spells a lone surrogate escape as written and points at it', () => {
      const text = '{"rows":[{"s":"ab\\ud800"}]}';
      const error = caught(InvalidJsonError, () => parseExact(text));
      expect(error.message).toBe(
        `body.rows[0].s: lone surrogate \\ud800 at char ${text.indexOf('\\ud800')}`,
      );
    });

    it('names a raw lone surrogate by code point', () => {
      const error = caught(InvalidJsonError, () => parseExact('["\udc01"]'));
      expect(error.message).toBe('body[0]: lone surrogate U+DC01 at char 2');
    });

    it('names a raw control character by code point', () => {
      const error = caught(InvalidJsonError, () => parseExact('{"a":"x\ny"}'));
      expect(error.message).toBe(
        'body.a: control character U+000A must be escaped in a string at char 7',
      );
    });

    it('names the object, not a member, when a comma is missing between members', () => {
      const error = caught(InvalidJsonError, () => parseExact('{"a":{"b":1 "c":2}}'));
      expect(error.message).toBe("body.a: expected ',' or '}' after a member, got '\"' at char 12");
    });

    it('says what follows a complete value', () => {
      const error = caught(InvalidJsonError, () => parseExact('{} x'));
      expect(error.message).toBe("body: unexpected 'x' after the top-level value at char 3");
    });

    it('quotes member names that are not identifiers and uses the given root', () => {
      const error = caught(InvalidJsonError, () =>
        parseExact('{"a b":{"$ok":[01]}}', { root: 'message' }),
      );
      expect(error.field).toBe('message["a b"].$ok[0]');
    });

    it('is an invalid-input error, so the put path answers 400', () => {
      const error = caught(InvalidJsonError, () => parseExact('['));
      expect(error.kind).toBe('invalid_input');
      expect(error.name).toBe('InvalidJsonError');
    });
  });

  describe('depth', () => {
    it('counts objects and arrays, not scalars, and refuses one level past the limit', () => {
      expect(() => parseExact('[[["deep"]]]', { maxDepth: 3 })).not.toThrow();
      expect(() => parseExact('{"a":{"b":{}}}', { maxDepth: 3 })).not.toThrow();
      const error = caught(InvalidJsonError, () => parseExact('{"a":[{"b":[]}]}', { maxDepth: 3 }));
      expect(error.problem).toBe(JsonProblem.tooDeep);
      expect(error.message).toBe('body.a[0].b: nested deeper than 3 levels at char 11');
    });

    it('refuses 5,000 levels with a typed error and a bounded message, not a stack overflow', () => {
      const error = caught(InvalidJsonError, () => parseExact(nestedArrays(5000)));
      expect(error.problem).toBe(JsonProblem.tooDeep);
      expect(error.offset).toBe(1000);
      expect(error.path).toHaveLength(1000);
      expect(error.message.length).toBeLessThan(200);
    });

    it('parses 5,000 levels of objects when the limit allows, without recursion', () => {
      const text = `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`;
      const document = parseExact(text, { maxDepth: 5000 });
      expect(document.minifiedText).toBe(text);
      expect(() => parseExact(text, { maxDepth: 4999 })).toThrow(InvalidJsonError);
    });
  });

  describe('options', () => {
    it.each([
      ['a NaN depth', { maxDepth: Number.NaN }],
      ['a negative depth', { maxDepth: -1 }],
      ['a fractional materialize depth', { materializeDepth: 1.5 }],
    ])('refuses %s loudly instead of parsing without a limit', (_, options) => {
      expect(() => parseExact('[]', options)).toThrow(InternalError);
    });
  });

  describe('bom', () => {
    it('skips a leading byte order mark when told to, leaving it out of the minified text', () => {
      const document = parseExact('\uFEFF {"a":1}', { bom: BomPolicy.ignore });
      expect(document.minifiedText).toBe('{"a":1}');
      expect(document.minified(document.root)).toBe('{"a":1}');
    });

    it('refuses a leading byte order mark by default, naming it', () => {
      const error = caught(InvalidJsonError, () => parseExact('\uFEFF{}'));
      expect(error.message).toBe('body: unexpected byte order mark (U+FEFF) at char 0');
    });

    it('refuses a byte order mark anywhere but the start, even when ignoring one', () => {
      expect(() => parseExact('[\uFEFF1]', { bom: BomPolicy.ignore })).toThrow(InvalidJsonError);
    });
  });
});
