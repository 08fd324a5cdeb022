/**
 * The client's typed errors: one class per API error kind, each carrying the
 * HTTP status, the kind, whether a retry with the same Idempotency-Key may
 * help, the server's `Retry-After` and where the answer came from (the
 * service, API Gateway itself, the network, or the client). All extend the
 * project's `ShardwalError`, so `error.kind` reads the same on both sides.
 */
import { ErrorKind, ShardwalError } from '../errors.js';
import type { SeqStatus } from './api-types.js';
import { isRetryableKind, STATUS_OF_KIND } from './error-kinds.js';

/** Who produced an error. */
export const ErrorOrigin = {
  /** The service's own `{"error": {"kind", "message"}}` answer. */
  service: 'service',
  /** API Gateway's own `{"message"}` answer (signature, throttling, size, 5xx), or a proxy's. */
  gateway: 'gateway',
  /** SQS's answer to the SQS producer. */
  sqs: 'sqs',
  /** No answer: refused, reset or timed out, possibly after the request was sent. */
  network: 'network',
  /** Refused by the client before sending. */
  client: 'client',
} as const;
export type ErrorOrigin = (typeof ErrorOrigin)[keyof typeof ErrorOrigin];

/** What an `ApiError` carries besides its message. */
export interface ApiErrorInit {
  /** The HTTP status; undefined when no answer came. */
  status?: number;
  origin: ErrorOrigin;
  /** Milliseconds the answer asked to wait (`Retry-After`). */
  retryAfterMs?: number;
  /** Overrides the kind's rule (e.g. `fenced` is retryable only for durable puts). */
  retryable?: boolean;
  cause?: unknown;
}

/** Base of every error the client raises about a request. */
export class ApiError extends ShardwalError {
  readonly status: number | undefined;
  readonly origin: ErrorOrigin;
  readonly retryable: boolean;
  readonly retryAfterMs: number | undefined;
  /** Requests made before the client gave up (1 when it did not retry). */
  attempts = 1;
  constructor(kind: ErrorKind, message: string, init: ApiErrorInit) {
    super(kind, message, { cause: init.cause });
    this.name = 'ApiError';
    this.status = init.status;
    this.origin = init.origin;
    this.retryable = init.retryable ?? isRetryableKind(kind, { durable: false });
    this.retryAfterMs = init.retryAfterMs;
  }
}

/** `invalid_input` (400): the message names the field; never retried. */
export class InvalidInputApiError extends ApiError {
  constructor(message: string, init: ApiErrorInit) {
    super(ErrorKind.invalidInput, message, init);
    this.name = 'InvalidInputApiError';
  }
}

/** `not_found` (404): unknown shard, seq or route; never retried. */
export class NotFoundApiError extends ApiError {
  constructor(message: string, init: ApiErrorInit) {
    super(ErrorKind.notFound, message, init);
    this.name = 'NotFoundApiError';
  }
}

/** `too_large` (413): the body is over the service's (or API Gateway's 10 MB) limit. */
export class TooLargeApiError extends ApiError {
  constructor(message: string, init: ApiErrorInit) {
    super(ErrorKind.tooLarge, message, init);
    this.name = 'TooLargeApiError';
  }
}

/** `unsupported_media_type` (415): a content type, charset or encoding the route does not take. */
export class UnsupportedMediaTypeApiError extends ApiError {
  constructor(message: string, init: ApiErrorInit) {
    super(ErrorKind.unsupportedMediaType, message, init);
    this.name = 'UnsupportedMediaTypeApiError';
  }
}

/** `in_progress` (409): a request with this key is still in flight; retried after `Retry-After`. */
export class InProgressApiError extends ApiError {
  constructor(message: string, init: ApiErrorInit) {
    super(ErrorKind.inProgress, message, init);
    this.name = 'InProgressApiError';
  }
}

