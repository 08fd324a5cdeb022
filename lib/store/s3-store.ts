/**
 * The `ObjectStore` on Amazon S3. WAL objects and exports are written with
 * `If-None-Match: *`, so S3 itself arbitrates create-if-absent.
 *
 * Invariants it keeps:
 * 1. A 412 (`PreconditionFailed`) on a put is the answer `'exists'`, never an
 *    error and never retried: the flusher reads the object and decides.
 * 2. A put whose response was lost and whose retry meets 412 also answers
 *    `'exists'`; the flusher adopts its own write, so no slot is skipped.
 * 3. 409 (`ConditionalRequestConflict`, a concurrent conditional write),
 *    throttles, 5xx and network failures are retried with exponential backoff
 *    and jitter; past the budget they become `UnavailableError` naming the key.
 * 4. No SDK exception leaves this file: what is not retryable becomes `InternalError`.
 * 5. A streamed write (`putStreamIfAbsent`) holds at most one part
 *    (`STREAM_PART_BYTES`) of its body. A body that ends within the first
 *    part is one `PutObject` (as `putIfAbsent`); a longer one is a multipart
 *    upload whose `CompleteMultipartUpload` carries `If-None-Match: *`: the
 *    object appears whole, or not at all. A 412 there is `'exists'` and the
 *    upload is aborted; so is any failure (the body's, a part's, the
 *    completion's), so no parts linger (the bucket's lifecycle rule aborts
 *    what a crash leaves). A 409 on completion (a concurrent conditional
 *    write) cannot be retried with the same parts, per S3's documentation:
 *    it aborts and becomes `UnavailableError`; the caller writes again.
 */

import { Readable } from 'node:stream';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { ConfigError, InternalError, UnavailableError } from '../errors.js';
import { RetryPolicy, retry } from '../retry.js';
import type { ListOptions, ObjectStore, PutIfAbsentResult } from './object-store.js';
import {
  describeS3Error,
  isConditionalConflict,
  isNoSuchKey,
  isNoSuchUpload,
  isPreconditionFailed,
  isTransient,
} from './s3-errors.js';

/** Bytes of a streamed body per multipart part (S3's minimum is 5 MiB for every part but the last). */
export const STREAM_PART_BYTES = 8 * 1024 * 1024;

/** Retry settings of `S3ObjectStore`. */
export interface S3ObjectStoreOptions {
  /** Retries after the first attempt before giving up (default: `RetryPolicy.backoff`'s, 4). */
  maxRetries?: number;
  /** Backoff before retry n is up to `baseDelayMs * 2^n`, capped by `maxDelayMs` (defaults 50 and 2000). */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** Keys per `ListObjectsV2` page (default: S3's 1000). */
  listPageSize?: number;
  /** Part size of streamed writes (default `STREAM_PART_BYTES`; tests use small ones). */
  streamPartBytes?: number;
  /** Waits between attempts; injectable so tests do not sleep. */
  sleep?: (ms: number) => Promise<void>;
  /** Source of jitter in [0, 1). */
  random?: () => number;
}

/** Settings of `createS3Client`. */
export interface S3ClientOptions {
  region?: string;
  /** A custom endpoint (s3rver, MinIO): path-style addressing, checksums only when required. */
  endpoint?: string;
  credentials?: { accessKeyId: string; secretAccessKey: string };
  /** SDK-level attempts per request (default 1: `S3ObjectStore` owns retries, so budgets do not multiply). */
  maxAttempts?: number;
}

/**
 * Builds an `S3Client` for `S3ObjectStore`. Against AWS, request and response
 * checksums stay at the SDK default (`WHEN_SUPPORTED`): S3 then verifies every
 * body it stores and the SDK every body it reads, beside the WAL format's own
 * end-to-end checksum. A custom endpoint is an emulator: there they are only
 * sent when required, since the default CRC trailers use aws-chunked bodies
 * that emulators (s3rver) cannot parse.
 */
export function createS3Client(options: S3ClientOptions = {}): S3Client {
  return new S3Client({
    region: options.region,
    credentials: options.credentials,
    maxAttempts: options.maxAttempts ?? 1,
    ...(options.endpoint === undefined
      ? {}
      : {
          endpoint: options.endpoint,
          forcePathStyle: true,
          requestChecksumCalculation: 'WHEN_REQUIRED',
          responseChecksumValidation: 'WHEN_REQUIRED',
        }),
  });
}

type Operation =
  | 'putIfAbsent'
  | 'putStreamIfAbsent'
  | 'uploadPart'
  | 'get'
  | 'getStream'
  | 'list'
  | 'delete';

/** An `ObjectStore` over one S3 bucket. */
export class S3ObjectStore implements ObjectStore {
  readonly #client: S3Client;
  readonly #bucket: string;
  readonly #retry: RetryPolicy;
  readonly #listPageSize: number | undefined;
  readonly #partBytes: number;
  readonly #sleep: (ms: number) => Promise<void>;
  readonly #random: () => number;

