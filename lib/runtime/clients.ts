/**
 * AWS clients built from the environment, once per process. Endpoint
 * overrides point them at the local emulators; without them they talk to AWS.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { S3Client } from '@aws-sdk/client-s3';
import { SQSClient } from '@aws-sdk/client-sqs';
import { FsObjectStore } from '../store/fs-store.js';
import type { ObjectStore } from '../store/object-store.js';
import { createS3Client, S3ObjectStore } from '../store/s3-store.js';

/** Environment names of the local-emulator overrides. */
export const ENDPOINT_ENV = {
  dynamodb: 'SHARDWAL_DYNAMODB_ENDPOINT',
  sqs: 'SHARDWAL_SQS_ENDPOINT',
  s3: 'SHARDWAL_S3_ENDPOINT',
  storeDir: 'SHARDWAL_STORE_DIR',
} as const;

const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };

/**
 * Client options for an emulator at `env[name]` (its endpoint, a region and
 * dummy credentials), or `{}` for AWS's defaults when it is not set.
 */
function emulatorOptions(env: NodeJS.ProcessEnv, name: string) {
  const endpoint = env[name];
  if (!endpoint) return {};
  return { endpoint, region: env.AWS_REGION ?? 'us-east-1', credentials: LOCAL_CREDENTIALS };
}

/** A DynamoDB client; local endpoint and dummy credentials when overridden. */
export function dynamoClientFromEnv(env: NodeJS.ProcessEnv = process.env): DynamoDBClient {
  return new DynamoDBClient(emulatorOptions(env, ENDPOINT_ENV.dynamodb));
}

/** An SQS client; local endpoint and dummy credentials when overridden. */
export function sqsClientFromEnv(env: NodeJS.ProcessEnv = process.env): SQSClient {
  return new SQSClient(emulatorOptions(env, ENDPOINT_ENV.sqs));
}

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
