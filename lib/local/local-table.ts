/**
 * Opens a data folder's DynamoDB table for a reader (the CLI), whether or not
 * a stack runs on it: through the running stack's dynalite endpoint (its
 * process holds the leveldb lock), else through an in-process dynalite on the
 * folder's files.
 */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { emulatorClientOptions } from '../emulator-options.js';
import { startDynalite } from '../memtable/dynalite-server.js';
import type { Table } from '../memtable/table.js';
import { dataDirLayout, LOCAL_RESOURCES } from './data-dir.js';
import { NoLocalDataError } from './errors.js';
import { assertLevelDbUnlocked } from './leveldb-lock.js';
import { findRunningStack, type StackInfo } from './stack-file.js';

/** An open table; `close` releases the client or the in-process emulator. */
export interface LocalTable {
  table: Table;
  /** The running stack it goes through, if any. */
  stack: StackInfo | undefined;
  close: () => Promise<void>;
}

/** The shards an object store folder holds (its `shards/` folders), sorted. */
function objectShards(objectsDir: string): string[] {
  const dir = path.join(objectsDir, 'shards');
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}

/** Opens the table of the data folder at `dataDir`. */
export async function openLocalTable(dataDir: string): Promise<LocalTable> {
  const layout = dataDirLayout(dataDir);
  const stack = await findRunningStack(layout.stackFile);
  if (stack) {
    const client = new DynamoDBClient({
      ...emulatorClientOptions(stack.dynamodbEndpoint, LOCAL_RESOURCES.region),
      maxAttempts: 2,
    });
    return {
      table: { client, tableName: stack.tableName },
      stack,
      close: async () => client.destroy(),
    };
  }
  if (!existsSync(path.join(layout.dynamodbDir, 'CURRENT'))) {
    throw new NoLocalDataError(layout.root, objectShards(layout.objectsDir));
  }
  await assertLevelDbUnlocked(layout.dynamodbDir);
  const server = await startDynalite({ path: layout.dynamodbDir });
  return {
    table: { client: server.client, tableName: LOCAL_RESOURCES.tableName },
    stack: undefined,
    close: server.close,
  };
}
