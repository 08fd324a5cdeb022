/** A small HTTP client for the local-stack tests: raw control over bodies and framing. */
import { request as httpRequest } from 'node:http';

/** A response with its body parsed as JSON when it is JSON. */
export interface HttpResult {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

/** Options of `send`. */
export interface SendOptions {
  body?: string | Buffer;
  headers?: Record<string, string>;
  /** Send the body chunked (no content-length). */
  chunked?: boolean;
}

/** Sends one request; resolves on the response, even if the server stopped reading the body. */
export function send(method: string, url: string, options: SendOptions = {}): Promise<HttpResult> {
  return new Promise((resolve, reject) => {
    const body = options.body === undefined ? undefined : Buffer.from(options.body);
    const headers: Record<string, string> = { ...options.headers };
    if (body && !options.chunked) headers['content-length'] = String(body.length);
    if (body && options.chunked) headers['transfer-encoding'] = 'chunked';
    let answered = false;
    const req = httpRequest(url, { method, headers }, (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let parsed: unknown = text;
        try {
          parsed = JSON.parse(text);
        } catch {
          // not JSON: keep the text
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: parsed });
      });
    });
    // A server that answers 413 and closes may reset the upload mid-way: the answer counts.
    req.on('error', (error) => {
      if (!answered) reject(error);
    });
    if (body && options.chunked) {
      for (let at = 0; at < body.length; at += 64 * 1024)
        req.write(body.subarray(at, at + 64 * 1024));
    } else if (body) {
      req.write(body);
    }
    req.end();
  });
}

/** POSTs a JSON value. */
export function postJson(url: string, value: unknown, headers: Record<string, string> = {}) {
  return send('POST', url, {
    body: JSON.stringify(value),
    headers: { 'content-type': 'application/json', ...headers },
  });
}

/** Polls `check` until it returns a value other than undefined, or fails after `timeoutMs`. */
export async function eventually<T>(
  check: () => Promise<T | undefined>,
  timeoutMs = 10_000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
