/**
 * Creates the shardwal table with its pending index (the local stack and the
 * tests; on AWS the CDK stack owns the table). Same layout as `table.ts`.
 */
import { CreateTableCommand, DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { PENDING_INDEX, type Table } from './table.js';

/** Creates the table unless it exists. */
export async function ensureTable(table: Table): Promise<void> {
  try {
    await table.client.send(new DescribeTableCommand({ TableName: table.tableName }));
    return;
  } catch (error) {
    if ((error as { name?: string }).name !== 'ResourceNotFoundException') throw error;
  }
  await table.client.send(
    new CreateTableCommand({
      TableName: table.tableName,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [
        { AttributeName: 'pk', AttributeType: 'S' },
        { AttributeName: 'sk', AttributeType: 'S' },
        { AttributeName: 'pendingPk', AttributeType: 'S' },
        { AttributeName: 'pendingShard', AttributeType: 'S' },
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
      ],
    }),
  );
}
