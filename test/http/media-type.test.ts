import { describe, expect, it } from 'vitest';
import { ErrorKind, UnsupportedMediaTypeError } from '../../lib/errors.js';
import { parseContentEncoding } from '../../lib/http/content-encoding.js';
import { PutMediaKind, parseMediaType, putMediaKind } from '../../lib/http/media-type.js';

const refusal = (fn: () => unknown): UnsupportedMediaTypeError => {
  try {
    fn();
  } catch (error) {
    if (error instanceof UnsupportedMediaTypeError) return error;
    throw error;
  }
  throw new Error('expected an UnsupportedMediaTypeError');
};

describe('parseMediaType', () => {
  it('lowercases type, subtype and parameter names, and unquotes quoted values', () => {
    const media = parseMediaType('Application/JSON ; Charset="UTF-8";profile="a;b\\"c"');
    expect(media).toEqual({
      type: 'application',
      subtype: 'json',
      parameters: new Map([
        ['charset', 'UTF-8'],
        ['profile', 'a;b"c'],
      ]),
    });
  });

  it('allows empty parameters, as RFC 9110 does', () => {
    expect(parseMediaType('application/json;')?.parameters.size).toBe(0);
    expect(parseMediaType('application/json; ;charset=utf-8')?.parameters.get('charset')).toBe(
      'utf-8',
    );
  });

  it.each([
    ['json'],
    ['application/'],
    ['/json'],
    ['application/json, text/plain'],
    ['application/json; charset'],
    ['application/json; charset = utf-8'],
    ['application/json; charset="utf-8'],
    ['application/json; charset=utf-8; charset=latin1'],
    ['application/json; charset=utf 8'],
  ])('returns undefined for %j', (text) => {
    expect(parseMediaType(text)).toBeUndefined();
  });
});

describe('putMediaKind', () => {
  it.each([
    [undefined],
    ['application/json'],
    ['APPLICATION/JSON'],
    ['application/json; charset=utf-8'],
    ['application/json;charset=UTF-8'],
    ['application/json; charset="utf-8"'],
    ['application/vnd.shardwal+json'],
    ['application/problem+json; charset=utf-8'],
    ['application/json; profile=x'],
  ])('reads %j as JSON', (header) => {
    expect(putMediaKind(header)).toBe(PutMediaKind.json);
  });

  it.each([
    ['application/x-ndjson'],
    ['application/ndjson'],
    ['application/jsonl'],
    ['application/x-jsonl'],
    ['application/jsonlines'],
    ['Application/X-NDJSON; charset=UTF-8'],
  ])('reads %j as newline-delimited JSON', (header) => {
    expect(putMediaKind(header)).toBe(PutMediaKind.ndjson);
  });

  it.each([
    ['text/plain'],
    ['text/json'],
    ['application/x-www-form-urlencoded'],
    ['multipart/form-data; boundary=x'],
    ['application/json; charset=iso-8859-1'],
    ['application/json; charset=utf-16'],
    ['application/json; charset=utf8'],
    ['application/+json'],
    ['application/jsonx'],
    ['application/octet-stream'],
    [''],
    ['application/json, application/json'],
    ['application/json-seq'],
    ['application/x-ndjson; charset=latin1'],
    ['text/x-ndjson'],
  ])('refuses %j with a 415 naming Content-Type and what it takes', (header) => {
    const error = refusal(() => putMediaKind(header));
    expect(error.kind).toBe(ErrorKind.unsupportedMediaType);
    expect(error.header).toBe('Content-Type');
    expect(error.message).toBe(
      `Content-Type: expected application/json or application/*+json, or newline-delimited JSON as application/x-ndjson, application/ndjson, application/jsonl, application/x-jsonl, application/jsonlines, application/x-jsonlines; with no charset or charset=utf-8, got ${JSON.stringify(header)}`,
    );
  });
});

describe('parseContentEncoding', () => {
  it.each([
    [undefined, []],
    ['identity', []],
    ['gzip', ['gzip']],
    ['GZip', ['gzip']],
    ['x-gzip', ['gzip']],
    ['identity, gzip', ['gzip']],
    ['gzip, gzip', ['gzip', 'gzip']],
    [' , gzip ,', ['gzip']],
  ])('reads %j as %j', (header, codings) => {
    expect(parseContentEncoding(header)).toEqual(codings);
  });

  it.each([['br'], ['deflate'], ['compress'], ['zstd'], ['gzip, br'], ['gzip;q=1']])(
    'refuses %j with a 415 naming Content-Encoding',
    (header) => {
      const error = refusal(() => parseContentEncoding(header));
      expect(error.header).toBe('Content-Encoding');
      expect(error.message).toBe(
        `Content-Encoding: expected gzip or identity, got ${JSON.stringify(header)}`,
      );
    },
  );
});
