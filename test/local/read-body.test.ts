/**
 * The local gateway's body limit (`lib/local/read-body.ts`): enforced while a
 * chunked body streams in, so an oversized body is never read (or buffered)
 * whole; a body of exactly the limit is taken.
 */
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readBody } from '../../lib/local/read-body.js';

const CHUNK = 1_024;

/** A chunked request (no content-length) of `chunks` chunks of 1 KiB; counts the chunks read. */
function chunkedRequest(chunks: number) {
  let produced = 0;
  const stream = new Readable({
    highWaterMark: CHUNK,
    read() {
      if (produced === chunks) this.push(null);
      else {
        produced += 1;
        this.push(Buffer.alloc(CHUNK, 'a'));
      }
    },
  });
  const request = Object.assign(stream, { headers: {} }) as unknown as IncomingMessage;
  return { request, produced: () => produced };
}

describe('readBody', () => {
  it('stops reading a chunked body once it passes the limit, long before its end', async () => {
    const { request, produced } = chunkedRequest(1_000);
    const read = await readBody(request, 10 * CHUNK);
    expect(read).toMatchObject({ status: 'too-large', limitBytes: 10 * CHUNK, declared: false });
    if (read.status !== 'too-large') return;
    // Where reading stopped: the first chunk past the limit (a stream reads a little ahead).
    expect(read.gotBytes).toBe(11 * CHUNK);
    expect(produced()).toBeLessThan(20);
    request.destroy();
  });

  it('takes a chunked body of exactly the limit, byte for byte', async () => {
    const { request } = chunkedRequest(10);
    const read = await readBody(request, 10 * CHUNK);
    expect(read.status).toBe('ok');
    if (read.status === 'ok') expect(read.bytes).toEqual(Buffer.alloc(10 * CHUNK, 'a'));
  });

  it('takes a body whose declared length is exactly the limit', async () => {
    const { request } = chunkedRequest(10);
    (request.headers as Record<string, string>)['content-length'] = String(10 * CHUNK);
    const read = await readBody(request, 10 * CHUNK);
    expect(read.status).toBe('ok');
    if (read.status === 'ok') expect(read.bytes).toEqual(Buffer.alloc(10 * CHUNK, 'a'));
  });

  it('refuses a declared length over the limit before reading anything', async () => {
    const { request, produced } = chunkedRequest(20);
    (request.headers as Record<string, string>)['content-length'] = String(20 * CHUNK);
    const read = await readBody(request, 10 * CHUNK);
    expect(read).toMatchObject({ status: 'too-large', gotBytes: 20 * CHUNK, declared: true });
    request.destroy();
    expect(produced()).toBeLessThanOrEqual(1);
  });
});
