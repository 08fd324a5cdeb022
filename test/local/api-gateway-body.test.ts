/**
 * How the local gateway hands the handler a body: as API Gateway HTTP APIs
 * do, by Content-Type alone (text for the text media types, a compressed
 * body included; base64 for everything else, a body with no Content-Type
 * included), the exact bytes sent whenever it can be — a byte order mark is
 * kept, invalid UTF-8 of an uncompressed body is passed as base64.
 */

import type { IncomingMessage } from 'node:http';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { passedAsText, toApiGatewayEvent } from '../../lib/local/api-gateway-event.js';
import { matchRoute } from '../../lib/local/http-routes.js';

/** The event of a POST to the rows route with `headers` and `body`. */
function eventOf(body: Buffer, headers: Record<string, string> = {}) {
  const request = {
    url: '/v1/shards/a/rows',
    method: 'POST',
    httpVersion: '1.1',
    headers,
    socket: { remoteAddress: '127.0.0.1' },
  } as unknown as IncomingMessage;
  return toApiGatewayEvent(request, matchRoute('POST', '/v1/shards/a/rows')!, body);
}

/** The bytes the event carries. */
const bytesOf = (event: ReturnType<typeof eventOf>) =>
  event.isBase64Encoded ? Buffer.from(event.body!, 'base64') : Buffer.from(event.body!, 'utf8');

describe('passedAsText', () => {
  it.each([
    ['application/json', true],
    ['Application/JSON; charset=utf-8', true],
    ['text/plain', true],
    ['application/xml', true],
    ['application/javascript', true],
    ['application/vnd.shardwal+json', false],
    ['application/x-www-form-urlencoded', false],
    ['application/octet-stream', false],
    [undefined, false],
  ])('%j → %j', (type, text) => {
    expect(passedAsText(type)).toBe(text);
  });
});

describe('toApiGatewayEvent', () => {
  describe('body', () => {
    const rows = Buffer.from('{"rows":[{"s":"caf\u00e9 \u{1F600}"}]}');

    it('passes a JSON body as text, byte for byte', () => {
      const event = eventOf(rows, { 'content-type': 'application/json' });
      expect(event.isBase64Encoded).toBe(false);
      expect(bytesOf(event)).toEqual(rows);
    });

    it('keeps a leading byte order mark in a text body: the handler decides', () => {
      const withBom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), rows]);
      const event = eventOf(withBom, { 'content-type': 'application/json' });
      expect(event.isBase64Encoded).toBe(false);
      expect(event.body!.charCodeAt(0)).toBe(0xfeff);
      expect(bytesOf(event)).toEqual(withBom);
    });

    it('passes a compressed body of a text type as text, as API Gateway does: the type decides', () => {
      const event = eventOf(gzipSync(rows), {
        'content-type': 'application/json',
        'content-encoding': 'gzip',
      });
      expect(event.isBase64Encoded).toBe(false);
    });

    it.each<[string, Record<string, string>]>([
      [
        'a compressed body of a vendor JSON type',
        { 'content-type': 'application/vnd.shardwal+json', 'content-encoding': 'gzip' },
      ],
      ['a vendor JSON type', { 'content-type': 'application/vnd.shardwal+json' }],
      ['no Content-Type', {}],
      ['form encoding', { 'content-type': 'application/x-www-form-urlencoded' }],
    ])('passes %s as base64 of the bytes sent', (_label, headers) => {
      const body = headers['content-encoding'] ? gzipSync(rows) : rows;
      const event = eventOf(body, headers);
      expect(event.isBase64Encoded).toBe(true);
      expect(bytesOf(event)).toEqual(body);
    });

    it('passes a text-typed body that is not UTF-8 as base64, never with U+FFFD', () => {
      const bad = Buffer.from([0x7b, 0xc3, 0x28, 0x7d]);
      const event = eventOf(bad, { 'content-type': 'application/json' });
      expect(event.isBase64Encoded).toBe(true);
      expect(bytesOf(event)).toEqual(bad);
    });
  });
});
