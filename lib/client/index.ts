/**
 * `shardwal/client`: the producer side of shardwal. It speaks only the
 * public contract: the HTTP API of `docs/openapi.yaml` and the SQS message
 * `{"shard", "rows", "key"?}` with its `IdempotencyKey` attribute. It never
 * reads the memtable or storage. Guarantees:
 *
 * 1. Exactly once within the idempotency window: every batch carries one
 *    Idempotency-Key, kept across all its retries (dropped connections,
 *    lost answers, 409 `in_progress`, 429, 503), so a batch lands at most
 *    once and a retry of one that landed answers its original ack.
 * 2. Retries are decided by the error kind (`error-kinds.ts`): never for
 *    input the service refuses (`invalid_input`, `too_large`,
 *    `unsupported_media_type`, `key_reused`, `not_found`) or its own 500s;
 *    after `Retry-After` for `in_progress`/`backpressure`; with backoff for
 *    `unavailable`, a slow one for `poisoned`, and `fenced` for durable puts
 *    only. API Gateway's own answers (403, 429 without `Retry-After`, 413,
 *    5xx) are recognised too.
 * 3. Every error is typed (`errors.ts`): its kind, status, origin and
 *    whether a retry may help.
 * 4. Batching producers (HTTP and SQS) cut batches by rows and bytes (and
 *    linger time when on), bound the batches in flight, and report every
 *    batch they could not deliver; nothing is dropped silently.
 *
 * Runs on Node 20+ and in Lambda; SigV4 uses the AWS SDK's signer and
 * credential chain. Usage: `docs/client.md`.
 *
 * The reader (`reader/`) is the other side: `tailShard` yields a shard's
 * durable rows from the documented storage formats in the bucket (never the
 * memtable), following new WAL objects if asked; its contract is stated in
 * `reader/index.ts`.
 */

export {
  CorruptDataError,
  HistoryFloorError,
  ShardwalError,
  UnknownFormatVersionError,
} from '../errors.js';
export { FsObjectStore } from '../store/fs-store.js';
export { MemoryObjectStore } from '../store/memory-store.js';
export type { ObjectStore } from '../store/object-store.js';
export * from './api-types.js';
export {
  ErrorKind,
  isRetryableKind,
  RETRY_RULE_OF_KIND,
  RetryRule,
  STATUS_OF_KIND,
} from './error-kinds.js';
export {
  ApiError,
  type ApiErrorInit,
  BackpressureApiError,
  ConfigApiError,
  ConnectionError,
  CorruptDataApiError,
  ErrorOrigin,
  type FailedBatch,
  FencedApiError,
  ForbiddenApiError,
  InProgressApiError,
  InternalApiError,
  InvalidInputApiError,
  KeyReusedApiError,
  MalformedResponseError,
  NotFoundApiError,
  PoisonedApiError,
  ProducerBatchError,
  ProducerClosedError,
  ProducerStoppedError,
  RowRejectedError,
  SeqNotDurableError,
  SeqWaitEnd,
  TooLargeApiError,
  UnavailableApiError,
  UnsupportedMediaTypeApiError,
} from './errors.js';
export {
  type ClientRetryEvent,
  type HttpClientOptions,
  IDEMPOTENCY_KEY_PATTERN,
  type PutOptions,
  ShardwalHttpClient,
  type WaitDurableOptions,
} from './http-client.js';
export {
  createHttpProducer,
  HTTP_PRODUCER_DEFAULTS,
  type HttpProducerOptions,
} from './http-producer.js';
export {
  BatchingProducer,
  type BatchOutcome,
  type BatchSender,
  type ProducerOptions,
  type ProducerStats,
  type RowProducer,
  type SealedBatch,
} from './producer.js';
export { GZIP_DEFAULTS, type GzipOptions } from './put-body.js';
export * from './reader/index.js';
export { openLocalStore, openS3Store, type S3StoreOptions } from './reader/stores.js';
export { RETRY_DEFAULTS, type RetryEvent, type RetryOptions } from './retry.js';
export { type BatchLimits, RowBatcher } from './row-batcher.js';
export { RawRow, type Row, rawRow } from './rows.js';
export type { SigV4Auth } from './sigv4.js';
export { deduplicationId, type SqsAck } from './sqs-batch-sender.js';
export { IDEMPOTENCY_ATTRIBUTE } from './sqs-message.js';
export {
  createSqsProducer,
  isFifoQueue,
  SQS_PRODUCER_DEFAULTS,
  type SqsProducerOptions,
} from './sqs-producer.js';
