import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { CreateBucketCommand, type S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InternalError, ShardwalError, UnavailableError } from '../../lib/errors.js';
import { walKey } from '../../lib/paths.js';
import {
  createS3Client,
  S3ObjectStore,
  type S3ObjectStoreOptions,
} from '../../lib/store/s3-store.js';
import { collect, expectBytes, objectStoreContract, readAll, stream } from './contract.js';
import { FakeS3Client, failWith, networkError, s3Error } from './fake-s3-client.js';

// s3rver is CommonJS without types; this is the slice of it the tests use.
interface S3rverServer {
  run(): Promise<AddressInfo>;
  close(): Promise<void>;
}
const S3rver = createRequire(import.meta.url)('s3rver') as new (options: object) => S3rverServer;

let server: S3rverServer;
let serverDir: string;
let client: S3Client;
let buckets = 0;

beforeAll(async () => {
  serverDir = await mkdtemp(path.join(os.tmpdir(), 'shardwal-s3rver-'));
  server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: serverDir });
  const { port } = await server.run();
  client = createS3Client({
    region: 'us-east-1',
    endpoint: `http://127.0.0.1:${port}`,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  });
});

afterAll(async () => {
  client?.destroy();
  await server?.close();
  await rm(serverDir, { recursive: true, force: true });
});

// Wire format (signing, binary bodies, 404 mapping, ListObjectsV2 with StartAfter)
// against a real HTTP S3 emulator. Two s3rver 3.7.1 gaps move cases to FakeS3Client,
// which answers the way S3 does:
// - it ignores `If-None-Match`, so the create-if-absent cases are skipped here;
// - it encrypts continuation tokens with DES, which OpenSSL 3 (Node >= 17) refuses, so
//   a truncated listing is a 500; pages stay at S3's default size here, paging is faked.
objectStoreContract(
  'S3ObjectStore on s3rver',
  async () => {
    const bucket = `bucket-${++buckets}`;
    await client.send(new CreateBucketCommand({ Bucket: bucket }));
    return { store: new S3ObjectStore(client, bucket), cleanup: async () => {} };
  },
  { enforcesCreateIfAbsent: false },
);

objectStoreContract('S3ObjectStore on a fake client enforcing If-None-Match', async () => ({
  store: new S3ObjectStore(new FakeS3Client().asClient(), 'bucket', { listPageSize: 2 }),
  cleanup: async () => {},
}));

// Streamed writes in 64-byte parts: every streamed case above is a multipart upload here.
objectStoreContract('S3ObjectStore on a fake client, streamed writes in parts', async () => ({
  store: new S3ObjectStore(new FakeS3Client().asClient(), 'bucket', { streamPartBytes: 64 }),
  cleanup: async () => {},
}));

/** A store over a fresh fake, recording backoff sleeps instead of sleeping. */
function fakeStore(options: S3ObjectStoreOptions = {}) {
  const fake = new FakeS3Client();
  const sleeps: number[] = [];
  const store = new S3ObjectStore(fake.asClient(), 'bucket', {
    baseDelayMs: 10,
    random: () => 0.5,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    ...options,
  });
  return { fake, store, sleeps };
}

/** The rejection of `promise`, checked to be a shardwal error and never an SDK one. */
async function rejection(promise: Promise<unknown>): Promise<ShardwalError> {
  const error = await promise.then(
    () => expect.fail('expected a rejection'),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ShardwalError);
  expect(error).not.toBeInstanceOf(S3ServiceException);
  return error as ShardwalError;
}

const key = walKey('a', 4);

