/**
 * Sealing a seq void: a tombstone at a seq whose put will never write it (a
 * gap the flusher seals, a seq its own put gives up). Conditional on the head
 * not existing, like the batch write, so exactly one of them defines what
 * the seq holds (H1 in `batch-item.ts`).
 */
import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import { voidItem } from './batch-item.js';
import { CONDITION_FAILED, expiresAt, lifetimesOf, send, type Table } from './table.js';

/** Options of `sealVoid`. */
export interface SealOptions {
  /** Set by a put sealing its own seq: its charge, released when the void is committed (A2). */
  chargeEnd?: number;
  /** Set by a rebuild sealing a seq S3 already holds: the status then asks the WAL (S1 in `lib/status/seq-state.ts`). */
  reissued?: boolean;
}

/**
 * Seals `seq` as void if no batch was written there. Returns 'sealed' when
 * this call wrote the void, 'present' when a batch (or another sealer's void)
 * got there first.
 */
export async function sealVoid(
  table: Table,
  shard: string,
  seq: number,
  nowMs: number,
  options: SealOptions = {},
): Promise<'sealed' | 'present'> {
  const item = voidItem({
    shard,
    seq,
    nowMs,
    expiresAt: expiresAt(nowMs, lifetimesOf(table).voidMs),
    chargeEnd: options.chargeEnd,
    reissued: options.reissued,
  });
  const out = await send(
    table,
    new PutItemCommand({
      TableName: table.tableName,
      Item: item,
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
    'PutItem void',
  );
  return out === CONDITION_FAILED ? 'present' : 'sealed';
}
