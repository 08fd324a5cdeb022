/**
 * Every shard record in the table, by a paginated Scan for `sk = meta`. The
 * scheduled export and verify use it: they run every few minutes to hourly and
 * look at every shard, so O(table) per run is the accepted cost (the flush
 * ticker, which runs every interval, uses the sparse pending index instead).
 */
import { type AttributeValue, ScanCommand } from '@aws-sdk/client-dynamodb';
import { type ShardRecord, toShardRecord } from './shard-record.js';
import { META_SK, sendUnconditional, type Table } from './table.js';

const SHARD_PK_PREFIX = 'shard#';

/** Yields each shard record (strongly consistent pages), in no particular order. */
export async function* scanShardRecords(
  table: Table,
): AsyncGenerator<ShardRecord, void, undefined> {
  let startKey: Record<string, AttributeValue> | undefined;
  do {
    const out = await sendUnconditional<{
      Items?: Record<string, AttributeValue>[];
      LastEvaluatedKey?: Record<string, AttributeValue>;
    }>(
      table,
      new ScanCommand({
        TableName: table.tableName,
        FilterExpression: 'sk = :meta',
        ExpressionAttributeValues: { ':meta': { S: META_SK } },
        ConsistentRead: true,
        ExclusiveStartKey: startKey,
      }),
      'Scan shard records',
    );
    for (const item of out.Items ?? []) {
      const pk = item.pk?.S ?? '';
      if (pk.startsWith(SHARD_PK_PREFIX))
        yield toShardRecord(pk.slice(SHARD_PK_PREFIX.length), item);
    }
    startKey = out.LastEvaluatedKey;
  } while (startKey);
}
