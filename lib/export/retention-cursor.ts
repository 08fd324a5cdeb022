/**
 * Where retention's last runs stopped, kept on the shard record so a run
 * lists from there instead of from position 0:
 *
 * - `walRetiredBelow`: WAL objects below it were deleted;
 * - `orphansSweptBelow`: segments below it that no kept manifest lists were deleted;
 * - `historyKeptFrom`: no manifest in S3 lists history below it, nor will one
 *   written later (T6 in `retention.ts`): a table's keyless rows below it
 *   may leave the table (`lib/table/retain.ts`).
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
import type { HistoryKeptFrom } from '../table/retain.js';

/** The cursors, by attribute name. */
export const RetentionCursor = {
  wal: 'walRetiredBelow',
  orphans: 'orphansSweptBelow',
  history: 'historyKeptFrom',
} as const;
export type RetentionCursor = (typeof RetentionCursor)[keyof typeof RetentionCursor];

/** The cursors of `shard` (0 when absent). */
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
      ProjectionExpression: Object.values(RetentionCursor).join(', '),
    }),
    'GetItem retention cursors',
  );
  const value = (name: RetentionCursor) => Number(out.Item?.[name]?.N ?? 0);
  return {
    walRetiredBelow: value(RetentionCursor.wal),
    orphansSweptBelow: value(RetentionCursor.orphans),
    historyKeptFrom: value(RetentionCursor.history),
  };
}

/** Each shard's `historyKeptFrom` cursor, for the tables' history retention (`lib/table/retain.ts`). */
export function historyKeptFrom(table: Table): HistoryKeptFrom {
  return async (shards) =>
    new Map(
      await Promise.all(
        shards.map(
          async (shard) =>
            [shard, (await readRetentionCursors(table, shard)).historyKeptFrom] as const,
        ),
      ),
    );
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
