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
  /** A body in a media type, charset or content encoding the route does not take. */
  unsupportedMediaType: 'unsupported_media_type',
  backpressure: 'backpressure',
  /** An identical idempotent request is still in flight: retry shortly. */
  inProgress: 'in_progress',
  /** An Idempotency-Key reused with a different payload: never retry as is. */
  keyReused: 'key_reused',
  fenced: 'fenced',
  poisoned: 'poisoned',
  unavailable: 'unavailable',
  corruptData: 'corrupt_data',
  config: 'config',
  internal: 'internal',
} as const;
export type ErrorKind = (typeof ErrorKind)[keyof typeof ErrorKind];

/** HTTP status of each error kind: the one mapping the service answers with and the client reads. */
export const STATUS_OF_KIND = {
  [ErrorKind.invalidInput]: 400,
  [ErrorKind.notFound]: 404,
  [ErrorKind.tooLarge]: 413,
  [ErrorKind.unsupportedMediaType]: 415,
  [ErrorKind.backpressure]: 429,
  [ErrorKind.inProgress]: 409,
  [ErrorKind.keyReused]: 422,
  [ErrorKind.fenced]: 409,
  [ErrorKind.poisoned]: 503,
  [ErrorKind.unavailable]: 503,
  [ErrorKind.corruptData]: 500,
  [ErrorKind.config]: 500,
  [ErrorKind.internal]: 500,
} as const satisfies Record<ErrorKind, number>;

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

/**
 * A request body over a configured byte limit. `limit` names the setting that
 * was exceeded, so a client can tell the wire limit from the decoded one;
 * `atLeast` says `gotBytes` is where reading stopped, not the whole size (a
 * decompression bomb is never inflated past the limit).
 */
export class PayloadTooLargeError extends ShardwalError {
  readonly limit: string | undefined;
  constructor(
    what: string,
    limitBytes: number,
    gotBytes: number,
    options: { limit?: string; atLeast?: boolean } = {},
  ) {
    const setting = options.limit === undefined ? '' : ` (${options.limit})`;
    const got = options.atLeast ? `more than ${limitBytes}` : String(gotBytes);
    super(
      ErrorKind.tooLarge,
      `${what}: expected at most ${limitBytes} bytes${setting}, got ${got}`,
    );
    this.name = 'PayloadTooLargeError';
    this.limit = options.limit;
  }
}

/** A request body the route cannot read as sent: names the header and what it takes. */
export class UnsupportedMediaTypeError extends ShardwalError {
  readonly header: string;
  constructor(header: string, got: string, accepted: string) {
    super(
      ErrorKind.unsupportedMediaType,
      `${header}: expected ${accepted}, got ${JSON.stringify(got)}`,
    );
    this.name = 'UnsupportedMediaTypeError';
    this.header = header;
  }
}

/** A shard (or route) that does not exist. */
export class NotFoundError extends ShardwalError {
  constructor(what: string) {
    super(ErrorKind.notFound, `${what} not found`);
    this.name = 'NotFoundError';
  }
}

/**
 * The shard's buffered bytes plus the incoming batch are over its limit:
 * retry after the next flush. The message names all three figures, so a
 * caller can tell a full buffer from a batch too big to ever fit beside
 * buffered data.
 */
