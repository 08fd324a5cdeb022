/**
 * Layout of the local stack's data folder. Everything the stack keeps lives
 * under one directory, so copying or deleting it is the whole backup/reset:
 *
 *   <dataDir>/dynamodb/    dynalite's leveldb (shard records, batches, idempotency)
 *   <dataDir>/objects/     the filesystem object store (WAL objects, AOF exports)
 *   <dataDir>/sqs/         the SQS emulator's queues and messages (leveldb, `persisted-sqs.ts`)
 *   <dataDir>/stack.json   present only while a stack runs (see `stack-file.ts`)
 */
import path from 'node:path';

/** Names of the local resources, fixed so a restart finds the same data. */
export const LOCAL_RESOURCES = {
  tableName: 'shardwal',
  bucketName: 'local',
  queueName: 'shardwal-ingest',
  deadLetterQueueName: 'shardwal-ingest-dlq',
  region: 'us-east-1',
} as const;

/** Absolute paths inside a data folder. */
export interface DataDirLayout {
  root: string;
  dynamodbDir: string;
  objectsDir: string;
  sqsDir: string;
  stackFile: string;
}

/** The layout of the data folder at `dataDir` (resolved against the working directory). */
export function dataDirLayout(dataDir: string): DataDirLayout {
  const root = path.resolve(dataDir);
  return {
    root,
    dynamodbDir: path.join(root, 'dynamodb'),
    objectsDir: path.join(root, 'objects'),
    sqsDir: path.join(root, 'sqs'),
    stackFile: path.join(root, 'stack.json'),
  };
}
