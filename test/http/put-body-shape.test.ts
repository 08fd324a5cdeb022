import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../lib/errors.js';
import { PutMediaKind } from '../../lib/http/media-type.js';
import { putBodyShape } from '../../lib/http/put-body-shape.js';
import { handlePut } from '../../lib/http/put-route.js';
import { BodyForm } from '../../lib/json/exact-put-body.js';
import { caught } from '../json/helpers.js';
import { bodyOf, EventFile, httpEvent } from '../support/events.js';
import { fixture, useDynalite } from '../support/harness.js';

const dynalite = useDynalite();
const { json, ndjson } = PutMediaKind;

const refusal = (fn: () => unknown) => caught(InvalidInputError, fn).message;

describe('putBodyShape', () => {
  it.each<[string, PutMediaKind, string, BodyForm]>([
    ['an object', json, ' {"rows":[]}', BodyForm.object],
    ['an array after a BOM and whitespace', json, '\uFEFF \n [{}]', BodyForm.array],
    ['anything with a newline-delimited type', ndjson, '[{}]', BodyForm.ndjson],
    ['an empty JSON body (refused later as empty)', json, '', BodyForm.object],
  ])('reads %s as its form', (_, media, text, form) => {
    expect(putBodyShape(undefined, media, text).form).toBe(form);
  });

  it('takes format=ndjson for a JSON Lines body labelled application/json', () => {
    expect(putBodyShape({ format: 'ndjson' }, json, '{"a":1}\n{"a":2}').form).toBe(BodyForm.ndjson);
  });

  it.each<[Record<string, string>, PutMediaKind, string, string]>([
    [{ format: 'csv' }, json, '{}', 'format: expected object, array, ndjson or nothing, got "csv"'],
    [
      { format: 'array' },
      ndjson,
      '{}',
      'format: array contradicts a newline-delimited Content-Type (send application/json, or drop format)',
    ],
    [
      { rows: 'logs' },
      json,
      '[{}]',
      'rows: names the member of an object body that holds the rows; a body sent as array has none',
    ],
    [
      { rows: 'logs' },
      ndjson,
      '{}',
      'rows: names the member of an object body that holds the rows; a body sent as ndjson has none',
    ],
    [
      { rows: '' },
      json,
      '{}',
      'rows: expected a member name of 1 to 256 characters other than key, got ""',
    ],
    [
      { rows: 'key' },
      json,
      '{}',
      'rows: expected a member name of 1 to 256 characters other than key, got "key"',
    ],
  ])('refuses %j naming the parameter', (query, media, text, message) => {
    expect(refusal(() => putBodyShape(query, media, text))).toBe(message);
  });
});

describe('handlePut', () => {
  describe('body forms', () => {
    it('lands a shipper batch wrapped as {"logs": [...]} when told ?rows=logs', async () => {
      const f = await fixture(dynalite());
      const body = JSON.stringify({
        logs: [
          { level: 30, msg: 'a' },
          { level: 40, msg: 'b' },
        ],
      });
      const refused = await handlePut(httpEvent(EventFile.apiPut, { body }), f.put);
      expect(refused.statusCode).toBe(400);
      expect(bodyOf<{ error: { message: string } }>(refused).error.message).toBe(
        'body: unknown member "logs" (rows wrapped in another member are read with ?rows=<member>)',
      );
      const result = await handlePut(
        httpEvent(EventFile.apiPut, { body, query: { rows: 'logs' } }),
        f.put,
      );
      expect(result.statusCode).toBe(202);
      expect(bodyOf(result)).toMatchObject({ rows: 2 });
    });

    it('lands a gzip NDJSON body passed as bytes, keyed by ?key=', async () => {
      const f = await fixture(dynalite());
      const text = '{"id":"a","v":1}\n{"id":"b","$delete":true}\n';
      const result = await handlePut(
        httpEvent(EventFile.apiPut, {
          body: gzipSync(text).toString('base64'),
          isBase64Encoded: true,
          query: { key: 'id' },
          headers: { 'content-type': 'application/x-ndjson', 'content-encoding': 'gzip' },
        }),
        f.put,
      );
      expect(result.statusCode, result.body).toBe(202);
      expect(bodyOf(result)).toMatchObject({ rows: 2 });
    });

    it('refuses a newline-delimited body in another charset with a 415', async () => {
      const f = await fixture(dynalite());
      const result = await handlePut(
        httpEvent(EventFile.apiPut, {
          body: '{"a":1}\n',
          headers: { 'content-type': 'application/x-ndjson; charset=utf-16' },
        }),
        f.put,
      );
      expect(result.statusCode).toBe(415);
    });
  });
});
