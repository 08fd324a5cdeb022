/**
 * DynamoDB's TTL and the bucket's lifecycle rule for the local stack.
 * dynalite has no TTL and the filesystem store no lifecycle, so the local
 * stack runs these on a timer: every item whose `expiresAt` (epoch seconds)
 * has passed is deleted, as DynamoDB's TTL would (eventually) delete it, and
 * every spilled payload older than the lifecycle rule's days is removed, so a
 * local data folder does not grow forever. A Scan and a directory walk are
 * fine here: it is the local emulator, and the sweep runs every few minutes.
 */
import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { deleteItems } from '../memtable/batch-delete.js';
import { SPILL_LIFECYCLE_DAYS } from '../memtable/spill.js';
import { type Item, paginate, type Table } from '../memtable/table.js';
import { SPILL_PREFIX } from '../paths.js';

/** Deletes the expired items of `table`; returns how many. */
export async function sweepExpiredItems(table: Table, nowMs: number): Promise<number> {
  const expired: Item[] = [];
  for await (const item of paginate(
    table,
    (startKey) =>
      new ScanCommand({
        TableName: table.tableName,
        FilterExpression: 'expiresAt < :now',
        ProjectionExpression: 'pk, sk',
        ExpressionAttributeValues: { ':now': { N: String(Math.floor(nowMs / 1000)) } },
        ExclusiveStartKey: startKey,
      }),
    'Scan expired items',
  )) {
    expired.push({ pk: item.pk!, sk: item.sk! });
  }
  await deleteItems(table, expired, 'BatchWriteItem sweep expired');
  return expired.length;
}

/**
 * Removes the spilled payloads under the filesystem store at `objectsDir`
 * written more than `SPILL_LIFECYCLE_DAYS` ago (by file time), as the
 * bucket's lifecycle rule does on S3; returns how many.
 */
export async function sweepExpiredSpills(objectsDir: string, nowMs: number): Promise<number> {
  const before = nowMs - SPILL_LIFECYCLE_DAYS * 86_400_000;
  let removed = 0;
  const walk = async (dir: string): Promise<void> => {
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      const file = join(dir, entry.name);
      if (entry.isDirectory()) {
        await walk(file);
      } else if ((await stat(file)).mtimeMs < before) {
        await rm(file, { force: true });
        removed += 1;
      }
    }
  };
  await walk(join(objectsDir, ...SPILL_PREFIX.split('/').filter(Boolean)));
  return removed;
}
