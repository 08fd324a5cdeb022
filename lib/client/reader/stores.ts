/**
 * Object stores a reader opens: the data bucket on S3 (the SDK is loaded
 * only when one is opened, so producers never pay for it), or the local
 * stack's data folder. Any other `ObjectStore` (`MemoryObjectStore` in
 * tests) works as well.
 */
import path from 'node:path';
import { FsObjectStore } from '../../store/fs-store.js';
import type { ObjectStore } from '../../store/object-store.js';

/** Where and how to reach the bucket; unset fields take the AWS SDK's defaults. */
export interface S3StoreOptions {
  region?: string;
  /** An S3-compatible endpoint (MinIO, an emulator): path-style addressing. */
  endpoint?: string;
  credentials?: { accessKeyId: string; secretAccessKey: string };
}

/** The data bucket `bucket` as an `ObjectStore`, with the SDK's credential chain. */
export async function openS3Store(
  bucket: string,
  options: S3StoreOptions = {},
): Promise<ObjectStore> {
  const { createS3Client, S3ObjectStore } = await import('../../store/s3-store.js');
  return new S3ObjectStore(createS3Client(options), bucket);
}

/** The object store of the local stack's data folder `dataDir` (its `objects/` folder). */
export function openLocalStore(dataDir: string): ObjectStore {
  return new FsObjectStore(path.join(path.resolve(dataDir), 'objects'));
}
