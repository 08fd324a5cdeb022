import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../lib/errors.js';
import { DELETE_MEMBER, parseJsonBody, parsePutBody } from '../../lib/put/schema.js';

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

describe('parsePutBody', () => {
  it('turns keyless rows into appends', () => {
    expect(parsePutBody({ rows: [{ a: 1 }, { b: [2] }] }, 10)).toEqual({
      rows: [{ row: { a: 1 } }, { row: { b: [2] } }],
    });
  });

  it('keys rows by the named field (strings and numbers) and turns $delete rows into deletes', () => {
    const parsed = parsePutBody(
      { key: 'id', rows: [{ id: 'a', v: 1 }, { id: 7 }, { id: 'a', [DELETE_MEMBER]: true }] },
      10,
    );
    expect(parsed.rows).toEqual([
      { key: 'a', row: { id: 'a', v: 1 } },
      { key: '7', row: { id: 7 } },
      { key: 'a', delete: true },
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
    const error = invalid(() => parsePutBody(body, 3));
    expect(error.field).toBe(field);
    expect(error.message.startsWith(`${field}: `)).toBe(true);
  });

  it('names the unknown top-level field in the message', () => {
    expect(invalid(() => parsePutBody({ rows: [{}], extra: 1 }, 3)).message).toContain('extra');
  });

  it('keeps a row member named __proto__ as data, not as a prototype', () => {
    const body = parseJsonBody('{"rows":[{"__proto__":{"x":1},"a":2}]}');
    const [first] = parsePutBody(body, 10).rows;
    expect(JSON.stringify(first?.row)).toBe('{"__proto__":{"x":1},"a":2}');
    expect(Object.getPrototypeOf(first?.row)).toBe(Object.prototype);
  });

  it('accepts __proto__ as the key field', () => {
    const body = parseJsonBody('{"key":"__proto__","rows":[{"__proto__":"k1","v":1}]}');
    expect(parsePutBody(body, 10).rows[0]?.key).toBe('k1');
  });

  it('accepts rows nested a little way', () => {
    const body = parseJsonBody(`{"rows":[{"a":${nested(64)}}]}`);
    expect(parsePutBody(body, 10).rows).toHaveLength(1);
  });

  it('rejects rows nested deeper than any encoder can handle, naming the row', () => {
    const body = parseJsonBody(`{"rows":[{"ok":1},{"a":${nested(20_000)}}]}`);
    const error = invalid(() => parsePutBody(body, 10));
    expect(error.field).toBe('body.rows[1]');
    expect(error.message).toMatch(/nest/);
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
