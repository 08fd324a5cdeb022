/** An s3rver on a free port for the CLI's `--bucket` tests, and copying a data folder's objects into it. */
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { CreateBucketCommand, type S3Client } from '@aws-sdk/client-s3';
import { FsObjectStore } from '../../lib/store/fs-store.js';
import { createS3Client, S3ObjectStore } from '../../lib/store/s3-store.js';

// s3rver is CommonJS without types; this is the slice of it the tests use.
interface S3rverServer {
  run(): Promise<AddressInfo>;
  close(): Promise<void>;
}
const require = createRequire(import.meta.url);
const S3rver = require('s3rver') as new (options: object) => S3rverServer;
// With SHARDWAL_S3_ENDPOINT set, the clients sign as the local emulator user (`local`/`local`,
// see lib/runtime/clients.ts); s3rver knows only its own key until told about that one.
(
  require('s3rver/lib/models/account') as {
    DUMMY_ACCOUNT: { createKeyPair(id: string, secret: string): void };
  }
).DUMMY_ACCOUNT.createKeyPair('local', 'local');

/** A running S3 emulator. */
export interface S3Emulator {
  endpoint: string;
  /** Creates `bucket` and returns an object store on it. */
  bucket(name: string): Promise<S3ObjectStore>;
  close(): Promise<void>;
}

/** Starts s3rver with its files under `dir`. */
export async function startS3(dir: string): Promise<S3Emulator> {
  const server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: dir });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  const client: S3Client = createS3Client({
    region: 'us-east-1',
    endpoint,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  });
  return {
    endpoint,
    bucket: async (name) => {
      await client.send(new CreateBucketCommand({ Bucket: name }));
      return new S3ObjectStore(client, name);
    },
    close: async () => {
      client.destroy();
      await server.close();
    },
  };
}

/** Copies the objects under `prefix` of a data folder into `bucket`. */
export async function uploadObjects(
  dataDir: string,
  bucket: S3ObjectStore,
  prefix: string,
): Promise<void> {
  const local = new FsObjectStore(path.join(dataDir, 'objects'));
  for await (const key of local.list(prefix)) {
    await bucket.putIfAbsent(key, (await local.get(key))!);
  }
}
