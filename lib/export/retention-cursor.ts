/**
 * Where retention's last runs stopped, kept on the shard record so a run
 * lists from there instead of from position 0:
 *
 * - `walRetiredBelow`: WAL objects below it were deleted;
 * - `orphansSweptBelow`: segments below it that no kept manifest lists were deleted.
 *
 * A cursor only moves forward (a conditional update), and only after the
 * deletions it stands for: a crash in between leaves it behind, and the next
 * run deletes those keys again (deleting an absent key succeeds). A missing
 * cursor (a new shard, a table rebuilt after a loss) reads as 0: that run
 * lists from the start once.
 */
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { updateShardRecord } from '../memtable/shard-record.js';
import { type Item, sendUnconditional, shardRecordKey, type Table } from '../memtable/table.js';

/** The cursors, by attribute name. */
export const RetentionCursor = {
  wal: 'walRetiredBelow',
  orphans: 'orphansSweptBelow',
} as const;
export type RetentionCursor = (typeof RetentionCursor)[keyof typeof RetentionCursor];

/** Both cursors of `shard` (0 when absent). */
export async function readRetentionCursors(
  table: Table,
  shard: string,
): Promise<Record<RetentionCursor, number>> {
  const out = await sendUnconditional<{ Item?: Item }>(
    table,
    new GetItemCommand({
      TableName: table.tableName,
      Key: shardRecordKey(shard),
      ConsistentRead: true,
      ProjectionExpression: `${RetentionCursor.wal}, ${RetentionCursor.orphans}`,
    }),
    'GetItem retention cursors',
  );
  const value = (name: RetentionCursor) => Number(out.Item?.[name]?.N ?? 0);
  return {
    walRetiredBelow: value(RetentionCursor.wal),
    orphansSweptBelow: value(RetentionCursor.orphans),
  };
}

/** Moves `cursor` forward to `position` (no-op when it is already there or the record is gone). */
export async function advanceRetentionCursor(
  table: Table,
  shard: string,
  cursor: RetentionCursor,
  position: number,
): Promise<void> {
  await updateShardRecord(
    table,
    shard,
    {
      update: `SET ${cursor} = :position`,
      condition: `attribute_exists(pk) AND (attribute_not_exists(${cursor}) OR ${cursor} < :position)`,
      values: { ':position': { N: String(position) } },
    },
    `UpdateItem retention cursor ${cursor}`,
  );
}
