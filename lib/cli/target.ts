/**
 * Where a CLI command reads (and, for recovery commands, writes): the local
 * data folder by default — through the running stack when one runs on it,
 * else its files directly — or AWS with `--table` and/or `--bucket` (region
 * and credentials from the usual AWS environment; `SHARDWAL_DYNAMODB_ENDPOINT`
 * and `SHARDWAL_S3_ENDPOINT` point them at emulators).
 *
 * Commands spread the options they accept from `TARGET_OPTIONS` (`options.ts`) and call
 * `openTarget`, then check which half they need with `requireTable` /
 * `requireStore`.
 */
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { dataDirLayout, LOCAL_RESOURCES } from '../local/data-dir.js';
import { LOCAL_SETTINGS } from '../local/local-settings.js';
import type { Table } from '../memtable/table.js';
import { FsObjectStore } from '../store/fs-store.js';
import type { ObjectStore } from '../store/object-store.js';
import { type CliIo, type CommandInput, stringOption } from './command.js';
import { UsageError } from './errors.js';
import { writeText } from './output.js';

/** How `openTarget` treats a local data folder. */
export interface TargetOptions {
  /**
   * A folder whose DynamoDB state is gone but whose object store holds shard
   * data gets a new, empty table instead of a "no shardwal data" refusal (a
   * rebuild then restores each shard from S3 alone, docs/recovery.md).
   */
  createLostTable?: boolean;
}

/** An opened target; either half may be absent in AWS mode. */
export interface Target {
  /** For messages: what is being read. */
  description: string;
  table: Table | undefined;
  store: ObjectStore | undefined;
  close: () => Promise<void>;
}

/** Opens the target the options name. */
export async function openTarget(
  input: CommandInput,
  io: CliIo,
  options: TargetOptions = {},
): Promise<Target> {
  const dataDirOption = stringOption(input, 'data-dir');
  const tableName = stringOption(input, 'table');
  const bucketName = stringOption(input, 'bucket');
  if (tableName !== undefined || bucketName !== undefined) {
    if (dataDirOption !== undefined) {
      throw new UsageError(
        '--data-dir reads the local stack; it cannot be combined with --table or --bucket',
      );
    }
    // Loaded on demand: the S3 SDK is heavy and local reads never need it.
    const { dynamoClientFromEnv, ENDPOINT_ENV } = await import('../runtime/clients.js');
    const { objectStoreFromEnv } = await import('../runtime/object-store-from-env.js');
    const client = tableName === undefined ? undefined : dynamoClientFromEnv(io.env);
    const store =
      bucketName === undefined
        ? undefined
        : objectStoreFromEnv(bucketName, { ...io.env, [ENDPOINT_ENV.storeDir]: undefined });
    return {
      description: [tableName && `table ${tableName}`, bucketName && `bucket ${bucketName}`]
        .filter(Boolean)
        .join(', '),
      table: client && tableName ? { client, tableName } : undefined,
      store,
      close: async () => client?.destroy(),
    };
  }
  const dataDir = path.resolve(
    io.cwd,
    dataDirOption ?? (io.env[LOCAL_SETTINGS.dataDir.env] || LOCAL_SETTINGS.dataDir.default),
  );
  const { openLocalTable } = await import('../local/local-table.js');
  const { NoLocalDataError } = await import('../local/errors.js');
  const local = await openLocalTable(dataDir).catch(async (error: unknown) => {
    if (!(error instanceof NoLocalDataError) || !options.createLostTable) throw error;
    const created = await createLostTable(dataDir);
    if (!created) throw error;
    await writeText(
      io.stderr,
      `note: ${dataDir} has no DynamoDB state but its object store holds shard data; created an empty table to rebuild into\n`,
    );
    return created;
  });
  return {
    description: local.stack
      ? `${dataDir} (through the running stack, pid ${local.stack.pid})`
      : dataDir,
    table: local.table,
    store: new FsObjectStore(dataDirLayout(dataDir).objectsDir),
    close: local.close,
  };
}

/**
 * A new, empty table in the folder's DynamoDB directory, when its object store
 * holds shard data (undefined otherwise: then there is nothing to recover).
 */
async function createLostTable(dataDir: string) {
  const layout = dataDirLayout(dataDir);
  if (!existsSync(path.join(layout.objectsDir, 'shards'))) return undefined;
  const { startDynalite } = await import('../memtable/dynalite-server.js');
  const { ensureTable } = await import('../memtable/create-table.js');
  await mkdir(layout.dynamodbDir, { recursive: true });
  const server = await startDynalite({ path: layout.dynamodbDir });
  const table = { client: server.client, tableName: LOCAL_RESOURCES.tableName };
  try {
    await ensureTable(table);
  } catch (error) {
    await server.close();
    throw error;
  }
  return { table, stack: undefined, close: server.close };
}

/** The table, or a usage error saying which option is missing. */
export function requireTable(target: Target, command: string): Table {
  if (!target.table) throw new UsageError(`${command} needs the table: add --table <name>`);
  return target.table;
}

/** The object store, or a usage error saying which option is missing. */
export function requireStore(target: Target, command: string): ObjectStore {
  if (!target.store) throw new UsageError(`${command} needs the bucket: add --bucket <name>`);
  return target.store;
}
