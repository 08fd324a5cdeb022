/**
 * Creates the shardwal table with its two sparse indexes, pending and
 * registry (the local stack and the tests; on AWS the CDK stack owns the
 * table). Same layout as `table.ts` and `registry.ts`.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { CreateTableCommand, DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { InternalError } from '../errors.js';
import { REGISTRY_ATTRIBUTES, REGISTRY_INDEX } from './registry.js';
import { PENDING_INDEX, type Table } from './table.js';

/**
 * Creates the table unless it exists, and returns once it is ACTIVE: a table
 * still CREATING refuses item requests (dynalite too, for a moment after
 * CreateTable returns), so the first put must not race it.
 */
export async function ensureTable(table: Table, timeoutMs = 30_000): Promise<void> {
  if ((await tableStatus(table)) === undefined) await createTable(table);
  const deadline = Date.now() + timeoutMs;
  for (
    let status = await tableStatus(table);
    status !== 'ACTIVE';
    status = await tableStatus(table)
  ) {
    if (Date.now() > deadline) {
      throw new InternalError(
        `table ${table.tableName} is ${status ?? 'missing'} after ${timeoutMs} ms`,
      );
    }
    await sleep(10);
  }
}

/** The table's status, or undefined when it does not exist. */
async function tableStatus(table: Table): Promise<string | undefined> {
  try {
    const out = await table.client.send(new DescribeTableCommand({ TableName: table.tableName }));
    return out.Table?.TableStatus;
  } catch (error) {
    if ((error as { name?: string }).name === 'ResourceNotFoundException') return undefined;
    throw error;
  }
}

async function createTable(table: Table): Promise<void> {
  await table.client.send(
    new CreateTableCommand({
      TableName: table.tableName,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [
        { AttributeName: 'pk', AttributeType: 'S' },
        { AttributeName: 'sk', AttributeType: 'S' },
        { AttributeName: 'pendingPk', AttributeType: 'S' },
        { AttributeName: 'pendingShard', AttributeType: 'S' },
        { AttributeName: REGISTRY_ATTRIBUTES.partition, AttributeType: 'S' },
        { AttributeName: REGISTRY_ATTRIBUTES.shard, AttributeType: 'S' },
      ],
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
      GlobalSecondaryIndexes: [
        {
          IndexName: PENDING_INDEX,
          KeySchema: [
            { AttributeName: 'pendingPk', KeyType: 'HASH' },
            { AttributeName: 'pendingShard', KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'KEYS_ONLY' },
        },
        {
          IndexName: REGISTRY_INDEX,
          KeySchema: [
            { AttributeName: REGISTRY_ATTRIBUTES.partition, KeyType: 'HASH' },
            { AttributeName: REGISTRY_ATTRIBUTES.shard, KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'KEYS_ONLY' },
        },
      ],
    }),
  );
}
