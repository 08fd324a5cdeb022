/**
 * Turns a non-2xx answer into its typed error. Two shapes arrive:
 *
 * - the service's own `{"error": {"kind", "message"}}`: the kind decides;
 * - API Gateway's (or a proxy's) own `{"message": "..."}` or no JSON at all:
 *   401/403 (signature or IAM), 429 throttling without `Retry-After`, 413
 *   over 10 MB, 5xx when the function failed or timed out. The status
 *   decides, and a 5xx from the gateway is retryable (the put may have run;
 *   the same key makes the retry safe), unlike the service's own 500s.
 */
import { ErrorKind } from '../errors.js';
import { isRetryableKind } from './error-kinds.js';
import {
  type ApiError,
  type ApiErrorInit,
  BackpressureApiError,
  ConfigApiError,
  ERROR_CLASS_OF_KIND,
  ErrorOrigin,
  ForbiddenApiError,
  InvalidInputApiError,
  NotFoundApiError,
  TooLargeApiError,
  UnavailableApiError,
  UnsupportedMediaTypeApiError,
} from './errors.js';

/** A received answer. */
export interface ReceivedResponse {
  status: number;
  /** `Retry-After`, as sent. */
  retryAfter: string | null;
  /** `Location`, for a redirect's message. */
  location?: string | null;
  bodyText: string;
}

const KINDS = new Set<string>(Object.values(ErrorKind));

/**
 * `Retry-After` in milliseconds: delta-seconds or an HTTP-date (RFC 9110
 * §10.2.3); undefined when absent or unreadable.
 */
function parseRetryAfter(value: string | null, nowMs: number): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The service's error body, when the answer is one. */
function serviceError(body: unknown): { kind: ErrorKind; message: string } | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const error = (body as { error?: unknown }).error;
  if (typeof error !== 'object' || error === null) return undefined;
  const { kind, message } = error as { kind?: unknown; message?: unknown };
  if (typeof kind !== 'string' || !KINDS.has(kind) || typeof message !== 'string') return undefined;
  return { kind: kind as ErrorKind, message };
}

/** API Gateway's `{"message"}`, else a short excerpt of whatever came. */
function gatewayMessage(body: unknown, text: string): string {
  const message = (body as { message?: unknown } | undefined)?.message;
  if (typeof message === 'string') return message;
  const excerpt = text.trim().slice(0, 200);
  return excerpt === '' ? 'no body' : JSON.stringify(excerpt);
}

function gatewayError(response: ReceivedResponse, body: unknown, init: ApiErrorInit): ApiError {
  const { status } = response;
  const said = `${status} from the gateway: ${gatewayMessage(body, response.bodyText)}`;
  if (status === 401 || status === 403) {
    return new ForbiddenApiError(
      `${said} (sign requests with SigV4 for the API's region and allow execute-api:Invoke on the route)`,
      init,
    );
  }
  if (status === 404)
    return new NotFoundApiError(`${said} (check the endpoint's stage path)`, init);
  if (status === 413) return new TooLargeApiError(said, init);
  if (status === 415) return new UnsupportedMediaTypeApiError(said, init);
  if (status === 429) return new BackpressureApiError(`${said} (stage throttling)`, init);
  if (status === 408 || status >= 500) {
    return new UnavailableApiError(said, { ...init, retryable: true });
  }
  if (status >= 300 && status < 400) {
    return new ConfigApiError(
      `${said}: redirected to ${response.location ?? 'nowhere'}; use the final endpoint URL`,
      init,
    );
  }
  return new InvalidInputApiError(said, init);
}

/** The typed error of a non-2xx answer to a request of this durability. */
export function errorFromResponse(
  response: ReceivedResponse,
  request: { durable: boolean },
  nowMs: number,
): ApiError {
  const body = parseJson(response.bodyText);
  const retryAfterMs = parseRetryAfter(response.retryAfter, nowMs);
  const service = serviceError(body);
  if (service) {
    const ErrorClass = ERROR_CLASS_OF_KIND[service.kind];
    return new ErrorClass(`${response.status} ${service.kind}: ${service.message}`, {
      status: response.status,
      origin: ErrorOrigin.service,
      retryAfterMs,
      retryable: isRetryableKind(service.kind, request),
    });
  }
  return gatewayError(response, body, {
    status: response.status,
    origin: ErrorOrigin.gateway,
    retryAfterMs,
  });
}
