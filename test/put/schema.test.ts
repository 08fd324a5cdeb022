import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../lib/errors.js';
import { DELETE_MEMBER, parseJsonBody, parsePutText } from '../../lib/put/schema.js';

/** The InvalidInputError `fn` throws. */
function invalid(fn: () => unknown): InvalidInputError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidInputError);
    return error as InvalidInputError;
  }
  throw new Error('expected an InvalidInputError, got none');
}

const nested = (depth: number): string => `${'['.repeat(depth)}${']'.repeat(depth)}`;
const parse = (body: unknown, maxRows = 10) => parsePutText(JSON.stringify(body), maxRows);

describe('parsePutText', () => {
  it('turns keyless rows into appends, each row its minified text', () => {
    expect(parsePutText('{"rows": [ {"a": 1}, {"b" : [2]} ]}', 10).rows).toEqual([
      { text: '{"a":1}' },
      { text: '{"b":[2]}' },
    ]);
  });

  it('keys rows by the named field (strings and numbers) and turns $delete rows into deletes', () => {
    const parsed = parse({
      key: 'id',
      rows: [{ id: 'a', v: 1 }, { id: 7 }, { id: 'a', [DELETE_MEMBER]: true }],
    });
    expect(parsed.rows).toEqual([
      { key: '"a"', text: '{"id":"a","v":1}' },
      { key: '7', text: '{"id":7}' },
      { key: '"a"', delete: true },
    ]);
  });

  it('keeps numbers exactly as sent, and tells keys apart by type and exact value', () => {
    const text =
      '{"key":"id","rows":[{"id":9007199254740993,"x":1e400,"z":-0},{"id":9007199254740992},{"id":"1"},{"id":1},{"id":1E0}]}';
    const { rows } = parsePutText(text, 10);
    expect(rows.map((row) => row.text)).toEqual([
      '{"id":9007199254740993,"x":1e400,"z":-0}',
      '{"id":9007199254740992}',
      '{"id":"1"}',
      '{"id":1}',
      '{"id":1E0}',
    ]);
    expect(rows.map((row) => row.key)).toEqual([
      '9007199254740993',
      '9007199254740992',
      '"1"',
      '1',
      '1',
    ]);
  });

  it.each([
    ['rows missing', {}, 'body.rows'],
    ['rows empty', { rows: [] }, 'body.rows'],
    ['rows not an array', { rows: { a: 1 } }, 'body.rows'],
    ['too many rows', { rows: [{}, {}, {}, {}] }, 'body.rows'],
    ['a row that is a string', { rows: [{}, 'x'] }, 'body.rows[1]'],
    ['a row that is an array', { rows: [[1]] }, 'body.rows[0]'],
    ['a row that is null', { rows: [null] }, 'body.rows[0]'],
    ['an unknown top-level field', { rows: [{}], durable: true }, 'body'],
    [
      'a keyed row without its key',
      { key: 'id', rows: [{ id: 'a' }, { v: 1 }] },
      'body.rows[1].id',
    ],
    ['an empty key value', { key: 'id', rows: [{ id: '' }] }, 'body.rows[0].id'],
    ['an object key value', { key: 'id', rows: [{ id: { x: 1 } }] }, 'body.rows[0].id'],
    ['$delete without key', { rows: [{ id: 'a', [DELETE_MEMBER]: true }] }, 'body.rows[0].$delete'],
    [
      '$delete not true',
      { key: 'id', rows: [{ id: 'a', [DELETE_MEMBER]: 1 }] },
      'body.rows[0].$delete',
    ],
    ['key named $delete', { key: DELETE_MEMBER, rows: [{}] }, 'body.key'],
    ['an empty key name', { key: '', rows: [{}] }, 'body.key'],
    ['a body that is an array', [{ rows: [] }], 'body'],
    ['a body that is null', null, 'body'],
  ])('rejects %s, naming %s', (_label, body, field) => {
    const error = invalid(() => parse(body, 3));
    expect(error.field).toBe(field);
    expect(error.message.startsWith(`${field}: `)).toBe(true);
  });

  it.each([
    ['a duplicate member', '{"rows":[{"a":1,"a":2}]}', 'body.rows[0].a', 'duplicate member'],
    [
      'a duplicate spelled with an escape',
      '{"rows":[{"a":1,"\\u0061":2}]}',
      'body.rows[0]',
      'duplicate member',
    ],
    ['a lone surrogate', '{"rows":[{"s":"\\ud800x"}]}', 'body.rows[0].s', 'lone surrogate'],
    ['malformed JSON', '{"rows": [', 'body', ''],
  ])('refuses %s, naming the field', (_label, text, field, problem) => {
    const error = invalid(() => parsePutText(text, 10));
    expect(error.field.startsWith(field)).toBe(true);
    expect(error.message).toContain(problem);
  });

  it('names the unknown top-level field in the message', () => {
    expect(invalid(() => parse({ rows: [{}], extra: 1 }, 3)).message).toContain('extra');
  });

  it('keeps a row member named __proto__ as data', () => {
    const [first] = parsePutText('{"rows":[{"__proto__":{"x":1},"a":2}]}', 10).rows;
    expect(first?.text).toBe('{"__proto__":{"x":1},"a":2}');
  });

  it('accepts __proto__ as the key field', () => {
    const text = '{"key":"__proto__","rows":[{"__proto__":"k1","v":1}]}';
    expect(parsePutText(text, 10).rows[0]?.key).toBe('"k1"');
  });

  it('accepts rows nested a little way, and a leading byte order mark', () => {
    expect(parsePutText(`{"rows":[{"a":${nested(64)}}]}`, 10).rows).toHaveLength(1);
    expect(parsePutText('\ufeff{"rows":[{}]}', 10).rows).toEqual([{ text: '{}' }]);
  });

  it('rejects rows nested deeper than the limit, naming the row', () => {
    const error = invalid(() => parsePutText(`{"rows":[{"ok":1},{"a":${nested(20_000)}}]}`, 10));
    expect(error.field).toBe('body.rows[1]');
    expect(error.message).toMatch(/nest/);
  });

  it('reads extra members the caller allows (the SQS message shard)', () => {
    const parsed = parsePutText('{"shard":"s1","rows":[{}]}', 10, ['shard']);
    expect(parsed.others.get('shard')).toMatchObject({ kind: 'string', value: 's1' });
  });
});

describe('parseJsonBody', () => {
  it.each([undefined, '', '   '])('rejects an empty body %j naming body', (text) => {
    expect(invalid(() => parseJsonBody(text)).field).toBe('body');
  });

  it('rejects malformed JSON naming body', () => {
    const error = invalid(() => parseJsonBody('{"rows": ['));
    expect(error.field).toBe('body');
    expect(error.message).toContain('not valid JSON');
  });
});
