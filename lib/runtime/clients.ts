/**
 * AWS clients built from the environment, once per process. Endpoint
 * overrides point them at the local emulators; without them they talk to AWS.
 *
 * A Lambda function builds at module scope the clients it calls on every
 * invocation, and nothing it never calls: each client's SDK costs its cold
 * start an import (`npm run bench:coldstart`). The object store lives in
 * `object-store-from-env.ts`, which this module never imports statically:
 * `lazyObjectStoreFromEnv` loads it on first use.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { emulatorClientOptions } from '../emulator-options.js';
import { LazyObjectStore } from '../store/lazy-store.js';
import type { ObjectStore } from '../store/object-store.js';

/** Environment names of the local-emulator overrides. */
export const ENDPOINT_ENV = {
  dynamodb: 'SHARDWAL_DYNAMODB_ENDPOINT',
  sqs: 'SHARDWAL_SQS_ENDPOINT',
  s3: 'SHARDWAL_S3_ENDPOINT',
  storeDir: 'SHARDWAL_STORE_DIR',
} as const;

/**
 * Client options for an emulator at `env[name]` (its endpoint, a region and
 * dummy credentials), or `{}` for AWS's defaults when it is not set.
 */
export function emulatorOptions(env: NodeJS.ProcessEnv, name: string) {
  const endpoint = env[name];
  if (!endpoint) return {};
  return emulatorClientOptions(endpoint, env.AWS_REGION);
}

/** A DynamoDB client; local endpoint and dummy credentials when overridden. */
export function dynamoClientFromEnv(env: NodeJS.ProcessEnv = process.env): DynamoDBClient {
  return new DynamoDBClient(emulatorOptions(env, ENDPOINT_ENV.dynamodb));
}

/** An SQS client; local endpoint and dummy credentials when overridden. */
export function sqsClientFromEnv(env: NodeJS.ProcessEnv = process.env): SQSClient {
  return new SQSClient(emulatorOptions(env, ENDPOINT_ENV.sqs));
}

/**
 * The object store of `objectStoreFromEnv`, built by its first call: the S3
 * client is imported then, not at the cold start. For functions that seldom
 * touch objects.
 */
export function lazyObjectStoreFromEnv(
  bucketName: string,
  env: NodeJS.ProcessEnv = process.env,
): ObjectStore {
  return new LazyObjectStore(async () => {
    const { objectStoreFromEnv } = await import('./object-store-from-env.js');
    return objectStoreFromEnv(bucketName, env);
  });
}