  constructor(client: S3Client, bucket: string, options: S3ObjectStoreOptions = {}) {
    this.#client = client;
    this.#bucket = bucket;
    const maxRetries = options.maxRetries ?? RetryPolicy.backoff.attempts - 1;
    const baseDelayMs = options.baseDelayMs ?? RetryPolicy.backoff.baseDelayMs;
    const maxDelayMs = options.maxDelayMs ?? RetryPolicy.backoff.maxDelayMs;
    this.#listPageSize = options.listPageSize;
    this.#partBytes = options.streamPartBytes ?? STREAM_PART_BYTES;
    this.#sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.#random = options.random ?? Math.random;
    if (!Number.isInteger(maxRetries) || maxRetries < 0) {
      throw new ConfigError('maxRetries', maxRetries, 'expected a non-negative integer');
    }
    if (!(baseDelayMs > 0 && maxDelayMs >= baseDelayMs)) {
      throw new ConfigError(
        'baseDelayMs',
        baseDelayMs,
        `expected 0 < baseDelayMs <= maxDelayMs (${maxDelayMs})`,
      );
    }
    this.#retry = { attempts: maxRetries + 1, baseDelayMs, maxDelayMs };
  }

  /** `PutObject` with `If-None-Match: *` (invariants 1-3). */
  async putIfAbsent(key: string, body: Uint8Array): Promise<PutIfAbsentResult> {
    return this.#withRetry('putIfAbsent', key, async () => {
      try {
        await this.#client.send(
          new PutObjectCommand({ Bucket: this.#bucket, Key: key, Body: body, IfNoneMatch: '*' }),
        );
        return 'created';
      } catch (error) {
        if (isPreconditionFailed(error)) return 'exists';
        throw error;
      }
    });
  }

