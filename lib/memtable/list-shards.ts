/**
 * Every shard record in the table, by a paginated Scan for `sk = meta`. The
 * scheduled export and verify use it: they run every few minutes to hourly and
 * look at every shard, so O(table) per run is the accepted cost (the flush
 * ticker, which runs every interval, uses the sparse pending index instead).
 */
import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { type ShardRecord, toShardRecord } from './shard-record.js';
import { META_SK, paginate, type Table } from './table.js';

const SHARD_PK_PREFIX = 'shard#';

/** Yields each shard record (strongly consistent pages), in no particular order. */
export async function* scanShardRecords(
  table: Table,
): AsyncGenerator<ShardRecord, void, undefined> {
  for await (const item of paginate(
    table,
    (startKey) =>
      new ScanCommand({
        TableName: table.tableName,
        FilterExpression: 'sk = :meta',
        ExpressionAttributeValues: { ':meta': { S: META_SK } },
        ConsistentRead: true,
        ExclusiveStartKey: startKey,
      }),
    'Scan shard records',
  )) {
    const pk = item.pk?.S ?? '';
    if (pk.startsWith(SHARD_PK_PREFIX)) yield toShardRecord(pk.slice(SHARD_PK_PREFIX.length), item);
  }
}
