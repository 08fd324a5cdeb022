/**
 * Quarantined batches: batch items recovery had to reject because S3 already
 * holds different content at their seq (a shard record rolled back behind S3
 * handed the seq out again). They are never flushed and never silently
 * dropped: rebuild moves them here, names them in its report, and an operator
 * reads them back with `listRejectedBatches` to re-put what should be kept.
 *
 *   pk = shard#<shard>  sk = rejected#<generation>#<seq>           head
 *   pk = shard#<shard>  sk = rejected#<generation>#<seq>#<part>    chunks
 * `generation` is the one the rebuild commits, so a rebuild that crashed and
 * runs again rewrites the same items (idempotent).
 */
import { type AttributeValue, GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { padPosition } from '../paths.js';
import { type BatchRow, decodeBatchRows, MAX_CHUNK_BYTES } from './batch-codec.js';
import { deleteBatches } from './batch-delete.js';
import { spillRefOf } from './batch-item.js';
import { groupChunks } from './item-groups.js';
import { payloadOf } from './read-batches.js';
import { num, str } from './shard-record.js';
import {
  batchPartSk,
  batchRange,
  batchSk,
  type Item,
  queryShardItems,
  sendUnconditional,
  shardPk,
  type Table,
} from './table.js';

const REJECTED_PREFIX = 'rejected#';

/** Sort key of a quarantined batch head. */
function rejectedSk(generation: number, seq: number): string {
  return `${REJECTED_PREFIX}${padPosition(generation)}#${padPosition(seq)}`;
}

/** A quarantined batch as an operator reads it back. */
export interface RejectedBatch {
  seq: number;
  generation: number;
  rejectedAtMs: number;
  reason: string;
  createdAtMs: number;
  idempotencyKey: string | undefined;
  rows: BatchRow[];
}

/** Moves batch `seq` (head and chunks) to the quarantine; returns the quarantine head's sort key. */
export async function quarantineBatch(
  table: Table,
  shard: string,
  input: { seq: number; generation: number; reason: string; nowMs: number },
): Promise<string> {
  const items: Item[] = [];
  const range = batchRange(input.seq, input.seq);
  for await (const item of queryShardItems(table, shard, range, 'Query batch items')) {
    items.push(item);
  }
  const headSk = rejectedSk(input.generation, input.seq);
  for (const item of await inlineSpilled(table, shard, input.seq, items)) {
    const sk = str(item, 'sk')!;
    const suffix = sk.slice(batchSk(input.seq).length);
    // No TTL on the copy: it stays until an operator has re-put what should be kept.
    const { expiresAt: _expires, ...rest } = item;
    const copy: Record<string, AttributeValue> = { ...rest, sk: { S: headSk + suffix } };
    if (suffix === '') {
      copy.rejectedAtMs = { N: String(input.nowMs) };
      copy.rejectedReason = { S: input.reason };
    }
    await sendUnconditional(
      table,
      new PutItemCommand({ TableName: table.tableName, Item: copy }),
      'PutItem quarantine batch',
    );
  }
  await deleteBatches(
    table,
    shard,
    items.map((item) => str(item, 'sk')!),
  );
  return headSk;
}

/**
 * The items of a batch with a spilled payload brought back in (S4 in
 * `spill.ts`): the quarantine keeps its copy with no TTL, longer than the
 * lifecycle rule keeps the object.
 */
async function inlineSpilled(
  table: Table,
  shard: string,
  seq: number,
  items: Item[],
): Promise<Item[]> {
  const [head] = items;
  if (!head || spillRefOf(head) === undefined) return items;
  const sk = str(head, 'sk')!;
  const [payload] = await payloadOf(table, shard, { head, sk, payload: [], itemKeys: [sk] });
  const { spillKey: _key, spillBytes: _bytes, spillSha: _sha, ...rest } = head;
  const parts: Uint8Array[] = [];
  for (let at = 0; at < payload!.length; at += MAX_CHUNK_BYTES) {
    parts.push(payload!.subarray(at, at + MAX_CHUNK_BYTES));
  }
  return [
    { ...rest, parts: { N: String(parts.length) }, data: { B: parts[0]! } },
    ...parts.slice(1).map((data, i) => ({
      pk: head.pk!,
      sk: { S: batchPartSk(seq, i + 1) },
      data: { B: data },
    })),
  ];
}

/** Every quarantined batch of the shard, oldest generation first, rows decoded. */
export async function listRejectedBatches(table: Table, shard: string): Promise<RejectedBatch[]> {
  const items = queryShardItems(
    table,
    shard,
    { lo: REJECTED_PREFIX, hi: `${REJECTED_PREFIX}~` },
    'Query rejected batches',
  );
  const batches: RejectedBatch[] = [];
  const isChunk = (sk: string) => sk.split('#').length > 3;
  for await (const { head, sk, payload } of groupChunks(items, isChunk)) {
    const [, generation, seq] = sk.split('#');
    batches.push({
      seq: Number(seq),
      generation: Number(generation),
      rejectedAtMs: num(head, 'rejectedAtMs', 0),
      reason: str(head, 'rejectedReason') ?? '',
      createdAtMs: num(head, 'createdAtMs', 0),
      idempotencyKey: str(head, 'idemKey'),
      rows:
        str(head, 'kind') === 'void'
          ? []
          : decodeBatchRows(`${shard} ${sk}`, payload, str(head, 'enc')),
    });
  }
  return batches;
}

/** What the head of a quarantined batch says of why it is there. */
export interface QuarantineHead {
  generation: number;
  reason: string;
  rejectedAtMs: number;
}

/**
 * The head of batch `seq`'s quarantine copy made by the rebuild of
 * `generation` (one strongly consistent GetItem), or undefined when there is none.
 */
export async function readQuarantineHead(
  table: Table,
  shard: string,
  generation: number,
  seq: number,
): Promise<QuarantineHead | undefined> {
  const out = await sendUnconditional<{ Item?: Item }>(
    table,
    new GetItemCommand({
      TableName: table.tableName,
      Key: { pk: { S: shardPk(shard) }, sk: { S: rejectedSk(generation, seq) } },
      ConsistentRead: true,
      ProjectionExpression: 'rejectedReason, rejectedAtMs',
    }),
    'GetItem quarantined batch',
  );
  if (!out.Item) return undefined;
  return {
    generation,
    reason: str(out.Item, 'rejectedReason') ?? '',
    rejectedAtMs: num(out.Item, 'rejectedAtMs', 0),
  };
}

/**
 * The newest quarantine copy of batch `seq` made by a rebuild of generation
 * `maxGeneration` or older (newest first, one GetItem each), or undefined.
 */
export async function findQuarantineHead(
  table: Table,
  shard: string,
  seq: number,
  maxGeneration: number,
): Promise<QuarantineHead | undefined> {
  for (let generation = maxGeneration; generation >= 1; generation--) {
    const head = await readQuarantineHead(table, shard, generation, seq);
    if (head) return head;
  }
  return undefined;
}
