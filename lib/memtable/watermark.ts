/**
 * The AOF watermark on the shard record: WAL positions below it are covered
 * by the export stored at `aofKey(shard, watermark)`.
 *
 * Invariants kept here:
 * W1. The watermark is recorded only after its export was written (or found
 *     and verified), so a recorded watermark always names an export.
 * W2. Export moves it forward only (a conditional update); a late exporter
 *     with an older export changes nothing.
 * W3. It never passes `walNextPos`: an export covers committed objects only.
 * Rebuild sets it as part of its cursor reset (`reset-cursors.ts`), to the
 * export it replayed from, which may be older when the newest did not verify.
 */
import { updateShardRecord } from './shard-record.js';
import type { Table } from './table.js';

/** Records `coveredPosition` as the watermark if it moves it forward; 'unchanged' otherwise. */
export async function recordWatermark(
  table: Table,
  shard: string,
  coveredPosition: number,
  nowMs: number,
): Promise<'advanced' | 'unchanged'> {
  const out = await updateShardRecord(
    table,
    shard,
    {
      update: 'SET aofWatermark = :covered, aofWatermarkAtMs = :now',
      condition:
        'attribute_exists(pk) AND walNextPos >= :covered AND (attribute_not_exists(aofWatermark) OR aofWatermark < :covered)',
      values: {
        ':covered': { N: String(coveredPosition) },
        ':now': { N: String(nowMs) },
      },
    },
    'UpdateItem record watermark',
  );
  return out === undefined ? 'unchanged' : 'advanced';
}
