/**
 * The local HTTP API: a node:http server that plays API Gateway. Each request
 * is matched against the API's routes, its body read with the size limit
 * enforced while reading, converted to the payload-2.0 event and handed to
 * the same handler the deployed API invokes.
 *
 * Puts pass the per-shard admission first (`lib/local/put-admission.ts`),
 * which refuses a burst's excess with fast 429s before the handler.
 *
 * `close()` stops accepting connections and resolves once the requests in
 * flight have been answered (a durable put still waits for its tick: the
 * ticker stops after the gateway).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { APIGatewayProxyEventV2, APIGatewayProxyResultV2, Context } from 'aws-lambda';
import { NotFoundError } from '../../lib/errors.js';
import { errorResponse } from '../../lib/http/error-response.js';
import { bodyTooLarge } from '../../lib/http/request-body.js';
import { toApiGatewayEvent, writeResult } from '../../lib/local/api-gateway-event.js';
import { matchRoute, RouteTarget } from '../../lib/local/http-routes.js';
import { lambdaContext } from '../../lib/local/lambda-context.js';
import { listenError } from '../../lib/local/listen-error.js';
import { LOCAL_SETTINGS } from '../../lib/local/local-settings.js';
import type { Leave, PutAdmission } from '../../lib/local/put-admission.js';
import { readBody } from '../../lib/local/read-body.js';

/** An HTTP API handler as `functions/` exports it. */
export type HttpHandler = (
  event: APIGatewayProxyEventV2,
  context: Context,
) => Promise<APIGatewayProxyResultV2>;

/** Options of `startHttpGateway`. */
export interface HttpGatewayOptions {
  port: number;
  maxBodyBytes: number;
  handlers: Record<RouteTarget, HttpHandler>;
  /** The door puts pass before their handler; none: every put goes straight in. */
  admission?: PutAdmission;
  /** Requests still running this long after `close()` have their connections cut. */
  closeGraceMs?: number;
}

/** A listening gateway. */
export interface HttpGateway {
  url: string;
  close: () => Promise<void>;
}

/** Lambda function names, for the invocation context. */
const FUNCTION_NAMES: Record<RouteTarget, string> = {
  [RouteTarget.put]: 'shardwal-put-http',
  [RouteTarget.status]: 'shardwal-status-http',
};

/** Starts the gateway on 127.0.0.1:`port`. */
export async function startHttpGateway(options: HttpGatewayOptions): Promise<HttpGateway> {
  let closing = false;
  const server = createServer((request, response) => {
    void serve(request, response);
  });

  const send = (response: ServerResponse, result: APIGatewayProxyResultV2, close = false) => {
    writeResult(response, result, closing || close ? { connection: 'close' } : {});
  };

  async function serve(request: IncomingMessage, response: ServerResponse): Promise<void> {
    let leave: Leave | undefined;
    try {
      const method = request.method ?? 'GET';
      const path = new URL(request.url ?? '/', 'http://localhost').pathname;
      const route = matchRoute(method, path);
      if (!route) {
        request.resume();
        send(response, errorResponse(new NotFoundError(`route ${method} ${path}`)));
        return;
      }
      if (route.target === RouteTarget.put && options.admission) {
        try {
          leave = await options.admission.enter(route.pathParameters.shard ?? '');
        } catch (error) {
          // Refused at the door: the body is discarded unread, nothing reached the handler.
          request.resume();
          send(response, errorResponse(error));
          return;
        }
      }
      const body = await readBody(request, options.maxBodyBytes);
      if (body.status === 'too-large') {
        // The handler's own 413 (same setting named), answered before the body is buffered.
        const error = bodyTooLarge(body.limitBytes, body.gotBytes, !body.declared);
        leave?.(413);
        send(response, errorResponse(error), true);
        return;
      }
      const event = toApiGatewayEvent(request, route, body.bytes);
      const context = lambdaContext(FUNCTION_NAMES[route.target]);
      const result = await options.handlers[route.target](event, context);
      leave?.(typeof result === 'object' ? (result.statusCode ?? 200) : 200);
      send(response, result);
    } catch (error) {
      leave?.(500);
      // errorResponse logs what is not a shardwal error and answers 500 without internals.
      if (!response.headersSent) send(response, errorResponse(error), true);
      else response.destroy();
    } finally {
      if (closing) server.closeIdleConnections();
    }
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', (error) =>
      reject(listenError(LOCAL_SETTINGS.port.env, options.port, error)),
    );
    server.listen(options.port, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        closing = true;
        server.close(() => resolve());
        server.closeIdleConnections();
        setTimeout(() => server.closeAllConnections(), options.closeGraceMs ?? 30_000).unref();
      }),
  };
}