export class BackpressureError extends ShardwalError {
  readonly retryAfterSeconds: number;
  constructor(
    shard: string,
    incomingBytes: number,
    bufferedBytes: number,
    maxBufferedBytes: number,
    retryAfterSeconds: number,
  ) {
    super(
      ErrorKind.backpressure,
      `shard ${shard}: a batch of ${incomingBytes} bytes does not fit beside the ${bufferedBytes} bytes buffered, limit is ${maxBufferedBytes}; retry after ${retryAfterSeconds}s`,
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

/**
 * The shard record and S3 diverged, or an append failed terminally; recovery
 * is the way out. While a rebuild holds the shard, `retryAfterSeconds` says
 * when it is open again at the latest (L6 in `lib/liveness.ts`).
 */
export class PoisonedError extends ShardwalError {
  readonly reason: string;
  readonly retryAfterSeconds: number | undefined;
  constructor(shard: string, reason: string, retryAfterSeconds?: number) {
    super(ErrorKind.poisoned, `shard ${shard} is poisoned: ${reason}`);
    this.name = 'PoisonedError';
    this.reason = reason;
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** A dependency failed or a race was lost in a way the caller may retry. */
export class UnavailableError extends ShardwalError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(ErrorKind.unavailable, message, options);
    this.name = 'UnavailableError';
  }
}

/**
 * A DynamoDB batch write that left items unprocessed (throughput) after every
 * attempt of its retry policy: the rest of its work was not done, and the
 * caller must not go on as if it were. Retryable, like any unavailability.
 */
export class UnprocessedItemsError extends UnavailableError {
  constructor(
    readonly operation: string,
    readonly unprocessed: number,
    readonly attempts: number,
  ) {
    super(
      `DynamoDB ${operation}: ${unprocessed} items still unprocessed after ${attempts} attempts`,
    );
    this.name = 'UnprocessedItemsError';
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

/**
 * A put whose deadline passed before its batch was written (L1 in
 * `lib/liveness.ts`): it wrote nothing and gives up rather than land late.
 */
export class PutDeadlineError extends ShardwalError {
  constructor(shard: string, seq: number) {
    super(
      ErrorKind.unavailable,
      `shard ${shard}: the put deadline passed before batch ${seq} was written; nothing was stored, retry the put`,
    );
    this.name = 'PutDeadlineError';
  }
}

/**
 * A shard whose pending batches have not been flushed for so long that more
 * puts could outlive their items' expiry (L5 in `lib/liveness.ts`): a
 * stalled ticker, a poisoned shard left alone. New puts wait for an operator.
 */
export class ShardStalledError extends ShardwalError {
  constructor(shard: string, pendingSinceMs: number, stallRefusalMs: number) {
    super(
      ErrorKind.unavailable,
      `shard ${shard}: batches pending since ${new Date(pendingSinceMs).toISOString()} have not been flushed for over ${Math.round(stallRefusalMs / 60_000)} min; new puts are refused until they are (check the shard's status and the flush ticker)`,
    );
    this.name = 'ShardStalledError';
  }
}

/** A repeat of an idempotent put whose first request is still in flight. */
export class InProgressError extends ShardwalError {
  readonly retryAfterSeconds: number;
  constructor(key: string, retryAfterSeconds: number) {
    super(
      ErrorKind.inProgress,
      `Idempotency-Key ${key}: a request with this key is still in progress; retry after ${retryAfterSeconds}s`,
    );
    this.name = 'InProgressError';
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** An idempotency key already used for a different payload. */
export class KeyReusedError extends ShardwalError {
  constructor(key: string, shard: string) {
    super(
      ErrorKind.keyReused,
      `Idempotency-Key ${key}: already used on shard ${shard} for a different payload; use a new key for new rows`,
    );
    this.name = 'KeyReusedError';
  }
}

/**
 * A put whose seq already holds another put's batch: the shard record was
 * rolled back behind the memtable (a table restore) and handed the seq out
 * again. Nothing of this put was stored; recovery reconciles the shard.
 */
export class SeqTakenError extends ShardwalError {
  constructor(shard: string, seq: number) {
    super(
      ErrorKind.unavailable,
      `shard ${shard}: seq ${seq} already holds another put's batch (the shard record is behind its memtable: run recovery); nothing was stored, retry the put`,
    );
    this.name = 'SeqTakenError';
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

/**
 * An object a table's metadata lists (a manifest list, a manifest, a data
 * file) is not in the store. Corrupt when that metadata is the table's
 * current version; when a newer one exists, maintenance may have removed it
 * after the newer version dropped it, and the reader is merely behind
 * (`lib/table/commit-loop.ts`, `readOrStale`).
 */
export class ListedObjectMissingError extends CorruptDataError {
  constructor(objectKey: string) {
    super(objectKey, 'listed by the table but missing');
    this.name = 'ListedObjectMissingError';
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

/**
 * A read from a seq whose rows history retention no longer keeps: keyless
 * rows of WAL positions below the newest export's `historyFloor` are gone.
 * Names the floor as a position and as the oldest seq a reader can start at.
 */
export class HistoryFloorError extends ShardwalError {
  readonly shard: string;
  readonly fromSeq: number;
  readonly floorPosition: number;
  readonly floorSeq: number;
  constructor(shard: string, fromSeq: number, floorPosition: number, floorSeq: number) {
    super(
      ErrorKind.notFound,
      `shard ${shard}: seq ${fromSeq} is below the history floor: keyless rows of WAL positions below ${floorPosition} are no longer kept (history retention); the oldest kept seq is ${floorSeq}`,
    );
    this.name = 'HistoryFloorError';
    this.shard = shard;
    this.fromSeq = fromSeq;
    this.floorPosition = floorPosition;
    this.floorSeq = floorSeq;
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
