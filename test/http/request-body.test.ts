import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { ErrorKind } from '../../lib/errors.js';
import { flushShard } from '../../lib/flush/flush-shard.js';
import { handlePut } from '../../lib/http/put-route.js';
import { bodyOf, EventFile, type HttpEventChanges, httpEvent } from '../support/events.js';
import { type Fixture, fixture, useDynalite } from '../support/harness.js';
import { storedState, walRowTexts } from './stored.js';

const dynalite = useDynalite();
const SHARD = 'orders';
const ROWS = '{"rows":[{"id":12345678901234567890,"v":1e400,"z":-0,"s":"caf\\u00e9 \u{1F600}"}]}';
const ROW = '{"id":12345678901234567890,"v":1e400,"z":-0,"s":"caf\\u00e9 \u{1F600}"}';

type ErrorBody = { error: { kind: string; message: string } };

function put(f: Fixture, changes: HttpEventChanges) {
  return handlePut(httpEvent(EventFile.apiPut, { query: null, ...changes }), f.put);
}

/** A base64 event body of `bytes` with `headers`. */
function binary(bytes: Buffer, headers: Record<string, string | undefined> = {}): HttpEventChanges {
  return { body: bytes.toString('base64'), isBase64Encoded: true, headers };
}

/** Puts `changes`, expects `status` and `kind`, and that nothing was stored. */
async function expectRefused(
  f: Fixture,
  changes: HttpEventChanges,
  status: number,
  kind: string,
): Promise<string> {
  const before = await storedState(f);
  const result = await put(f, changes);
  expect(result.statusCode).toBe(status);
  const { error } = bodyOf<ErrorBody>(result);
  expect(error.kind).toBe(kind);
  expect(await storedState(f)).toBe(before);
  return error.message;
}

