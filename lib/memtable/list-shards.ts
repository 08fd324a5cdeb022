/**
 * Every shard of the table, for the scheduled export and verify: a paginated
 * Query of the sparse `registry` index (`registry.ts`), one key-only entry per
 * shard, so a run costs O(shards) read units whatever else the table holds.
 *
 * Tables written before the registry existed hold shard records without an
 * entry. The first listing registers them: one Scan of the table, a
 * conditional update per unregistered record, then a marker item
 * (`pk = registry`, `sk = backfill`) so no later listing scans again (G2). A
 * crash before the marker only means the next listing scans once more.
 */
import { GetItemCommand, PutItemCommand, ScanCommand } from '@aws-sdk/client-dynamodb';
import { REGISTRY_ATTRIBUTES, REGISTRY_INDEX, REGISTRY_PK, registryEntry } from './registry.js';
import { type ShardRecord, toShardRecord, updateShardRecord } from './shard-record.js';
import { listIndexShards, META_SK, paginate, sendUnconditional, type Table } from './table.js';

const SHARD_PK_PREFIX = 'shard#';
/** The marker item of a finished backfill. */
const BACKFILL_KEY = { pk: { S: 'registry' }, sk: { S: 'backfill' } };

/** Names of every registered shard, ascending (the backfill runs first if it never did). */
export async function listShards(table: Table): Promise<string[]> {
  await backfillRegistry(table);
  return listIndexShards(
    table,
    {
      name: REGISTRY_INDEX,
      partition: REGISTRY_ATTRIBUTES.partition,
      pk: REGISTRY_PK,
      shard: REGISTRY_ATTRIBUTES.shard,
    },
    'Query registry index',
  );
}

/** Registers the shard records that predate the registry, once per table (G2); returns how many. */
export async function backfillRegistry(table: Table): Promise<number> {
  const marker = await sendUnconditional<{ Item?: unknown }>(
    table,
    new GetItemCommand({ TableName: table.tableName, Key: BACKFILL_KEY, ConsistentRead: true }),
    'GetItem registry backfill marker',
  );
  if (marker.Item) return 0;
  let registered = 0;
  for await (const item of paginate(
    table,
    (startKey) =>
      new ScanCommand({
        TableName: table.tableName,
        FilterExpression: `sk = :meta AND attribute_not_exists(${REGISTRY_ATTRIBUTES.partition})`,
        ProjectionExpression: 'pk',
        ExpressionAttributeValues: { ':meta': { S: META_SK } },
        ConsistentRead: true,
        ExclusiveStartKey: startKey,
      }),
    'Scan unregistered shard records',
  )) {
    const pk = item.pk?.S ?? '';
    if (!pk.startsWith(SHARD_PK_PREFIX)) continue;
    const shard = pk.slice(SHARD_PK_PREFIX.length);
    const entry = registryEntry(shard);
    const out = await updateShardRecord(
      table,
      shard,
      { update: `SET ${entry.set}`, condition: 'attribute_exists(pk)', values: entry.values },
      'UpdateItem register shard',
    );
    if (out) registered += 1;
  }
  await sendUnconditional(
    table,
    new PutItemCommand({ TableName: table.tableName, Item: { ...BACKFILL_KEY } }),
    'PutItem registry backfill marker',
  );
  return registered;
}

/**
 * Every shard record by a strongly consistent Scan: O(table). The scheduled
 * jobs no longer use it (they list the registry); it stays for callers that
 * want each record's state in one pass over a small table (tests, tools).
 */
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
