/**
 * Every error shardwal raises on purpose. Each has a `kind`; the HTTP and SQS
 * handlers map a kind to a status or an item failure in one place
 * (`lib/http/error-response.ts`). AWS SDK exceptions never cross into `lib/`:
 * the adapters translate them into these.
 */

/** The small, closed set of error kinds. */
export const ErrorKind = {
  invalidInput: 'invalid_input',
  notFound: 'not_found',
  tooLarge: 'too_large',
  backpressure: 'backpressure',
  fenced: 'fenced',
  poisoned: 'poisoned',
  unavailable: 'unavailable',
  corruptData: 'corrupt_data',
  config: 'config',
  internal: 'internal',
} as const;
export type ErrorKind = (typeof ErrorKind)[keyof typeof ErrorKind];

/** Base class: a kind, a message built from typed arguments, and the cause. */
export class ShardwalError extends Error {
  readonly kind: ErrorKind;
  constructor(kind: ErrorKind, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ShardwalError';
    this.kind = kind;
  }
}

/** Input that can never succeed as sent; names the offending field. */
export class InvalidInputError extends ShardwalError {
  readonly field: string;
  constructor(field: string, problem: string) {
    super(ErrorKind.invalidInput, `${field}: ${problem}`);
    this.name = 'InvalidInputError';
    this.field = field;
  }
}

/** A request body over the configured byte limit. */
export class PayloadTooLargeError extends ShardwalError {
  constructor(what: string, limitBytes: number, gotBytes: number) {
    super(ErrorKind.tooLarge, `${what}: expected at most ${limitBytes} bytes, got ${gotBytes}`);
    this.name = 'PayloadTooLargeError';
  }
}

/** A shard (or route) that does not exist. */
export class NotFoundError extends ShardwalError {
  constructor(what: string) {
    super(ErrorKind.notFound, `${what} not found`);
    this.name = 'NotFoundError';
  }
}

/** The shard's buffered bytes are over its limit: retry after the next flush. */
export class BackpressureError extends ShardwalError {
  readonly retryAfterSeconds: number;
  constructor(
    shard: string,
    bufferedBytes: number,
    maxBufferedBytes: number,
    retryAfterSeconds: number,
  ) {
    super(
      ErrorKind.backpressure,
      `shard ${shard}: ${bufferedBytes} bytes buffered, limit is ${maxBufferedBytes}; retry after ${retryAfterSeconds}s`,
    );
    this.name = 'BackpressureError';
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** A newer flusher (or recovery) holds the shard: this actor must stop. */
export class FencedError extends ShardwalError {
  constructor(shard: string, detail: string) {
    super(ErrorKind.fenced, `shard ${shard}: fenced: ${detail}`);
    this.name = 'FencedError';
  }
}

/** The shard record and S3 diverged, or an append failed terminally; recovery is the way out. */
export class PoisonedError extends ShardwalError {
  readonly reason: string;
  constructor(shard: string, reason: string) {
    super(ErrorKind.poisoned, `shard ${shard} is poisoned: ${reason}`);
    this.name = 'PoisonedError';
    this.reason = reason;
  }
}

/** A dependency failed or a race was lost in a way the caller may retry. */
export class UnavailableError extends ShardwalError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(ErrorKind.unavailable, message, options);
    this.name = 'UnavailableError';
  }
}

/** A put whose seq was sealed as void before its batch landed: nothing was stored. */
export class GapSealedError extends ShardwalError {
  constructor(shard: string, seq: number) {
    super(
      ErrorKind.unavailable,
      `shard ${shard}: seq ${seq} was sealed as a void gap before its batch was written; nothing was stored, retry the put`,
    );
    this.name = 'GapSealedError';
  }
}

/** Stored bytes that fail verification: bad magic, version, tag, checksum, or truncation. */
export class CorruptDataError extends ShardwalError {
  readonly objectKey: string;
  constructor(objectKey: string, problem: string, options?: { cause?: unknown }) {
    super(ErrorKind.corruptData, `${objectKey}: ${problem}`, options);
    this.name = 'CorruptDataError';
    this.objectKey = objectKey;
  }
}

/** A stored object written in a format version this reader does not know. */
export class UnknownFormatVersionError extends CorruptDataError {
  readonly version: unknown;
  constructor(objectKey: string, format: string, version: unknown, supported: readonly number[]) {
    super(
      objectKey,
      `unknown ${format} format version ${JSON.stringify(version)}; this reader supports ${supported.join(', ')}`,
    );
    this.name = 'UnknownFormatVersionError';
    this.version = version;
  }
}

/** A record tag this reader does not know. */
export class UnknownRecordTagError extends CorruptDataError {
  readonly tag: unknown;
  constructor(objectKey: string, line: number, tag: unknown, known: readonly string[]) {
    super(
      objectKey,
      `line ${line}: unknown record tag ${JSON.stringify(tag)}; expected one of ${known.join(', ')}`,
    );
    this.name = 'UnknownRecordTagError';
    this.tag = tag;
  }
}

/** A setting with an invalid value; names the setting and the value. */
export class ConfigError extends ShardwalError {
  readonly setting: string;
  constructor(setting: string, value: unknown, problem: string) {
    super(ErrorKind.config, `${setting}=${JSON.stringify(value)}: ${problem}`);
    this.name = 'ConfigError';
    this.setting = setting;
  }
}

/** A broken internal expectation; always a bug. */
export class InternalError extends ShardwalError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(ErrorKind.internal, message, options);
    this.name = 'InternalError';
  }
}

/** True when `error` is a shardwal error of `kind`. */
export function isErrorKind(error: unknown, kind: ErrorKind): error is ShardwalError {
  return error instanceof ShardwalError && error.kind === kind;
}
