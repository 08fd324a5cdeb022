/**
 * The retry behaviour of `@aws-sdk/client-dynamodb` with its default
 * (standard) strategy, restated so a fault-injecting client can reproduce it
 * deterministically. Sources, in the installed SDK (3.1169, @smithy/core):
 *
 * - `client-dynamodb/dist-es/DynamoDBClient.js`: `resolveRetryConfig(...,
 *   { defaultBaseDelay: 25, defaultMaxAttempts: 4 })`, and `runtimeConfig.js`:
 *   `maxAttempts ?? ... default: 4`. So DynamoDB clients make 4 attempts (not
 *   the SDK-wide 3) unless `maxAttempts` / AWS_MAX_ATTEMPTS says otherwise.
 * - `@smithy/core/.../retry/middleware-retry/retryMiddleware.js`: each error
 *   is classified THROTTLING, TRANSIENT, SERVER_ERROR or CLIENT_ERROR; only
 *   the last attempt's error reaches the caller, with `$metadata.attempts`.
 * - `.../service-error-classification/{constants,service-error-classification}.js`:
 *   THROTTLING = status 429, a throttling code (ThrottlingException,
 *   ProvisionedThroughputExceededException, RequestLimitExceeded, ...) or
 *   `$retryable.throttling`; TRANSIENT = `$retryable` set, TimeoutError /
 *   RequestTimeout names, ECONNRESET / ECONNREFUSED / EPIPE / ETIMEDOUT and
 *   network codes, or status 500/502/503/504.
 * - `.../util-retry/StandardRetryStrategy.js` + `retries-2026-config.js`:
 *   only THROTTLING and TRANSIENT retry, while attempts < maxAttempts and the
 *   client's retry quota (500 tokens) covers the cost (5 for a throttle, 14
 *   otherwise); a success refunds the cost of its retry (or 1 token). The
 *   delay is `floor(random * min(base * 2^retries, 20000))` ms, base 1000 for
 *   a throttle and the client's 25 otherwise.
 * - Found through aws/aws-sdk-js-v3 discussion #3765, which quotes the same
 *   classification lists from service-error-classification/constants.ts.
 */

/** How the SDK classifies an error for retrying. */
export const RetryErrorType = {
  throttling: 'THROTTLING',
  transient: 'TRANSIENT',
  serverError: 'SERVER_ERROR',
  clientError: 'CLIENT_ERROR',
} as const;
export type RetryErrorType = (typeof RetryErrorType)[keyof typeof RetryErrorType];

/** The standard strategy's numbers for a DynamoDB client. */
export const SDK_RETRY = {
  /** DynamoDB's default `maxAttempts` (the SDK-wide default is 3). */
  maxAttempts: 4,
  /** DynamoDB's base delay for non-throttling retries, ms. */
  baseDelayMs: 25,
  /** Base delay after a throttle, ms. */
  throttlingBaseDelayMs: 1000,
  maxDelayMs: 20_000,
  initialQuota: 500,
  retryCost: 14,
  throttlingRetryCost: 5,
  noRetryIncrement: 1,
} as const;

const THROTTLING_CODES: ReadonlySet<string> = new Set([
  'BandwidthLimitExceeded',
  'EC2ThrottledException',
  'LimitExceededException',
  'PriorRequestNotComplete',
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
  'RequestThrottled',
  'RequestThrottledException',
  'SlowDown',
  'ThrottledException',
  'Throttling',
  'ThrottlingException',
  'TooManyRequestsException',
  'TransactionInProgressException',
]);
const TRANSIENT_NAMES: ReadonlySet<string> = new Set([
  'TimeoutError',
  'RequestTimeout',
  'RequestTimeoutException',
]);
const TRANSIENT_CODES: ReadonlySet<string> = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
const TRANSIENT_STATUS: ReadonlySet<number> = new Set([500, 502, 503, 504]);

interface SdkError {
  name?: string;
  code?: string;
  $retryable?: { throttling?: boolean };
  $metadata?: { httpStatusCode?: number };
  cause?: unknown;
}

function isTransient(error: SdkError, depth = 0): boolean {
  if (error.name === 'AbortError') return false;
  return (
    error.$retryable !== undefined ||
    TRANSIENT_NAMES.has(error.name ?? '') ||
    TRANSIENT_CODES.has(error.code ?? '') ||
    TRANSIENT_STATUS.has(error.$metadata?.httpStatusCode ?? 0) ||
    (error.cause !== undefined &&
      depth <= 10 &&
      typeof error.cause === 'object' &&
      error.cause !== null &&
      isTransient(error.cause as SdkError, depth + 1))
  );
}

/** The SDK's classification of `error` (retryMiddleware's getRetryErrorType). */
export function classifyRetryError(error: unknown): RetryErrorType {
  const e = (error ?? {}) as SdkError;
  const status = e.$metadata?.httpStatusCode;
  if (status === 429 || THROTTLING_CODES.has(e.name ?? '') || e.$retryable?.throttling === true) {
    return RetryErrorType.throttling;
  }
  if (isTransient(e)) return RetryErrorType.transient;
  if (status !== undefined && status >= 500 && status <= 599) return RetryErrorType.serverError;
  return RetryErrorType.clientError;
}

/** The client-wide retry quota of the standard strategy. */
export class RetryQuota {
  #capacity: number = SDK_RETRY.initialQuota;

  /** Tokens left. */
  get capacity(): number {
    return this.#capacity;
  }

  /** Takes the cost of retrying after `type`; undefined (no retry) when the quota cannot cover it. */
  acquire(type: RetryErrorType): number | undefined {
    const cost =
      type === RetryErrorType.throttling ? SDK_RETRY.throttlingRetryCost : SDK_RETRY.retryCost;
    if (this.#capacity < cost) return undefined;
    this.#capacity -= cost;
    return cost;
  }

  /** Refunds a success: the cost of its last retry, or one token when it took none. */
  release(retryCost: number | undefined): void {
    this.#capacity = Math.min(
      SDK_RETRY.initialQuota,
      this.#capacity + (retryCost ?? SDK_RETRY.noRetryIncrement),
    );
  }
}

/** Whether the standard strategy retries `type` at all. */
export function isRetryable(type: RetryErrorType): boolean {
  return type === RetryErrorType.throttling || type === RetryErrorType.transient;
}

/** The delay before retry number `retries` + 1 (full jitter from `random`), ms. */
export function backoffDelayMs(
  type: RetryErrorType,
  retries: number,
  random: () => number,
  baseDelayMs: number = SDK_RETRY.baseDelayMs,
): number {
  const base = type === RetryErrorType.throttling ? SDK_RETRY.throttlingBaseDelayMs : baseDelayMs;
  return Math.floor(random() * Math.min(base * 2 ** retries, SDK_RETRY.maxDelayMs));
}
