/**
 * Batch items without their payloads: which seqs hold a batch (or a void),
 * when it was written, its bytes and the sort keys of its items. Recovery
 * reconciles these against S3 without reading every payload.
 */
import { QueryCommand } from '@aws-sdk/client-dynamodb';
import { num, str } from './shard-record.js';
import { batchSk, paginate, shardPk, type Table } from './table.js';

/** A batch as its head item describes it. */
export interface BatchHead {
  seq: number;
  kind: 'rows' | 'void';
  createdAtMs: number;
  bytes: number;
  idempotencyKey: string | undefined;
  /** Sort keys of the head and its continuation chunks. */
  itemKeys: string[];
}

/** Heads of the batches with seq in [fromSeq, toSeq], ascending. */
export async function listBatchHeads(
  table: Table,
  shard: string,
  fromSeq = 0,
  toSeq = Number.MAX_SAFE_INTEGER,
): Promise<BatchHead[]> {
  const heads: BatchHead[] = [];
  const headLength = batchSk(0).length;
  for await (const item of paginate(
    table,
    (startKey) =>
      new QueryCommand({
        TableName: table.tableName,
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :lo AND :hi',
        ProjectionExpression: 'sk, kind, createdAtMs, bytes, idemKey',
        ExpressionAttributeValues: {
          ':pk': { S: shardPk(shard) },
          ':lo': { S: batchSk(fromSeq) },
          ':hi': { S: `${batchSk(toSeq)}#~` },
        },
        ConsistentRead: true,
        ExclusiveStartKey: startKey,
      }),
    'Query batch heads',
  )) {
    const sk = str(item, 'sk') ?? '';
    if (sk.length > headLength) {
      heads.at(-1)?.itemKeys.push(sk);
      continue;
    }
    heads.push({
      seq: Number(sk.slice('batch#'.length)),
      kind: str(item, 'kind') === 'void' ? 'void' : 'rows',
      createdAtMs: num(item, 'createdAtMs', 0),
      bytes: num(item, 'bytes', 0),
      idempotencyKey: str(item, 'idemKey'),
      itemKeys: [sk],
    });
  }
  return heads;
}