describe('handlePut', () => {
  describe('Content-Encoding', () => {
    it('takes a gzip body delivered base64-encoded and stores its rows exactly as sent', async () => {
      const f = await fixture(dynalite());
      const gz = gzipSync(Buffer.from(ROWS));
      const result = await put(f, binary(gz, { 'content-encoding': 'gzip' }));
      expect(result.statusCode).toBe(202);
      await flushShard(f.flushDeps('ticker'), SHARD);
      expect(await walRowTexts(f, SHARD)).toEqual([ROW]);
    });

    it.each([['x-gzip'], ['identity, gzip'], ['GZIP']])('reads %j as gzip', async (coding) => {
      const f = await fixture(dynalite());
      const result = await put(
        f,
        binary(gzipSync(Buffer.from(ROWS)), { 'content-encoding': coding }),
      );
      expect(result.statusCode).toBe(202);
    });

    it('undoes stacked codings last to first', async () => {
      const f = await fixture(dynalite());
      const twice = gzipSync(gzipSync(Buffer.from(ROWS)));
      const result = await put(f, binary(twice, { 'content-encoding': 'gzip, gzip' }));
      expect(result.statusCode).toBe(202);
      await flushShard(f.flushDeps('ticker'), SHARD);
      expect(await walRowTexts(f, SHARD)).toEqual([ROW]);
    });

    it('answers 415 naming Content-Encoding for a coding it cannot undo', async () => {
      const f = await fixture(dynalite());
      const message = await expectRefused(
        f,
        binary(Buffer.from(ROWS), { 'content-encoding': 'br' }),
        415,
        ErrorKind.unsupportedMediaType,
      );
      expect(message).toBe('Content-Encoding: expected gzip or identity, got "br"');
    });

    it('answers 415 to a gzip body that arrived as text: its bytes cannot have survived', async () => {
      const f = await fixture(dynalite());
      const message = await expectRefused(
        f,
        { body: ROWS, headers: { 'content-encoding': 'gzip' } },
        415,
        ErrorKind.unsupportedMediaType,
      );
      expect(message).toMatch(
        /^Content-Encoding: expected identity for a body API Gateway passed as text/,
      );
    });

    it('answers 400 to a body that is not gzip data, and to bytes after the gzip data', async () => {
      const f = await fixture(dynalite());
      const notGzip = await expectRefused(
        f,
        binary(Buffer.from(ROWS), { 'content-encoding': 'gzip' }),
        400,
        ErrorKind.invalidInput,
      );
      expect(notGzip).toMatch(
        /^body: Content-Encoding is gzip but the body is not valid gzip data/,
      );
      const gz = gzipSync(Buffer.from(ROWS));
      const padded = await expectRefused(
        f,
        binary(Buffer.concat([gz, Buffer.alloc(7)]), { 'content-encoding': 'gzip' }),
        400,
        ErrorKind.invalidInput,
      );
      expect(padded).toBe(`body: 7 bytes follow the end of the gzip data (at byte ${gz.length})`);
      const truncated = await expectRefused(
        f,
        binary(gz.subarray(0, gz.length - 4), { 'content-encoding': 'gzip' }),
        400,
        ErrorKind.invalidInput,
      );
      expect(truncated).toMatch(/not valid gzip data/);
    });
  });

  describe('size limits', () => {
    it('answers 413 naming SHARDWAL_MAX_BODY_BYTES for a body over it as sent', async () => {
      const f = await fixture(dynalite(), { maxBodyBytes: 1000, maxDecodedBodyBytes: 100_000 });
      // Compresses to well under 1000 bytes: the limit as sent is what counts here.
      const rows = `{"rows":[{"s":"${'x'.repeat(5000)}"}]}`;
      expect(
        (await put(f, binary(gzipSync(Buffer.from(rows)), { 'content-encoding': 'gzip' })))
          .statusCode,
      ).toBe(202);
      const noise = Buffer.from(Array.from({ length: 1500 }, (_, i) => (i * 7919) % 251));
      const message = await expectRefused(
        f,
        binary(noise, { 'idempotency-key': 'other' }),
        413,
        ErrorKind.tooLarge,
      );
      expect(message).toBe('body: expected at most 1000 bytes (SHARDWAL_MAX_BODY_BYTES), got 1500');
    });

    it('answers 413 naming SHARDWAL_MAX_DECODED_BODY_BYTES for a gzip bomb, and stores nothing', async () => {
      const f = await fixture(dynalite(), {
        maxBodyBytes: 64 * 1024,
        maxDecodedBodyBytes: 64 * 1024,
      });
      const bomb = gzipSync(Buffer.alloc(50 * 1024 * 1024, 0x20));
      expect(bomb.length).toBeLessThan(f.config.maxBodyBytes);
      const message = await expectRefused(
        f,
        binary(bomb, { 'content-encoding': 'gzip' }),
        413,
        ErrorKind.tooLarge,
      );
      expect(message).toBe(
        'body after Content-Encoding gzip: expected at most 65536 bytes (SHARDWAL_MAX_DECODED_BODY_BYTES), got more than 65536',
      );
    });

    it('stops a bomb while inflating: one that inflates past what a Buffer holds is refused at the limit', async () => {
      // 70 gzip members of 64 MiB of zeros: 4.4 GiB inflated from 4.5 MB. Inflating it all
      // before checking would exhaust memory (Node's Buffer stops at 4 GiB); bounded, it
      // stops at the decoded limit, here the size as sent.
      const member = gzipSync(Buffer.alloc(64 * 1024 * 1024), { level: 9 });
      const bomb = Buffer.concat(Array.from({ length: 70 }, () => member));
      const f = await fixture(dynalite(), {
        maxBodyBytes: bomb.length,
        maxDecodedBodyBytes: bomb.length,
      });
      const message = await expectRefused(
        f,
        binary(bomb, { 'content-encoding': 'gzip' }),
        413,
        ErrorKind.tooLarge,
      );
      expect(message).toContain(
        `expected at most ${bomb.length} bytes (SHARDWAL_MAX_DECODED_BODY_BYTES), got more than ${bomb.length}`,
      );
    });
  });

  describe('Content-Type', () => {
    it.each([
      ['text/plain'],
      ['application/x-www-form-urlencoded'],
      ['application/json; charset=iso-8859-1'],
    ])('answers 415 naming Content-Type to %j, text or bytes', async (type) => {
      const f = await fixture(dynalite());
      for (const changes of [
        { body: ROWS, headers: { 'content-type': type } },
        binary(Buffer.from(ROWS), { 'content-type': type }),
      ]) {
        const message = await expectRefused(f, changes, 415, ErrorKind.unsupportedMediaType);
        expect(message).toMatch(
          /^Content-Type: expected application\/json or application\/\*\+json/,
        );
      }
    });

    it('reads a body with no Content-Type as JSON, and takes application/*+json', async () => {
      const f = await fixture(dynalite());
      const none = await put(f, binary(Buffer.from(ROWS), { 'content-type': undefined }));
      expect(none.statusCode).toBe(202);
      const vendor = await put(f, {
        ...binary(Buffer.from(ROWS), { 'content-type': 'application/vnd.shardwal+json' }),
        headers: { 'content-type': 'application/vnd.shardwal+json', 'idempotency-key': 'v' },
      });
      expect(vendor.statusCode).toBe(202);
    });
  });

  describe('text', () => {
    it('answers 400 naming the offset of the first byte that is not UTF-8', async () => {
      const f = await fixture(dynalite());
      const bytes = Buffer.concat([
        Buffer.from('{"rows":[{"s":"ab'),
        Buffer.from([0xc3, 0x28]),
        Buffer.from('"}]}'),
      ]);
      const message = await expectRefused(f, binary(bytes), 400, ErrorKind.invalidInput);
      expect(message).toBe(
        'body: invalid UTF-8 at byte 17: expected a continuation byte at 18, got 0x28',
      );
    });

    it('gives a leading byte order mark the same answer as text, as bytes and gzipped', async () => {
      const f = await fixture(dynalite());
      const withBom = `\u{FEFF}${ROWS}`;
      const answers = [
        await put(f, { body: withBom, headers: { 'idempotency-key': 'text' } }),
        await put(f, binary(Buffer.from(withBom), { 'idempotency-key': 'bytes' })),
        await put(
          f,
          binary(gzipSync(Buffer.from(withBom)), {
            'idempotency-key': 'gz',
            'content-encoding': 'gzip',
          }),
        ),
      ];
      expect(answers.map((a) => a.statusCode)).toEqual([202, 202, 202]);
      await flushShard(f.flushDeps('ticker'), SHARD);
      expect(await walRowTexts(f, SHARD)).toEqual([ROW, ROW, ROW]);
    });
  });

  describe('backpressure', () => {
    it("answers 429 naming the incoming batch's bytes beside the buffered bytes and the limit", async () => {
      const f = await fixture(dynalite(), { maxBufferedBytes: 100, flushTriggerBytes: 100 });
      const rows = (n: number) => `{"rows":[{"s":"${'x'.repeat(n)}"}]}`;
      expect(
        (await put(f, { body: rows(60), headers: { 'idempotency-key': 'a' } })).statusCode,
      ).toBe(202);
      const result = await put(f, { body: rows(50), headers: { 'idempotency-key': 'b' } });
      expect(result.statusCode).toBe(429);
      expect(bodyOf<ErrorBody>(result).error.message).toMatch(
        /^shard orders: a batch of \d+ bytes does not fit beside the \d+ bytes buffered, limit is 100; retry after 1s$/,
      );
      const [incoming, buffered] = bodyOf<ErrorBody>(result)
        .error.message.match(/\d+/g)!
        .map(Number);
      expect(incoming).toBeGreaterThan(50);
      expect(buffered).toBeGreaterThan(60);
    });
  });
});
