/**
 * The API's error kinds as a producer sees them: the HTTP status of each
 * (`docs/openapi.yaml`, `ErrorKind`) and what a producer may do about it.
 *
 * Retry rules, by kind (every retry re-sends the same Idempotency-Key, so a
 * batch that did land answers its original ack instead of landing twice):
 *
 * | rule          | kinds                                                   |
 * |---------------|---------------------------------------------------------|
 * | retry-after   | in_progress, backpressure: wait `Retry-After` (else back off) |
 * | backoff       | unavailable (and dropped connections, gateway 5xx)     |
 * | slow-backoff  | poisoned: the shard needs recovery; back off from a long first delay |
 * | durable-only  | fenced: only a durable put, to learn its batch's fate  |
 * | never         | invalid_input, not_found, too_large, unsupported_media_type, key_reused, internal, config, corrupt_data |
 */
import { ErrorKind, STATUS_OF_KIND } from '../errors.js';

export { ErrorKind, STATUS_OF_KIND } from '../errors.js';

/** What a producer does with an error of a kind; see the module comment. */
export const RetryRule = {
  retryAfter: 'retry-after',
  backoff: 'backoff',
  slowBackoff: 'slow-backoff',
  durableOnly: 'durable-only',
  never: 'never',
} as const;
export type RetryRule = (typeof RetryRule)[keyof typeof RetryRule];

/** The retry rule of each kind. */
export const RETRY_RULE_OF_KIND = {
  [ErrorKind.invalidInput]: RetryRule.never,
  [ErrorKind.notFound]: RetryRule.never,
  [ErrorKind.tooLarge]: RetryRule.never,
  [ErrorKind.unsupportedMediaType]: RetryRule.never,
  [ErrorKind.keyReused]: RetryRule.never,
  [ErrorKind.inProgress]: RetryRule.retryAfter,
  [ErrorKind.backpressure]: RetryRule.retryAfter,
  [ErrorKind.unavailable]: RetryRule.backoff,
  [ErrorKind.poisoned]: RetryRule.slowBackoff,
  [ErrorKind.fenced]: RetryRule.durableOnly,
  [ErrorKind.corruptData]: RetryRule.never,
  [ErrorKind.config]: RetryRule.never,
  [ErrorKind.internal]: RetryRule.never,
} as const satisfies Record<ErrorKind, RetryRule>;

/** Whether an error of `kind` may be retried (with the same key) for a put of this durability. */
export function isRetryableKind(kind: ErrorKind, request: { durable: boolean }): boolean {
  const rule = RETRY_RULE_OF_KIND[kind];
  if (rule === RetryRule.never) return false;
  if (rule === RetryRule.durableOnly) return request.durable;
  return true;
}

/** The kind whose status is `status`, when exactly one kind has it. */
export function kindOfStatus(status: number): ErrorKind | undefined {
  const kinds = (Object.keys(STATUS_OF_KIND) as ErrorKind[]).filter(
    (kind) => STATUS_OF_KIND[kind] === status,
  );
  return kinds.length === 1 ? kinds[0] : undefined;
}
