/**
 * Reads a request body with a byte limit enforced while reading: a declared
 * `content-length` over the limit is refused before reading anything, and an
 * undeclared (chunked) body stops being read once it passes the limit, so an
 * oversized body is never buffered whole. The bytes are returned as read:
 * no decoding happens here (`api-gateway-event.ts` passes them on exactly).
 */
import type { IncomingMessage } from 'node:http';

/** The body, or how far past the limit it went. */
export type BodyRead =
  | { status: 'ok'; bytes: Buffer }
  | {
      status: 'too-large';
      limitBytes: number;
      /** The declared content-length, or what was read when reading stopped (a lower bound). */
      gotBytes: number;
      /** True when `gotBytes` is the declared length; false when it is where reading stopped. */
      declared: boolean;
    };

/** Reads at most `limitBytes` of `request`. */
export async function readBody(request: IncomingMessage, limitBytes: number): Promise<BodyRead> {
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > limitBytes) {
    request.resume(); // let the socket drain; the caller answers and closes the connection
    return { status: 'too-large', limitBytes, gotBytes: declared, declared: true };
  }
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    total += chunk.length;
    if (total > limitBytes) {
      request.resume();
      return { status: 'too-large', limitBytes, gotBytes: total, declared: false };
    }
    chunks.push(chunk);
  }
  return { status: 'ok', bytes: Buffer.concat(chunks, total) };
}
