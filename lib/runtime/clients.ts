/**
 * AWS clients built from the environment, once per process. Endpoint
 * overrides point them at the local emulators; without them they talk to AWS.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
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

/** A DynamoDB client; local endpoint and dummy credentials when overridden. */
export function dynamoClientFromEnv(env: NodeJS.ProcessEnv = process.env): DynamoDBClient {
  const endpoint = env[ENDPOINT_ENV.dynamodb];
  return endpoint
    ? new DynamoDBClient({
        endpoint,
        region: env.AWS_REGION ?? 'us-east-1',
        credentials: LOCAL_CREDENTIALS,
      })
    : new DynamoDBClient({});
}

/** An SQS client; local endpoint and dummy credentials when overridden. */
export function sqsClientFromEnv(env: NodeJS.ProcessEnv = process.env): SQSClient {
  const endpoint = env[ENDPOINT_ENV.sqs];
  return endpoint
    ? new SQSClient({
        endpoint,
        region: env.AWS_REGION ?? 'us-east-1',
        credentials: LOCAL_CREDENTIALS,
      })
    : new SQSClient({});
}

/** The object store: the filesystem under SHARDWAL_STORE_DIR, else the S3 bucket. */
export function objectStoreFromEnv(
  bucketName: string,
  env: NodeJS.ProcessEnv = process.env,
): ObjectStore {
  const dir = env[ENDPOINT_ENV.storeDir];
  if (dir) return new FsObjectStore(dir);
  const endpoint = env[ENDPOINT_ENV.s3];
  const client = endpoint
    ? createS3Client({
        endpoint,
        region: env.AWS_REGION ?? 'us-east-1',
        credentials: LOCAL_CREDENTIALS,
      })
    : createS3Client({});
  return new S3ObjectStore(client, bucketName);
}
