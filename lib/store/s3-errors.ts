/**
 * Classification of AWS SDK / S3 errors, so `s3-store.ts` decides retry,
 * `'exists'` or absence by what S3 said, not by SDK exception classes
 * (errors are matched by shape: `name` and `$metadata.httpStatusCode`).
 */

/** Error names S3 or the SDK use for conditions worth retrying. */
const TRANSIENT_NAMES = new Set([
  'ConditionalRequestConflict',
  'OperationAborted',
  'SlowDown',
  'ServiceUnavailable',
  'InternalError',
  'RequestTimeout',
  'RequestTimeTooSkewed',
  'Throttling',
  'ThrottlingException',
  'TooManyRequestsException',
  'TimeoutError',
]);

interface SdkErrorShape {
  name?: string;
  message?: string;
  code?: string;
  $metadata?: { httpStatusCode?: number };
}

function shapeOf(error: unknown): SdkErrorShape {
  return typeof error === 'object' && error !== null ? (error as SdkErrorShape) : {};
}

/** A conditional write refused because the key exists (HTTP 412). */
export function isPreconditionFailed(error: unknown): boolean {
  const { name, $metadata } = shapeOf(error);
  return name === 'PreconditionFailed' || $metadata?.httpStatusCode === 412;
}

/** A conditional write met a concurrent one (HTTP 409 `ConditionalRequestConflict`). */
export function isConditionalConflict(error: unknown): boolean {
  const { name, $metadata } = shapeOf(error);
  return name === 'ConditionalRequestConflict' || $metadata?.httpStatusCode === 409;
}

/** The multipart upload no longer exists (completed, or aborted). */
export function isNoSuchUpload(error: unknown): boolean {
  return shapeOf(error).name === 'NoSuchUpload';
}

/** The object is absent (HTTP 404), as opposed to the bucket, which must fail loudly. */
export function isNoSuchKey(error: unknown): boolean {
  const { name, $metadata } = shapeOf(error);
  if (name === 'NoSuchKey') return true;
  return $metadata?.httpStatusCode === 404 && name !== 'NoSuchBucket';
}

/** Retryable: a known transient name, 409/429/5xx, or a failure with no HTTP response at all (network). */
export function isTransient(error: unknown): boolean {
  const { name, $metadata } = shapeOf(error);
  if (name !== undefined && TRANSIENT_NAMES.has(name)) return true;
  const status = $metadata?.httpStatusCode;
  if (status !== undefined) return status === 409 || status === 429 || status >= 500;
  // No response: a reset socket, DNS failure or timeout. Programming errors are not retried.
  return !(
    error instanceof TypeError ||
    error instanceof RangeError ||
    error instanceof ReferenceError
  );
}

/** `Name code HTTP status: message`, for error messages that name what S3 said. */
export function describeS3Error(error: unknown): string {
  const { name, message, code, $metadata } = shapeOf(error);
  const status = $metadata?.httpStatusCode;
  const label = [name ?? 'Error', code, status === undefined ? undefined : `HTTP ${status}`]
    .filter((part) => part !== undefined)
    .join(' ');
  return `${label}: ${message ?? String(error)}`;
}
