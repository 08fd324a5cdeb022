/**
 * Where `shardwal tail` reads: the object store alone. Locally that is the
 * data folder's `objects/` directory, read directly (no DynamoDB: a tail
 * that follows for hours must not hold the folder's table lock, which would
 * keep `shardwal start` from starting). In AWS it is the bucket given with
 * `--bucket` (`--region`, else the SDK's default region; with
 * `SHARDWAL_S3_ENDPOINT` an emulator), and `--table`, if given, is read once
 * to say whether the shard exists.
 */
import path from 'node:path';
import { dataDirLayout } from '../local/data-dir.js';
import { LOCAL_SETTINGS } from '../local/local-settings.js';
import { readShardRecord } from '../memtable/shard-record.js';
import { FsObjectStore } from '../store/fs-store.js';
import type { ObjectStore } from '../store/object-store.js';
import { type CliIo, type CommandInput, stringOption } from './command.js';
import { UsageError } from './errors.js';

/** An opened tail target. */
export interface TailTarget {
  /** For messages: what is read. */
  description: string;
  store: ObjectStore;
  /** Whether the shard has a shard record; undefined without a table to ask. */
  shardExists: (shard: string) => Promise<boolean | undefined>;
  close: () => Promise<void>;
}

/** Opens the target the options name. */
export async function openTailTarget(input: CommandInput, io: CliIo): Promise<TailTarget> {
  const dataDir = stringOption(input, 'data-dir');
  const bucket = stringOption(input, 'bucket');
  const tableName = stringOption(input, 'table');
  const region = stringOption(input, 'region');
  if (bucket === undefined) {
    if (tableName !== undefined) {
      throw new UsageError('tail reads the bucket: add --bucket <name> (--table is optional)');
    }
    if (region !== undefined) throw new UsageError('--region needs --bucket');
    const root = path.resolve(
      io.cwd,
      dataDir ?? (io.env[LOCAL_SETTINGS.dataDir.env] || LOCAL_SETTINGS.dataDir.default),
    );
    return {
      description: root,
      store: new FsObjectStore(dataDirLayout(root).objectsDir),
      shardExists: async () => undefined,
      close: async () => {},
    };
  }
  if (dataDir !== undefined) {
    throw new UsageError(
      '--data-dir reads the local stack; it cannot be combined with --table or --bucket',
    );
  }
  // Loaded on demand: local tails never need the AWS SDK.
  const { dynamoClientFromEnv, ENDPOINT_ENV } = await import('../runtime/clients.js');
  const { s3ClientFromEnv } = await import('../runtime/object-store-from-env.js');
  const { createS3Client, S3ObjectStore } = await import('../store/s3-store.js');
  const s3 = io.env[ENDPOINT_ENV.s3] ? s3ClientFromEnv(io.env) : createS3Client({ region });
  let dynamo: Awaited<ReturnType<typeof dynamoClientFromEnv>> | undefined;
  if (tableName !== undefined) {
    const { DynamoDBClient } = await import('@aws-sdk/client-dynamodb');
    dynamo = io.env[ENDPOINT_ENV.dynamodb]
      ? dynamoClientFromEnv(io.env)
      : new DynamoDBClient(region === undefined ? {} : { region });
  }
  return {
    description: [`bucket ${bucket}`, tableName && `table ${tableName}`].filter(Boolean).join(', '),
    store: new S3ObjectStore(s3, bucket),
    shardExists: async (shard) => {
      if (!dynamo || tableName === undefined) return undefined;
      return (await readShardRecord({ client: dynamo, tableName }, shard)) !== undefined;
    },
    close: async () => {
      s3.destroy();
      dynamo?.destroy();
    },
  };
}
