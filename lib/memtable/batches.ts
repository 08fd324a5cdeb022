/**
 * Batch items: one per put, keyed by (shard, seq), immutable once written.
 * Both the put path's write and the flusher's void seal are conditional on the
 * head item not existing, so exactly one of them defines what a seq holds.
 * Batches are deleted only after a committed WAL object covers them.
 */
import {
  type AttributeValue,
  BatchWriteItemCommand,
  GetItemCommand,
  PutItemCommand,
} from '@aws-sdk/client-dynamodb';
import { GapSealedError, InternalError, UnavailableError } from '../errors.js';
import { type BatchRow, decodeBatchRows, type EncodedBatch } from './batch-codec.js';
import { groupChunks, type ItemGroup } from './item-groups.js';
import { num, str } from './shard-record.js';
import {
  batchPartSk,
  batchRange,
  batchSk,
  CONDITION_FAILED,
  isBatchChunk,
  queryShardItems,
  send,
  sendUnconditional,
  shardPk,
  type Table,
} from './table.js';

/** A batch as the flusher reads it. */
export type StoredBatch = (
  | { seq: number; kind: 'rows'; rows: BatchRow[]; bytes: number }
  | { seq: number; kind: 'void'; bytes: 0 }
) & {
  createdAtMs: number;
  /** Sort keys of every item of this batch (head and chunks), for deletion. */
  itemKeys: string[];
};

/** Input of `writeBatch`. */
export interface WriteBatchInput {
  shard: string;
  seq: number;
  /** The rows, serialized once by `encodeBatchRows`. */
  batch: EncodedBatch;
  /** Bytes accounted against the shard's buffer (same figure given to allocateSeq). */
  bytes: number;
  nowMs: number;
  idempotencyKey?: string;
}

/** Step 4 of the put path; throws GapSealedError when the flusher sealed the seq first. */
export async function writeBatch(table: Table, input: WriteBatchInput): Promise<void> {
  const { shard, seq } = input;
  const { chunks } = input.batch;
  const pk = { S: shardPk(shard) };
  // Continuations first: the head is the commit point of the batch.
  for (let part = 1; part < chunks.length; part++) {
    await sendUnconditional(
      table,
      new PutItemCommand({
        TableName: table.tableName,
        Item: { pk, sk: { S: batchPartSk(seq, part) }, data: { B: chunks[part]! } },
      }),
      'PutItem batch chunk',
    );
  }
  const head: Record<string, AttributeValue> = {
    pk,
    sk: { S: batchSk(seq) },
    kind: { S: 'rows' },
    parts: { N: String(chunks.length) },
    rowCount: { N: String(input.batch.rowCount) },
    bytes: { N: String(input.bytes) },
    createdAtMs: { N: String(input.nowMs) },
    data: { B: chunks[0]! },
  };
  if (input.idempotencyKey) head.idemKey = { S: input.idempotencyKey };
  for (let attempt = 1; ; attempt++) {
    let out: unknown;
    try {
      out = await send(
        table,
        new PutItemCommand({
          TableName: table.tableName,
          Item: head,
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
        'PutItem batch',
      );
    } catch (error) {
      // The write may have landed with its response lost: retrying is safe because the
      // seq is ours alone, and a condition failure below tells the two cases apart.
      if (!(error instanceof UnavailableError) || attempt >= WRITE_ATTEMPTS) throw error;
      continue;
    }
    if (out !== CONDITION_FAILED) return;
    // Something is at our seq: our own earlier attempt (rows), or the flusher's void seal.
    if ((await readHeadKind(table, shard, seq)) === 'rows') return;
    throw new GapSealedError(shard, seq);
  }
}

const WRITE_ATTEMPTS = 3;

async function readHeadKind(table: Table, shard: string, seq: number): Promise<string | undefined> {
  const out = await sendUnconditional<{ Item?: Record<string, AttributeValue> }>(
    table,
    new GetItemCommand({
      TableName: table.tableName,
      Key: { pk: { S: shardPk(shard) }, sk: { S: batchSk(seq) } },
      ConsistentRead: true,
      ProjectionExpression: 'kind',
    }),
    'GetItem batch head',
  );
  return out.Item?.kind?.S;
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
): Promise<'sealed' | 'present'> {
  const out = await send(
    table,
    new PutItemCommand({
      TableName: table.tableName,
      Item: {
        pk: { S: shardPk(shard) },
        sk: { S: batchSk(seq) },
        kind: { S: 'void' },
        createdAtMs: { N: String(nowMs) },
      },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
    'PutItem void',
  );
  return out === CONDITION_FAILED ? 'present' : 'sealed';
}

/** Options of `readBatches`. */
export interface ReadBatchesInput {
  shard: string;
  /** First seq to read (inclusive). */
  fromSeq: number;
  /** Last seq to read (inclusive). */
  toSeq: number;
  /** Stop after the batch that reaches this many bytes (at least one batch is returned). */
  maxBytes: number;
}

/** Reads batch heads and chunks in [fromSeq, toSeq], ascending; missing seqs are simply absent. */
export async function readBatches(table: Table, input: ReadBatchesInput): Promise<StoredBatch[]> {
  const { shard } = input;
  const batches: StoredBatch[] = [];
  let bytes = 0;
  const items = queryShardItems(
    table,
    shard,
    batchRange(input.fromSeq, input.toSeq),
    'Query batches',
  );
  for await (const group of groupChunks(items, isBatchChunk)) {
    const batch = toStoredBatch(shard, group);
    batches.push(batch);
    bytes += batch.bytes;
    if (bytes >= input.maxBytes) break;
  }
  return batches;
}

function toStoredBatch(shard: string, group: ItemGroup): StoredBatch {
  const { head, payload, itemKeys } = group;
  const seq = Number(group.sk.slice('batch#'.length));
  const createdAtMs = num(head, 'createdAtMs', 0);
  if (str(head, 'kind') === 'void') return { seq, kind: 'void', bytes: 0, createdAtMs, itemKeys };
  const parts = num(head, 'parts', 1);
  if (payload.length !== parts) {
    throw new InternalError(
      `shard ${shard} batch ${seq}: expected ${parts} chunks, got ${payload.length}`,
    );
  }
  const rows = decodeBatchRows(`shard ${shard} batch ${seq}`, payload);
  return { seq, kind: 'rows', rows, bytes: num(head, 'bytes', 0), createdAtMs, itemKeys };
}

/** Deletes batch items by sort key (heads and chunks); used after a commit covers them. */
export async function deleteBatches(
  table: Table,
  shard: string,
  keys: readonly string[],
): Promise<void> {
  for (let at = 0; at < keys.length; at += 25) {
    let requests = keys.slice(at, at + 25).map((sk) => ({
      DeleteRequest: { Key: { pk: { S: shardPk(shard) }, sk: { S: sk } } },
    }));
    for (let attempt = 0; requests.length > 0 && attempt < 5; attempt++) {
      const out = await sendUnconditional<{
        UnprocessedItems?: Record<string, typeof requests>;
      }>(
        table,
        new BatchWriteItemCommand({ RequestItems: { [table.tableName]: requests } }),
        'BatchWriteItem delete batches',
      );
      requests = out.UnprocessedItems?.[table.tableName] ?? [];
    }
  }
}