/** `key_reused` (422): the key was used for another payload; never retried. */
export class KeyReusedApiError extends ApiError {
  constructor(message: string, init: ApiErrorInit) {
    super(ErrorKind.keyReused, message, init);
    this.name = 'KeyReusedApiError';
  }
}

/** `backpressure` (429): the shard's buffer is full, or API Gateway throttled the stage. */
export class BackpressureApiError extends ApiError {
  constructor(message: string, init: ApiErrorInit) {
    super(ErrorKind.backpressure, message, init);
    this.name = 'BackpressureApiError';
  }
}

/** `fenced` (409): a rebuild reset the shard during a durable wait; retried for durable puts only. */
export class FencedApiError extends ApiError {
  constructor(message: string, init: ApiErrorInit) {
    super(ErrorKind.fenced, message, init);
    this.name = 'FencedApiError';
  }
}

/** `poisoned` (503): the shard is stopped until recovery; retried with a slow backoff. */
export class PoisonedApiError extends ApiError {
  constructor(message: string, init: ApiErrorInit) {
    super(ErrorKind.poisoned, message, init);
    this.name = 'PoisonedApiError';
  }
}

/** `unavailable` (503), a gateway 5xx or a lost connection: retried with backoff. */
export class UnavailableApiError extends ApiError {
  constructor(message: string, init: ApiErrorInit) {
    super(ErrorKind.unavailable, message, init);
    this.name = 'UnavailableApiError';
  }
}

/** No answer at all: refused, reset or timed out. The request may have landed; retried with the same key. */
export class ConnectionError extends UnavailableApiError {
  constructor(message: string, cause: unknown) {
    super(message, { origin: ErrorOrigin.network, cause });
    this.name = 'ConnectionError';
  }
}

/** `corrupt_data` (500): stored data failed verification; never retried. */
export class CorruptDataApiError extends ApiError {
  constructor(message: string, init: ApiErrorInit) {
    super(ErrorKind.corruptData, message, init);
    this.name = 'CorruptDataApiError';
  }
}

/** `config` (500): a broken deployment; never retried. */
export class ConfigApiError extends ApiError {
  constructor(message: string, init: ApiErrorInit) {
    super(ErrorKind.config, message, init);
    this.name = 'ConfigApiError';
  }
}

/** `internal` (500): a bug on the service's side; never retried. */
export class InternalApiError extends ApiError {
  constructor(message: string, init: ApiErrorInit) {
    super(ErrorKind.internal, message, init);
    this.name = 'InternalApiError';
  }
}

/**
 * API Gateway's 401/403 (missing or bad signature, no IAM permission): a
 * setup problem, kind `config`, never retried.
 */
export class ForbiddenApiError extends ApiError {
  constructor(message: string, init: ApiErrorInit) {
    super(ErrorKind.config, message, init);
    this.name = 'ForbiddenApiError';
  }
}

/** A 2xx answer that does not match the spec (a proxy, or client and service out of step). */
export class MalformedResponseError extends ApiError {
  constructor(what: string, problem: string) {
    super(ErrorKind.internal, `${what}: ${problem}`, {
      origin: ErrorOrigin.service,
      retryable: false,
    });
    this.name = 'MalformedResponseError';
  }
}

/** A row the client refuses before sending (too large alone, not an object, bad key). */
export class RowRejectedError extends ApiError {
  constructor(kind: ErrorKind, message: string) {
    super(kind, message, {
      status: STATUS_OF_KIND[kind],
      origin: ErrorOrigin.client,
      retryable: false,
    });
    this.name = 'RowRejectedError';
  }
}

/** Why `waitDurable` gave up on a seq: a state that never becomes durable, a poisoned shard, or its timeout. */
export const SeqWaitEnd = {
  void: 'void',
  quarantined: 'quarantined',
  unknown: 'unknown',
  poisoned: 'poisoned',
  timeout: 'timeout',
} as const;
export type SeqWaitEnd = (typeof SeqWaitEnd)[keyof typeof SeqWaitEnd];

