/**
 * A scriptable stand-in for `S3Client`: a `Map` behind `send`, enforcing
 * `If-None-Match: *` the way S3 does (412 `PreconditionFailed`, on
 * `PutObject` and on `CompleteMultipartUpload`), with multipart uploads held
 * apart until completed, and a queue of hooks that can fail, delay or lose
 * the response of the next sends.
 */

import { Readable } from 'node:stream';
import * as s3 from '@aws-sdk/client-s3';

/** Intercepts one send; `forward` performs it against the fake bucket. */
export type SendHook = (command: unknown, forward: () => Promise<unknown>) => Promise<unknown>;

/** An error shaped like the SDK's: `name`, `$fault`, `$metadata.httpStatusCode`. */
export function s3Error(name: string, httpStatusCode: number): s3.S3ServiceException {
  return new s3.S3ServiceException({
    name,
    message: `${name} (fake)`,
    $fault: httpStatusCode >= 500 ? 'server' : 'client',
    $metadata: { httpStatusCode },
  });
}

/** A network failure: no HTTP response, so no `$metadata.httpStatusCode`. */
export function networkError(): Error {
  return Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
}

/** A hook that throws `error` instead of sending. */
export function failWith(error: unknown): SendHook {
  return async () => {
    throw error;
  };
}

/** A body with the SDK's mixin method that `S3ObjectStore.get` uses. */
function sdkBody(bytes: Uint8Array): Readable {
  return Object.assign(Readable.from([Buffer.from(bytes)], { objectMode: false }), {
    transformToByteArray: async () => Uint8Array.from(bytes),
  });
}

/** The fake client. Use `asClient()` where an `S3Client` is expected. */
export class FakeS3Client {
  readonly objects = new Map<string, Uint8Array>();
  /** Multipart uploads not yet completed or aborted: upload id → key and parts by number. */
  readonly uploads = new Map<string, { key: string; parts: Map<number, Uint8Array> }>();
  #nextUpload = 0;
  /** Names of the commands sent, in order. */
  readonly sent: string[] = [];
  readonly #hooks: SendHook[] = [];

  /** Hooks applied to the next sends, one each. */
  enqueue(...hooks: SendHook[]): void {
    this.#hooks.push(...hooks);
  }

  asClient(): s3.S3Client {
    return this as unknown as s3.S3Client;
  }

  async send(command: unknown): Promise<unknown> {
    this.sent.push((command as object).constructor.name);
    const hook = this.#hooks.shift();
    const forward = async () => this.#handle(command);
    return hook === undefined ? forward() : hook(command, forward);
  }

  #handle(command: unknown): unknown {
    if (command instanceof s3.PutObjectCommand) {
      const { Key, Body, IfNoneMatch } = command.input;
      if (IfNoneMatch === '*' && this.objects.has(Key!)) throw s3Error('PreconditionFailed', 412);
      this.objects.set(Key!, Uint8Array.from(Body as Uint8Array));
      return {};
    }
    if (command instanceof s3.GetObjectCommand) {
      const bytes = this.objects.get(command.input.Key!);
      if (bytes === undefined) throw s3Error('NoSuchKey', 404);
      return { Body: sdkBody(bytes) };
    }
    if (command instanceof s3.ListObjectsV2Command) {
      const { Prefix = '', StartAfter = '', ContinuationToken, MaxKeys = 1000 } = command.input;
      // The fake's continuation token is simply the last key of the previous page.
      const after = ContinuationToken ?? StartAfter;
      const keys = [...this.objects.keys()].filter((k) => k.startsWith(Prefix) && k > after).sort();
      const page = keys.slice(0, MaxKeys);
      const truncated = keys.length > page.length;
      return {
        Contents: page.map((Key) => ({ Key })),
        IsTruncated: truncated,
        NextContinuationToken: truncated ? page.at(-1) : undefined,
      };
    }
    if (command instanceof s3.CreateMultipartUploadCommand) {
      const id = `upload-${++this.#nextUpload}`;
      this.uploads.set(id, { key: command.input.Key!, parts: new Map() });
      return { UploadId: id };
    }
    if (command instanceof s3.UploadPartCommand) {
      const upload = this.uploads.get(command.input.UploadId!);
      if (!upload) throw s3Error('NoSuchUpload', 404);
      const n = command.input.PartNumber!;
      upload.parts.set(n, Uint8Array.from(command.input.Body as Uint8Array));
      return { ETag: `"etag-${n}"` };
    }
    if (command instanceof s3.CompleteMultipartUploadCommand) {
      const { UploadId, Key, IfNoneMatch, MultipartUpload } = command.input;
      const upload = this.uploads.get(UploadId!);
      if (!upload || upload.key !== Key) throw s3Error('NoSuchUpload', 404);
      if (IfNoneMatch === '*' && this.objects.has(Key!)) throw s3Error('PreconditionFailed', 412);
      const numbers = (MultipartUpload?.Parts ?? []).map((p) => p.PartNumber!);
      const body = Buffer.concat(numbers.map((n) => upload.parts.get(n)!));
      this.objects.set(Key!, Uint8Array.from(body));
      this.uploads.delete(UploadId!);
      return {};
    }
    if (command instanceof s3.AbortMultipartUploadCommand) {
      if (!this.uploads.delete(command.input.UploadId!)) throw s3Error('NoSuchUpload', 404);
      return {};
    }
    if (command instanceof s3.DeleteObjectCommand) {
      this.objects.delete(command.input.Key!);
      return {};
    }
    throw new TypeError(`FakeS3Client: unexpected command ${String(command)}`);
  }
}
