import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../lib/errors.js';
import { InvalidJsonError, JsonProblem } from '../../lib/json/errors.js';
import { BomPolicy } from '../../lib/json/exact-parse.js';
import { BodyForm, scanPutBody } from '../../lib/json/exact-put-body.js';
import { caught } from './helpers.js';

const RULES = {
  maxRows: 3,
  maxRowDepth: 4,
  maxKeyChars: 16,
  maxKeyNameChars: 8,
  deleteMember: '$delete',
};
const NDJSON = { form: BodyForm.ndjson };

const refusal = (fn: () => unknown) => caught(InvalidInputError, fn);

describe('scanPutBody', () => {
  describe('ndjson form', () => {
    it('reads one row per line, minified, skipping blank lines and CRLF endings', () => {
      const text = '{"a": 1}\r\n\n  \t\n{ "b" : [1, 2] }\n';
      expect(scanPutBody(text, RULES, NDJSON).rows).toEqual([
        { text: '{"a":1}' },
        { text: '{"b":[1,2]}' },
      ]);
    });

    it('reads a last line with no line ending', () => {
      expect(scanPutBody('{"a":1}\n{"b":2}', RULES, NDJSON).rows).toHaveLength(2);
    });

    it('keys rows by the key named outside the body, deletes included', () => {
      const text = '{"id":"x","v":1}\n{"id":7,"$delete":true}\n';
      const body = scanPutBody(text, RULES, { ...NDJSON, key: 'id' });
      expect(body.key).toBe('id');
      expect(body.rows).toEqual([
        { text: '{"id":"x","v":1}', key: { type: 'string', value: 'x', id: '"x"' } },
        {
          text: '{"id":7,"$delete":true}',
          key: { type: 'number', text: '7', id: '7' },
          delete: true,
        },
      ]);
    });

    it('skips a byte order mark at the start of the body only when told to', () => {
      expect(() => scanPutBody('\uFEFF{"a":1}', RULES, NDJSON)).toThrow(InvalidJsonError);
      const body = scanPutBody(
        '\uFEFF{"a":1}\n{"b":2}',
        { ...RULES, bom: BomPolicy.ignore },
        NDJSON,
      );
      expect(body.rows).toEqual([{ text: '{"a":1}' }, { text: '{"b":2}' }]);
      const second = refusal(() =>
        scanPutBody('{"a":1}\n\uFEFF{"b":2}', { ...RULES, bom: BomPolicy.ignore }, NDJSON),
      );
      expect(second.message).toBe('body line 2: unexpected byte order mark (U+FEFF) at char 0');
    });

    it.each<[string, string]>([
      ['{"a":1}\n{"a":1,"a":2}', 'body line 2.a: duplicate member "a" at char 7'],
      ['{"a":1}\n\n{"b":2}\n{"c":3,}', 'body line 4: '],
      ['{"a":1} {"b":2}', 'body line 1: '],
      ['{"a":1}\n[1]', 'body line 2: expected a JSON object, got array'],
      ['{"a":"\\ud800"}', 'body line 1.a: '],
      ['{"a":[[[[1]]]]}', 'body line 1: nested deeper than 4 levels'],
    ])('refuses %j naming the line: %s', (text, start) => {
      const error = refusal(() => scanPutBody(text, RULES, NDJSON));
      expect(error.message.startsWith(start), error.message).toBe(true);
    });

    it('names the line and the char offset in it', () => {
      const error = refusal(() => scanPutBody('{"a":1}\n{"b":2,,}', RULES, NDJSON));
      expect(error).toBeInstanceOf(InvalidJsonError);
      expect((error as InvalidJsonError).problem).toBe(JsonProblem.syntax);
      expect(error.message).toMatch(/^body line 2: .* at char 7$/);
    });

    it('names the line of a bad key', () => {
      const error = refusal(() =>
        scanPutBody('{"id":"a"}\n{"id":null}', RULES, { ...NDJSON, key: 'id' }),
      );
      expect(error.message).toBe(
        'body line 2.id: expected a non-empty string or a number of at most 16 characters, got null',
      );
    });

    it('refuses more rows than the limit at the first row past it, and an empty body', () => {
      const error = refusal(() => scanPutBody('{}\n{}\n\n{}\n{}\n{}', RULES, NDJSON));
      expect(error.message).toBe('body: expected 1 to 3 rows, got more (line 5 is row 4)');
      expect(refusal(() => scanPutBody(' \n\r\n', RULES, NDJSON)).message).toBe(
        'body: expected 1 to 3 rows, one JSON object per line, got none',
      );
    });
  });

  describe('array form', () => {
    it('reads a bare array of rows, keyed by the key named outside the body', () => {
      const body = scanPutBody(' [ {"id": "x"}, {"id": 2} ] ', RULES, {
        form: BodyForm.array,
        key: 'id',
      });
      expect(body.rows.map((row) => [row.text, row.key?.id])).toEqual([
        ['{"id":"x"}', '"x"'],
        ['{"id":2}', '2'],
      ]);
    });

    it.each<[string, string]>([
      ['[{"a":1},2]', 'body[1]: expected a JSON object, got number'],
      ['[]', 'body: expected 1 to 3 rows, got 0'],
      ['[{},{},{},{}]', 'body: expected 1 to 3 rows, got 4'],
      ['{"rows":[{}]}', 'body: expected an array of rows, got object'],
      ['', 'body: expected a JSON array of rows, got an empty body'],
      ['[{"a":[[[[1]]]]}]', 'body[0]: nested deeper than 4 levels'],
      ['[{"$delete":true}]', 'body[0].$delete: deletes need a "key" field'],
    ])('refuses %j naming the index: %s', (text, start) => {
      const error = refusal(() => scanPutBody(text, RULES, { form: BodyForm.array }));
      expect(error.message.startsWith(start), error.message).toBe(true);
    });
  });

  describe('object form', () => {
    it('reads the rows from the member the shape names', () => {
      const body = scanPutBody('{"logs":[{"m":"a"}]}', RULES, { rowsMember: 'logs' });
      expect(body.rows).toEqual([{ text: '{"m":"a"}' }]);
      const error = refusal(() => scanPutBody('{"rows":[{}]}', RULES, { rowsMember: 'logs' }));
      expect(error.message).toBe('body: unknown member "rows"');
    });

    it('names the way to rename the rows member when told it, for an unknown member', () => {
      const error = refusal(() =>
        scanPutBody('{"logs":[{}]}', RULES, { rowsMemberHint: '?rows=<member>' }),
      );
      expect(error.message).toBe(
        'body: unknown member "logs" (rows wrapped in another member are read with ?rows=<member>)',
      );
    });

    it('takes a key named outside the body, and refuses one that contradicts body.key', () => {
      const outside = { key: 'id', keyField: 'key' };
      const body = scanPutBody('{"rows":[{"id":1}]}', RULES, outside);
      expect(body.rows[0]?.key?.id).toBe('1');
      expect(scanPutBody('{"key":"id","rows":[{"id":1}]}', RULES, outside).key).toBe('id');
      const error = refusal(() => scanPutBody('{"key":"k","rows":[{"k":1}]}', RULES, outside));
      expect(error.message).toBe('key: names "id" but body.key names "k"');
    });

    it('refuses a key named outside the body that no row could carry', () => {
      const error = refusal(() =>
        scanPutBody('[{}]', RULES, { form: BodyForm.array, key: '$delete' }),
      );
      expect(error.message).toBe(
        'key: expected a field name of 1 to 8 characters other than $delete, got "$delete"',
      );
    });
  });
});
