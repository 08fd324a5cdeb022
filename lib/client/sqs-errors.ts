/**
 * SQS's answers, as the client's typed errors (the adapter translates; no
 * SDK exception leaves the SQS producer). Throttling and 5xx are retried
 * with the same message attributes; a missing queue or permission and a
 * malformed request are not. A failed batch entry is retried unless SQS
 * says it is the sender's fault.
 */
import {
  type ApiError,
  BackpressureApiError,
  ConnectionError,
  ErrorOrigin,
  ForbiddenApiError,
  InvalidInputApiError,
  NotFoundApiError,
  TooLargeApiError,
  UnavailableApiError,
} from './errors.js';

/** The parts of an AWS SDK exception read here. */
interface SdkErrorShape {
  name?: string;
  message?: string;
  $metadata?: { httpStatusCode?: number };
  $retryable?: unknown;
}

const THROTTLING = new Set([
  'RequestThrottled',
  'ThrottlingException',
  'KmsThrottled',
  'OverLimit',
]);
const NOT_FOUND = new Set([
  'QueueDoesNotExist',
  'AWS.SimpleQueueService.NonExistentQueue',
  'ResourceNotFoundException',
]);
const FORBIDDEN = new Set([
  'AccessDenied',
  'AccessDeniedException',
  'InvalidSecurity',
  'KmsAccessDenied',
]);

/** The typed error of an exception from an SQS call (`what` names the call). */
export function sqsCallError(what: string, error: unknown): ApiError {
  const sdk = (error ?? {}) as SdkErrorShape;
  const status = sdk.$metadata?.httpStatusCode;
  const name = sdk.name ?? 'Error';
  const message = `${what}: ${name}: ${sdk.message ?? String(error)}`;
  if (status === undefined) return new ConnectionError(message, error);
  const init = { status, origin: ErrorOrigin.sqs, cause: error };
  if (THROTTLING.has(name) || status === 429) return new BackpressureApiError(message, init);
  if (status >= 500 || sdk.$retryable) return new UnavailableApiError(message, init);
  if (NOT_FOUND.has(name)) return new NotFoundApiError(message, init);
  if (FORBIDDEN.has(name) || status === 403) return new ForbiddenApiError(message, init);
  if (name === 'BatchRequestTooLong') return new TooLargeApiError(message, init);
  return new InvalidInputApiError(message, init);
}

/** The typed error of one failed `SendMessageBatch` entry. */
export function sqsEntryError(entry: {
  Code?: string;
  Message?: string;
  SenderFault?: boolean;
}): ApiError {
  const message =
    `SendMessageBatch entry: ${entry.Code ?? 'failed'}: ${entry.Message ?? ''}`.trim();
  const init = { origin: ErrorOrigin.sqs };
  return entry.SenderFault
    ? new InvalidInputApiError(message, init)
    : new UnavailableApiError(message, { ...init, retryable: true });
}