  /** A multipart upload completed create-if-absent (invariant 5). */
  async putStreamIfAbsent(
    key: string,
    body: AsyncIterable<Uint8Array>,
  ): Promise<PutIfAbsentResult> {
    let pending: Uint8Array[] = [];
    let pendingBytes = 0;
    let uploadId: string | undefined;
    const parts: Array<{ PartNumber: number; ETag: string }> = [];
    const flushPart = async () => {
      uploadId ??= await this.#createUpload(key);
      const partNumber = parts.length + 1;
      const bytes = Buffer.concat(pending);
      pending = [];
      pendingBytes = 0;
      const id = uploadId;
      const out = await this.#withRetry('uploadPart', key, () =>
        this.#client.send(
          new UploadPartCommand({
            Bucket: this.#bucket,
            Key: key,
            UploadId: id,
            PartNumber: partNumber,
            Body: bytes,
          }),
        ),
      );
      parts.push({ PartNumber: partNumber, ETag: out.ETag ?? '' });
    };
    try {
      for await (const chunk of body) {
        pending.push(chunk);
        pendingBytes += chunk.byteLength;
        if (pendingBytes >= this.#partBytes) await flushPart();
      }
      if (uploadId === undefined) return await this.putIfAbsent(key, Buffer.concat(pending));
      if (pendingBytes > 0) await flushPart();
      const result = await this.#completeUpload(key, uploadId, parts);
      if (result === 'exists') await this.#abortUpload(key, uploadId);
      uploadId = undefined;
      return result;
    } catch (error) {
      if (uploadId !== undefined) await this.#abortUpload(key, uploadId);
      throw error;
    }
  }

  /** The whole object, or undefined on `NoSuchKey`. */
  async get(key: string): Promise<Uint8Array | undefined> {
    return this.#withRetry('get', key, async () => {
      const output = await this.#getObject(key);
      // Reading the body is inside the retry: a connection reset mid-body is transient too.
      return output?.Body === undefined ? undefined : await output.Body.transformToByteArray();
    });
  }

  /** The object body as a Node stream whose errors are `UnavailableError`s. */
  async getStream(key: string): Promise<Readable | undefined> {
    const output = await this.#withRetry('getStream', key, () => this.#getObject(key));
    if (output?.Body === undefined) return undefined;
    // On Node the SDK's body is an `IncomingMessage`; anything else means a non-Node runtime.
    if (!(output.Body instanceof Readable)) {
      throw new InternalError(`s3 getStream ${key}: expected a Node Readable body`);
    }
    return Readable.from(translateStreamErrors(output.Body, key), { objectMode: false });
  }

  /** Every key under `prefix`, following continuation tokens page by page. */
  async *list(prefix: string, options: ListOptions = {}): AsyncIterable<string> {
    let continuationToken: string | undefined;
    do {
      const token = continuationToken;
      const page = await this.#withRetry('list', prefix, () =>
        this.#client.send(
          new ListObjectsV2Command({
            Bucket: this.#bucket,
            Prefix: prefix,
            StartAfter: options.startAfter,
            ContinuationToken: token,
            MaxKeys: this.#listPageSize,
          }),
        ),
      );
      for (const object of page.Contents ?? []) {
        if (object.Key !== undefined) yield object.Key;
      }
      continuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (continuationToken !== undefined);
  }

  /** `DeleteObject`; S3 answers 204 for an absent key, some emulators 404: both are success. */
  async delete(key: string): Promise<void> {
    await this.#withRetry('delete', key, async () => {
      try {
        await this.#client.send(new DeleteObjectCommand({ Bucket: this.#bucket, Key: key }));
      } catch (error) {
        if (!isNoSuchKey(error)) throw error;
      }
    });
  }

  async #createUpload(key: string): Promise<string> {
    const out = await this.#withRetry('putStreamIfAbsent', key, () =>
      this.#client.send(new CreateMultipartUploadCommand({ Bucket: this.#bucket, Key: key })),
    );
    if (!out.UploadId) throw new InternalError(`s3 putStreamIfAbsent ${key}: no UploadId`);
    return out.UploadId;
  }

  /**
   * `CompleteMultipartUpload` with `If-None-Match: *`. 412 is `'exists'`. A
   * retry after a lost response meets 412 (our own object: the caller
   * verifies what it finds, as for `putIfAbsent`) or `NoSuchUpload` (the
   * first attempt completed, or the upload is gone): then the key's presence
   * decides.
   */
  async #completeUpload(
    key: string,
    uploadId: string,
    parts: Array<{ PartNumber: number; ETag: string }>,
  ): Promise<PutIfAbsentResult> {
    let attempted = false;
    return this.#withRetry('putStreamIfAbsent', key, async () => {
      const retry = attempted;
      attempted = true;
      try {
        await this.#client.send(
          new CompleteMultipartUploadCommand({
            Bucket: this.#bucket,
            Key: key,
            UploadId: uploadId,
            MultipartUpload: { Parts: parts },
            IfNoneMatch: '*',
          }),
        );
        return 'created';
      } catch (error) {
        if (isPreconditionFailed(error)) return 'exists';
        if (isConditionalConflict(error)) {
          throw new UnavailableError(
            `s3 putStreamIfAbsent ${key}: a concurrent conditional write conflicted (${describeS3Error(error)}); the upload was aborted, write again`,
            { cause: error },
          );
        }
        if (retry && isNoSuchUpload(error) && (await this.#exists(key))) return 'exists';
        throw error;
      }
    });
  }

  /** Best effort: a failed abort leaves parts for the lifecycle rule (`abortIncompleteMultipartUpload`). */
  async #abortUpload(key: string, uploadId: string): Promise<void> {
    try {
      await this.#client.send(
        new AbortMultipartUploadCommand({ Bucket: this.#bucket, Key: key, UploadId: uploadId }),
      );
    } catch {
      // Nothing to do: the caller's own error (or answer) is the one that matters.
    }
  }

  async #exists(key: string): Promise<boolean> {
    for await (const found of this.list(key)) if (found === key) return true;
    return false;
  }

  async #getObject(key: string) {
    try {
      return await this.#client.send(new GetObjectCommand({ Bucket: this.#bucket, Key: key }));
    } catch (error) {
      if (isNoSuchKey(error)) return undefined;
      throw error;
    }
  }

  /** Runs `attempt`, retrying transient failures (`lib/retry.ts`); translates whatever is thrown last. */
  async #withRetry<T>(operation: Operation, key: string, attempt: () => Promise<T>): Promise<T> {
    try {
      return await retry(this.#retry, attempt, {
        retryable: (error) =>
          !(error instanceof UnavailableError || error instanceof InternalError) &&
          isTransient(error),
        giveUp: (error, attempts) =>
          new UnavailableError(
            `s3 ${operation} ${key}: still failing after ${attempts} attempts; last error: ${describeS3Error(error)}`,
            { cause: error },
          ),
        sleep: this.#sleep,
        random: this.#random,
      });
    } catch (error) {
      if (error instanceof UnavailableError || error instanceof InternalError) throw error;
      throw new InternalError(`s3 ${operation} ${key}: ${describeS3Error(error)}`, {
        cause: error,
      });
    }
  }
}

/** Re-throws a body stream's failures (connection reset mid-read) as `UnavailableError`. */
async function* translateStreamErrors(body: Readable, key: string): AsyncIterable<Uint8Array> {
  try {
    for await (const chunk of body) yield chunk as Uint8Array;
  } catch (error) {
    throw new UnavailableError(`s3 getStream ${key}: body read failed: ${describeS3Error(error)}`, {
      cause: error,
    });
  }
}
