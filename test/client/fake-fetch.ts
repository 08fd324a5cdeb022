/**
 * A scripted `fetch` for the client's unit tests: each request is recorded
 * (body gunzipped when sent gzipped) and answered by the next step of the
 * script, or by `fallback` once the script is used up. Helpers build the
 * service's answers, API Gateway's own, and a connection dropped after the
 * request was sent.
 */
import { gunzipSync } from 'node:zlib';

/** One request as the fake saw it. */
export interface SeenRequest {
  method: string;
  url: URL;
  headers: Record<string, string>;
  /** The body as sent (gzipped when `content-encoding: gzip`). */
  wire: Buffer;
  /** The body decoded. */
  text: string;
}

/** Answers one request; throwing simulates no answer. */
export type Step = (request: SeenRequest) => Response | Promise<Response>;

/** The fake and what it saw. */
export interface FakeFetch {
  fetch: typeof fetch;
  requests: SeenRequest[];
}

/** A fetch that answers with `script` in order, then `fallback`. */
export function fakeFetch(script: Step[], fallback?: Step): FakeFetch {
  const requests: SeenRequest[] = [];
  const steps = [...script];
  const fetchImpl = async (input: string | URL | Request, init?: RequestInit) => {
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((value, name) => {
      headers[name] = value;
    });
    const wire = init?.body ? Buffer.from(init.body as Uint8Array) : Buffer.alloc(0);
    const text = (headers['content-encoding'] === 'gzip' ? gunzipSync(wire) : wire).toString(
      'utf8',
    );
    const request: SeenRequest = {
      method: init?.method ?? 'GET',
      url: new URL(String(input)),
      headers,
      wire,
      text,
    };
    requests.push(request);
    const step = steps.shift() ?? fallback;
    if (!step) throw new Error(`fake fetch: no answer scripted for request ${requests.length}`);
    return step(request);
  };
  return { fetch: fetchImpl as typeof fetch, requests };
}

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });
}

/** The put ack for `request` (rows counted from its body) with `seq`. */
export function ackStep(seq: number, durable = false): Step {
  return (request) => {
    const rows = (JSON.parse(request.text) as { rows: unknown[] }).rows.length;
    const shard = request.url.pathname.split('/')[3];
    return json(durable ? 200 : 202, { shard, seq, rows, durable });
  };
}

/** The service's own error answer. */
export function serviceErrorStep(
  status: number,
  kind: string,
  message = `${kind} happened`,
  headers: Record<string, string> = {},
): Step {
  return () => json(status, { error: { kind, message } }, headers);
}

/** API Gateway's own `{"message"}` answer. */
export function gatewayStep(
  status: number,
  message: string,
  headers: Record<string, string> = {},
): Step {
  return () => json(status, { message }, headers);
}

/** A non-JSON answer (a proxy's HTML page). */
export function htmlStep(status: number): Step {
  return () => new Response('<html><body>Bad Gateway</body></html>', { status });
}

/** The connection drops after the request was sent: what undici throws on a reset socket. */
export function dropStep(): Step {
  return () => {
    throw new TypeError('fetch failed', {
      cause: Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }),
    });
  };
}

/** Records sleeps instead of sleeping. */
export function recordedSleep(): { sleep: (ms: number) => Promise<void>; waits: number[] } {
  const waits: number[] = [];
  return {
    waits,
    sleep: async (ms: number) => {
      waits.push(ms);
    },
  };
}
