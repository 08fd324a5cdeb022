/**
 * The object store from the environment: S3, or the filesystem in the local
 * stack. Its own module, away from `clients.ts`, so that a function which
 * seldom touches objects loads the S3 client on first use only
 * (`lazyObjectStoreFromEnv`), while one that writes objects on every call
 * builds it at its cold start (`objectStoreFromEnv`).
 */
import type { S3Client } from '@aws-sdk/client-s3';
import { resourcesFromEnv } from '../config.js';
import { FsObjectStore } from '../store/fs-store.js';
import type { ObjectStore } from '../store/object-store.js';
import { createS3Client, S3ObjectStore } from '../store/s3-store.js';
import { ENDPOINT_ENV, emulatorOptions } from './clients.js';

/** An S3 client; AWS's defaults (checksums on), or the emulator's endpoint when overridden. */
export function s3ClientFromEnv(env: NodeJS.ProcessEnv = process.env): S3Client {
  return createS3Client(emulatorOptions(env, ENDPOINT_ENV.s3));
}

/** The object store: the filesystem under SHARDWAL_STORE_DIR, else the S3 bucket. */
export function objectStoreFromEnv(
  bucketName: string,
  env: NodeJS.ProcessEnv = process.env,
): ObjectStore {
  const dir = env[ENDPOINT_ENV.storeDir];
  if (dir) return new FsObjectStore(dir);
  return new S3ObjectStore(s3ClientFromEnv(env), bucketName);
}

/** `objectStoreFromEnv` on the service's bucket (SHARDWAL_BUCKET). */
export function bucketStoreFromEnv(env: NodeJS.ProcessEnv = process.env): ObjectStore {
  return objectStoreFromEnv(resourcesFromEnv(env).bucketName, env);
}
