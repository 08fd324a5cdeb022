/**
 * Raw access to a shard record item, for tests that damage state the way an
 * operator or a restored backup would (e.g. write an older copy back).
 */
import { type AttributeValue, GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { deleteBatches } from '../../lib/memtable/batch-delete.js';
import {
  batchRange,
  META_SK,
  queryShardItems,
  shardPk,
  type Table,
} from '../../lib/memtable/table.js';

/** The shard record item exactly as stored. */
export async function snapshotShardItem(
  table: Table,
  shard: string,
): Promise<Record<string, AttributeValue>> {
  const out = await table.client.send(
    new GetItemCommand({
      TableName: table.tableName,
      Key: { pk: { S: shardPk(shard) }, sk: { S: META_SK } },
      ConsistentRead: true,
    }),
  );
  if (!out.Item) throw new Error(`no shard record for ${shard}`);
  return out.Item;
}

/** Overwrites the shard record with `item` (unconditionally, as a restore does). */
export async function restoreShardItem(
  table: Table,
  item: Record<string, AttributeValue>,
): Promise<void> {
  await table.client.send(new PutItemCommand({ TableName: table.tableName, Item: item }));
}

/**
 * Removes every batch item of `shard` up to `throughSeq`, as DynamoDB's TTL
 * does once their lifetime is over (L5 in `lib/liveness.ts`).
 */
export async function expireBatchItems(
  table: Table,
  shard: string,
  throughSeq: number,
): Promise<void> {
  const keys: string[] = [];
  for await (const item of queryShardItems(table, shard, batchRange(1, throughSeq), 'expire')) {
    keys.push(item.sk!.S!);
  }
  await deleteBatches(table, shard, keys);
}
