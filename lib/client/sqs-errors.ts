/**
 * SQS's answers, as the client's typed errors (the adapter translates; no
 * SDK exception leaves the SQS producer). Throttling and 5xx are retried
 * with the same message attributes; a missing queue or permission and a
 * malformed request are not. A failed batch entry is retried unless SQS
 * says it is the sender's fault.
 */
import { ErrorKind } from '../errors.js';
import {
  type ApiError,
  ConnectionError,
  ERROR_CLASS_OF_KIND,
  ErrorOrigin,
  ForbiddenApiError,
  InvalidInputApiError,
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

/** The error kind of an SQS answer, or `forbidden` (a missing permission: no kind of the API). */
function sqsKind(name: string, status: number, retryable: unknown): ErrorKind | 'forbidden' {
  if (THROTTLING.has(name) || status === 429) return ErrorKind.backpressure;
  if (status >= 500 || retryable) return ErrorKind.unavailable;
  if (NOT_FOUND.has(name)) return ErrorKind.notFound;
  if (FORBIDDEN.has(name) || status === 403) return 'forbidden';
  if (name === 'BatchRequestTooLong') return ErrorKind.tooLarge;
  return ErrorKind.invalidInput;
}

/** The typed error of an exception from an SQS call (`what` names the call). */
export function sqsCallError(what: string, error: unknown): ApiError {
  const sdk = (error ?? {}) as SdkErrorShape;
  const status = sdk.$metadata?.httpStatusCode;
  const name = sdk.name ?? 'Error';
  const message = `${what}: ${name}: ${sdk.message ?? String(error)}`;
  if (status === undefined) return new ConnectionError(message, error);
  const init = { status, origin: ErrorOrigin.sqs, cause: error };
  const kind = sqsKind(name, status, sdk.$retryable);
  if (kind === 'forbidden') return new ForbiddenApiError(message, init);
  return new ERROR_CLASS_OF_KIND[kind](message, init);
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
