/**
 * A fault-injecting HTTP proxy for the client's integration tests. It sits
 * between the client and the local stack and, per request, either forwards
 * it or injects a fault chosen by `plan`:
 *
 * - `drop-before`: closes the connection without forwarding;
 * - `drop-after`: forwards (the put lands), then closes the connection
 *   without answering: the client cannot know it landed;
 * - `answer`: answers itself without forwarding (the service's 429/409/503
 *   of each kind, API Gateway's own 429/5xx);
 * - `answer-after`: forwards (the put lands), then answers an error instead
 *   of the real answer (a lost ack).
 *
 * While the upstream is away (a restart), requests are dropped, as a load
 * balancer with no target would.
 */
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A canned answer. */
export interface Canned {
  status: number;
  body: string;
  headers?: Record<string, string>;
}

/** What the proxy does with one request. */
export type Fault =
  | { type: 'pass' }
  | { type: 'drop-before' }
  | { type: 'drop-after' }
  | { type: 'answer'; answer: Canned; label: string }
  | { type: 'answer-after'; answer: Canned; label: string };

/** The fault for the n-th request (1-based) with this method and path. */
export type FaultPlan = (request: { n: number; method: string; path: string }) => Fault;

/** The service's own error answer. */
export function serviceAnswer(status: number, kind: string, retryAfterSeconds?: number): Canned {
  return {
    status,
    body: JSON.stringify({ error: { kind, message: `injected ${kind}` } }),
    headers: {
      'content-type': 'application/json',
      ...(retryAfterSeconds === undefined ? {} : { 'retry-after': String(retryAfterSeconds) }),
    },
  };
}

/** API Gateway's own answer. */
export function gatewayAnswer(status: number, message: string): Canned {
  return {
    status,
    body: JSON.stringify({ message }),
    headers: { 'content-type': 'application/json' },
  };
}

/** A running proxy. */
export interface FaultProxy {
  url: string;
  /** Faults injected so far, by label (`drop-before`, `drop-after`, or the answer's label). */
  injected: Map<string, number>;
  /** Requests seen so far. */
  requests: () => number;
  close: () => Promise<void>;
}

async function readAll(stream: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks);
}

function forward(
  upstream: string,
  request: IncomingMessage,
  body: Buffer,
): Promise<{ status: number; headers: Record<string, string>; body: Buffer }> {
  const target = new URL(request.url ?? '/', upstream);
  return new Promise((resolve, reject) => {
    const out = httpRequest(
      target,
      {
        method: request.method,
        headers: { ...request.headers, host: target.host, 'content-length': String(body.length) },
      },
      (response) => {
        readAll(response).then((answer) => {
          const headers: Record<string, string> = {};
          for (const [name, value] of Object.entries(response.headers)) {
            if (
              typeof value === 'string' &&
              name !== 'connection' &&
              name !== 'transfer-encoding'
            ) {
              headers[name] = value;
            }
          }
          resolve({ status: response.statusCode ?? 502, headers, body: answer });
        }, reject);
      },
    );
    out.on('error', reject);
    out.end(body);
  });
}

/** Starts a proxy in front of whatever `upstream()` names (undefined while it is away). */
export async function startFaultProxy(
  upstream: () => string | undefined,
  plan: FaultPlan,
): Promise<FaultProxy> {
  const injected = new Map<string, number>();
  const counts = new Map<string, number>();
  let total = 0;
  const note = (label: string) => injected.set(label, (injected.get(label) ?? 0) + 1);
  const server: Server = createServer((request, response) => {
    void (async () => {
      total++;
      const body = await readAll(request);
      const path = new URL(request.url ?? '/', 'http://proxy').pathname;
      const id = `${request.method} ${path}`;
      const n = (counts.get(id) ?? 0) + 1;
      counts.set(id, n);
      const drop = () => request.socket.destroy();
      const target = upstream();
      if (target === undefined) {
        note('upstream-away');
        drop();
        return;
      }
      // Planned only while the upstream is there, so a restart does not swallow planned faults.
      const fault = plan({ n, method: request.method ?? 'GET', path });
      if (fault.type === 'drop-before') {
        note('drop-before');
        drop();
        return;
      }
      if (fault.type === 'answer') {
        note(fault.label);
        response.writeHead(fault.answer.status, fault.answer.headers).end(fault.answer.body);
        return;
      }
      let real: Awaited<ReturnType<typeof forward>>;
      try {
        real = await forward(target, request, body);
      } catch {
        note('upstream-away');
        drop();
        return;
      }
      if (fault.type === 'drop-after') {
        note('drop-after');
        drop();
        return;
      }
      if (fault.type === 'answer-after') {
        note(fault.label);
        response.writeHead(fault.answer.status, fault.answer.headers).end(fault.answer.body);
        return;
      }
      response.writeHead(real.status, real.headers).end(real.body);
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    injected,
    requests: () => total,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