/** The kind of each end: void and quarantined are final (fenced), the rest may change. */
const KIND_OF_WAIT_END = {
  [SeqWaitEnd.void]: ErrorKind.fenced,
  [SeqWaitEnd.quarantined]: ErrorKind.fenced,
  [SeqWaitEnd.unknown]: ErrorKind.notFound,
  [SeqWaitEnd.poisoned]: ErrorKind.poisoned,
  [SeqWaitEnd.timeout]: ErrorKind.unavailable,
} as const satisfies Record<SeqWaitEnd, ErrorKind>;

/**
 * `waitDurable` ended without the seq durable: `end` says why, `status` is
 * the last answer (its `state`, `durableSeq`, `poison`, `quarantine`). A
 * `void` seq stored nothing; a `quarantined` one's rows wait for an operator;
 * neither will ever become durable, so re-put the rows if they should land.
 */
export class SeqNotDurableError extends ShardwalError {
  readonly end: SeqWaitEnd;
  readonly status: SeqStatus;
  constructor(end: SeqWaitEnd, status: SeqStatus, detail: string) {
    super(
      KIND_OF_WAIT_END[end],
      `seq ${status.seq} of shard ${status.shard} is not durable (${end}): ${detail}`,
    );
    this.name = 'SeqNotDurableError';
    this.end = end;
    this.status = status;
  }
}

/** `append` after `close`. */
export class ProducerClosedError extends ShardwalError {
  constructor(what: string) {
    super(ErrorKind.invalidInput, `${what}: the producer is closed`);
    this.name = 'ProducerClosedError';
  }
}

/** One batch a producer could not deliver. */
export interface FailedBatch {
  /** The batch's index in the producer (0 first). */
  index: number;
  /** The batch's Idempotency-Key: re-sending its rows under it cannot land them twice. */
  key: string;
  rows: number;
  error: ShardwalError;
}

/** `append` to a producer that stopped at a failed batch (`stopOnFailure`). */
export class ProducerStoppedError extends ShardwalError {
  readonly failure: FailedBatch;
  constructor(failure: FailedBatch) {
    super(
      failure.error.kind,
      `append: the producer stopped at batch ${failure.index} (key ${failure.key}): ${failure.error.message}`,
      { cause: failure.error },
    );
    this.name = 'ProducerStoppedError';
    this.failure = failure;
  }
}

/** Raised by `flush()`/`close()` when batches failed since the last flush; lists them. */
export class ProducerBatchError extends ShardwalError {
  readonly failures: readonly FailedBatch[];
  constructor(failures: readonly FailedBatch[]) {
    const first = failures[0]!;
    const rows = failures.reduce((sum, failure) => sum + failure.rows, 0);
    super(
      first.error.kind,
      `${failures.length} batch(es), ${rows} row(s) not delivered; first: batch ${first.index} (key ${first.key}): ${first.error.message}`,
      { cause: first.error },
    );
    this.name = 'ProducerBatchError';
    this.failures = failures;
  }
}

/** The class of each kind, for turning a service answer into its error. */
export const ERROR_CLASS_OF_KIND = {
  [ErrorKind.invalidInput]: InvalidInputApiError,
  [ErrorKind.notFound]: NotFoundApiError,
  [ErrorKind.tooLarge]: TooLargeApiError,
  [ErrorKind.unsupportedMediaType]: UnsupportedMediaTypeApiError,
  [ErrorKind.inProgress]: InProgressApiError,
  [ErrorKind.keyReused]: KeyReusedApiError,
  [ErrorKind.backpressure]: BackpressureApiError,
  [ErrorKind.fenced]: FencedApiError,
  [ErrorKind.poisoned]: PoisonedApiError,
  [ErrorKind.unavailable]: UnavailableApiError,
  [ErrorKind.corruptData]: CorruptDataApiError,
  [ErrorKind.config]: ConfigApiError,
  [ErrorKind.internal]: InternalApiError,
} as const satisfies Record<ErrorKind, new (message: string, init: ApiErrorInit) => ApiError>;
