/**
 * The one place where an error kind becomes an HTTP status. Bodies are
 * `{"error": {"kind", "message"}}`. Anything that is not a shardwal error is
 * a bug: it is logged with its stack and answered 500 without internals.
 */
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import {
  BackpressureError,
  ErrorKind,
  InProgressError,
  PoisonedError,
  ShardwalError,
  STATUS_OF_KIND,
} from '../errors.js';

import { logger } from '../observability/telemetry.js';
import { json } from './responses.js';

/** Renders `error` as an HTTP response. */
export function errorResponse(error: unknown): APIGatewayProxyStructuredResultV2 {
  if (!(error instanceof ShardwalError)) {
    logger.error('unexpected error', { error: error as Error });
    return json(500, { error: { kind: ErrorKind.internal, message: 'internal error' } });
  }
  const status = STATUS_OF_KIND[error.kind];
  if (status >= 500) logger.error('request failed', { error });
  const headers: Record<string, string> = {};
  if (
    error instanceof BackpressureError ||
    error instanceof InProgressError ||
    (error instanceof PoisonedError && error.retryAfterSeconds !== undefined)
  ) {
    headers['retry-after'] = String(error.retryAfterSeconds);
  }
  return json(status, { error: { kind: error.kind, message: error.message } }, headers);
}