describe('S3ObjectStore', () => {
  describe('putIfAbsent', () => {
    it('returns exists without retrying when S3 answers 412', async () => {
      const { fake, store, sleeps } = fakeStore();
      fake.objects.set(key, Uint8Array.of(1));
      expect(await store.putIfAbsent(key, Uint8Array.of(2))).toBe('exists');
      expect(fake.sent).toEqual(['PutObjectCommand']);
      expect(sleeps).toEqual([]);
      expectBytes(fake.objects.get(key), Uint8Array.of(1));
    });

    it('retries with growing backoff when S3 answers 409 ConditionalRequestConflict', async () => {
      const { fake, store, sleeps } = fakeStore();
      const conflict = failWith(s3Error('ConditionalRequestConflict', 409));
      fake.enqueue(conflict, conflict);
      expect(await store.putIfAbsent(key, Uint8Array.of(2))).toBe('created');
      expect(fake.sent).toHaveLength(3);
      // Equal jitter with random() = 0.5: 3/4 of 10ms, then 3/4 of 20ms.
      expect(sleeps).toEqual([7.5, 15]);
    });

    it('retries when S3 throttles with 503 SlowDown', async () => {
      const { fake, store, sleeps } = fakeStore();
      fake.enqueue(failWith(s3Error('SlowDown', 503)));
      expect(await store.putIfAbsent(key, Uint8Array.of(2))).toBe('created');
      expect(sleeps).toHaveLength(1);
    });

    it('throws UnavailableError naming the key when the retry budget is spent', async () => {
      const { fake, store } = fakeStore({ maxRetries: 2 });
      fake.enqueue(...Array.from({ length: 3 }, () => failWith(s3Error('SlowDown', 503))));
      const error = await rejection(store.putIfAbsent(key, Uint8Array.of(2)));
      expect(error).toBeInstanceOf(UnavailableError);
      expect(error.message).toContain(key);
      expect(error.message).toContain('SlowDown');
      expect(error.cause).toBeInstanceOf(S3ServiceException);
      expect(fake.sent).toHaveLength(3);
    });

    it('returns exists when the first response was lost after S3 stored the object', async () => {
      const { fake, store } = fakeStore();
      fake.enqueue(async (_, forward) => {
        await forward();
        throw networkError();
      });
      // The retry meets 412: the flusher reads the object back and adopts its own write.
      expect(await store.putIfAbsent(key, Uint8Array.of(2))).toBe('exists');
      expect(fake.sent).toHaveLength(2);
      expectBytes(fake.objects.get(key), Uint8Array.of(2));
    });

    it('throws InternalError without retrying when S3 refuses with 403', async () => {
      const { fake, store } = fakeStore();
      fake.enqueue(failWith(s3Error('AccessDenied', 403)));
      const error = await rejection(store.putIfAbsent(key, Uint8Array.of(2)));
      expect(error).toBeInstanceOf(InternalError);
      expect(error.message).toMatch(/AccessDenied HTTP 403/);
      expect(fake.sent).toHaveLength(1);
    });
  });

  describe('putStreamIfAbsent', () => {
    const passThrough = (_: unknown, forward: () => Promise<unknown>) => forward();
    const body = () => stream([Buffer.alloc(50, 1), Buffer.alloc(50, 2), Buffer.alloc(10, 3)]);
    const joined = Buffer.concat([Buffer.alloc(50, 1), Buffer.alloc(50, 2), Buffer.alloc(10, 3)]);

    it('completes a multipart upload with If-None-Match when the body spans parts', async () => {
      const { fake, store } = fakeStore({ streamPartBytes: 64 });
      const completes: unknown[] = [];
      fake.enqueue(passThrough, passThrough, passThrough, async (command, forward) => {
        completes.push((command as { input: unknown }).input);
        return forward();
      });
      expect(await store.putStreamIfAbsent(key, body())).toBe('created');
      expect(fake.sent).toEqual([
        'CreateMultipartUploadCommand',
        'UploadPartCommand',
        'UploadPartCommand',
        'CompleteMultipartUploadCommand',
      ]);
      expect(completes[0]).toMatchObject({ IfNoneMatch: '*' });
      expectBytes(fake.objects.get(key), joined);
      expect(fake.uploads.size).toBe(0);
    });

    it('sends one conditional PutObject when the body fits in one part', async () => {
      const { fake, store } = fakeStore();
      expect(await store.putStreamIfAbsent(key, body())).toBe('created');
      expect(fake.sent).toEqual(['PutObjectCommand']);
      expectBytes(fake.objects.get(key), joined);
    });

    it('answers exists and aborts the upload when the completion meets 412', async () => {
      const { fake, store, sleeps } = fakeStore({ streamPartBytes: 64 });
      fake.objects.set(key, Uint8Array.of(7));
      expect(await store.putStreamIfAbsent(key, body())).toBe('exists');
      expect(fake.sent.slice(-2)).toEqual([
        'CompleteMultipartUploadCommand',
        'AbortMultipartUploadCommand',
      ]);
      expect(sleeps).toEqual([]);
      expect(fake.uploads.size).toBe(0);
      expectBytes(fake.objects.get(key), Uint8Array.of(7));
    });

    it('aborts the upload and passes the error on when the body fails after a part', async () => {
      const { fake, store } = fakeStore({ streamPartBytes: 64 });
      const failure = new Error('the fold stopped');
      async function* failing() {
        yield Buffer.alloc(100, 1);
        throw failure;
      }
      await expect(store.putStreamIfAbsent(key, failing())).rejects.toBe(failure);
      expect(fake.sent).toEqual([
        'CreateMultipartUploadCommand',
        'UploadPartCommand',
        'AbortMultipartUploadCommand',
      ]);
      expect(fake.uploads.size).toBe(0);
      expect(fake.objects.has(key)).toBe(false);
    });

    it('aborts and throws UnavailableError when the completion meets 409, without retrying it', async () => {
      const { fake, store } = fakeStore({ streamPartBytes: 64 });
      fake.enqueue(
        passThrough,
        passThrough,
        passThrough,
        failWith(s3Error('ConditionalRequestConflict', 409)),
      );
      const error = await rejection(store.putStreamIfAbsent(key, body()));
      expect(error).toBeInstanceOf(UnavailableError);
      expect(error.message).toContain('write again');
      expect(fake.sent.filter((c) => c === 'CompleteMultipartUploadCommand')).toHaveLength(1);
      expect(fake.sent.at(-1)).toBe('AbortMultipartUploadCommand');
      expect(fake.uploads.size).toBe(0);
      expect(fake.objects.has(key)).toBe(false);
    });

    it('answers exists when the completion response was lost after S3 created the object', async () => {
      const { fake, store } = fakeStore({ streamPartBytes: 64 });
      fake.enqueue(passThrough, passThrough, passThrough, async (_, forward) => {
        await forward();
        throw networkError();
      });
      // The retry finds the upload gone and the key present: the caller verifies what it finds.
      expect(await store.putStreamIfAbsent(key, body())).toBe('exists');
      expectBytes(fake.objects.get(key), joined);
    });

    it('retries a part that failed with 503 and completes', async () => {
      const { fake, store, sleeps } = fakeStore({ streamPartBytes: 64 });
      fake.enqueue(passThrough, failWith(s3Error('SlowDown', 503)));
      expect(await store.putStreamIfAbsent(key, body())).toBe('created');
      expect(sleeps).toHaveLength(1);
      expectBytes(fake.objects.get(key), joined);
    });
  });

  describe('get', () => {
    it('returns undefined when S3 answers NoSuchKey', async () => {
      const { store } = fakeStore();
      expect(await store.get(key)).toBeUndefined();
    });

    it('throws InternalError rather than answer absent when the bucket is missing', async () => {
      const { fake, store } = fakeStore();
      fake.enqueue(failWith(s3Error('NoSuchBucket', 404)));
      expect(await rejection(store.get(key))).toBeInstanceOf(InternalError);
    });

    it('retries a 500 and returns the bytes when the next attempt succeeds', async () => {
      const { fake, store } = fakeStore();
      fake.objects.set(key, Uint8Array.of(9));
      fake.enqueue(failWith(s3Error('InternalError', 500)));
      expectBytes(await store.get(key), Uint8Array.of(9));
    });
  });

  describe('getStream', () => {
    it('surfaces a body that breaks mid-read as UnavailableError', async () => {
      const { fake, store } = fakeStore();
      const broken = new Readable({
        read() {
          this.destroy(networkError());
        },
      });
      fake.enqueue(async () => ({ Body: broken }));
      const stream = await store.getStream(key);
      expect(await rejection(readAll(stream!))).toBeInstanceOf(UnavailableError);
    });
  });

  describe('list', () => {
    it('follows continuation tokens across pages', async () => {
      const { fake, store } = fakeStore({ listPageSize: 2 });
      for (const p of [0, 1, 2, 3, 4]) fake.objects.set(walKey('a', p), Uint8Array.of(p));
      expect(await collect(store.list('shards/a/wal/'))).toHaveLength(5);
      expect(fake.sent).toEqual(Array(3).fill('ListObjectsV2Command'));
    });
  });

  describe('delete', () => {
    it('succeeds when an emulator answers 404 for an absent key', async () => {
      const { fake, store } = fakeStore();
      fake.enqueue(failWith(s3Error('NoSuchKey', 404)));
      await expect(store.delete(key)).resolves.toBeUndefined();
    });
  });
});
