/**
 * Batch items: one per put, keyed by (shard, seq), immutable once written.
 * Both the put path's write and the flusher's void seal are conditional on the
 * head item not existing, so exactly one of them defines what a seq holds.
 * Nothing deletes a batch: every item expires by TTL (L5 in `lib/liveness.ts`),
 * a batch `batchMs` after its write, a void `voidMs` after its seal.
 *
 * A batch's compressed payload is in the head's `data` (and continuation
 * chunks past 350 KB), or, above the table's spill threshold, in an S3 object
 * the head points at (`spillKey`, `spillBytes`, `spillSha`: `spill.ts`).
 * Readers get the rows either way.
 */

import { randomUUID } from 'node:crypto';
import { type AttributeValue, PutItemCommand } from '@aws-sdk/client-dynamodb';
import {
  GapSealedError,
  InternalError,
  PutDeadlineError,
  SeqTakenError,
  UnavailableError,
} from '../errors.js';
import { RetryPolicy, retry } from '../retry.js';
import { mapWithConcurrency } from '../ticker/concurrency.js';
import {
  BATCH_ENCODING,
  type BatchRow,
  decodeBatchRows,
  type EncodedBatch,
} from './batch-codec.js';
import { deleteItems } from './batch-delete.js';
import { groupChunks, type ItemGroup } from './item-groups.js';
import { num, str } from './shard-record.js';
import { readSpill, type SpillRef, spills, writeSpill } from './spill.js';
import {
  batchPartSk,
  batchRange,
  batchSk,
  CONDITION_FAILED,
  expiresAt,
  getItem,
  type Item,
  isBatchChunk,
  lifetimesOf,
  queryShardItems,
  send,
  sendUnconditional,
  seqOfBatchSk,
  shardPk,
  type Table,
} from './table.js';

/** A batch as the flusher reads it. */
export type StoredBatch = (
  | {
      seq: number;
      kind: 'rows';
      /** The rows, decoded on first read (the flusher writes `payload` as it is). */
      rows: BatchRow[];
      /** Rows in the batch, as its head records. */
      rowCount: number;
      /** Uncompressed payload bytes (what the buffer was charged). */
      bytes: number;
      /** The compressed payload, whole: one gzip member of `encoding` (`batch-codec.ts`). */
      payload: Uint8Array;
      /** The payload's encoding (undefined: the first version's JSON array). */
      encoding: string | undefined;
    }
  | { seq: number; kind: 'void'; bytes: 0 }
) & {
  createdAtMs: number;
  /** Cumulative charge through this batch's allocation (A2 in `allocate.ts`), when known. */
  chargeEnd: number | undefined;
  /** When its put allocated the seq, when recorded (L5 in `lib/liveness.ts`). */
  allocatedAtMs: number | undefined;
  /** Sort keys of every item of this batch (head and chunks), for deletion. */
  itemKeys: string[];
};

/** The point past which a put must not write its batch (L1 in `lib/liveness.ts`). */
interface WriteDeadline {
  atMs: number;
  now: () => number;
}

/** Input of `writeBatch`. */
export interface WriteBatchInput {
  shard: string;
  seq: number;
  /** When the seq was allocated (the put's clock): bounds how old the shard's pending data is (L5). */
  allocatedAtMs?: number;
  /** The rows, serialized once by `encodeBatchRows`. */
  batch: EncodedBatch;
  /** Bytes accounted against the shard's buffer (same figure given to allocateSeq). */
  bytes: number;
  /** The allocation's cumulative charge (A2 in `allocate.ts`). */
  chargeEnd?: number;
  nowMs: number;
  idempotencyKey?: string;
  /** No item is sent once this has passed. */
  deadline?: WriteDeadline;
  /** Identifies this put's write (a fresh one by default): what tells its own item from another's. */
  putId?: string;
}

/**
 * Step 4 of the put path. Throws GapSealedError when the seq was sealed void
 * first (nothing of ours is read: chunks or a spilled payload we wrote are
 * referenced by nothing and expire),
 * PutDeadlineError when the deadline passed before the head was written, and
 * UnavailableError when the outcome is unknown (a lost response). In the last
 * two cases the caller settles the seq (`settleOwnSeq`) to learn or decide it.
 */
export async function writeBatch(table: Table, input: WriteBatchInput): Promise<void> {
  const { shard, seq } = input;
  const pk = { S: shardPk(shard) };
  const expires = expiresAt(input.nowMs, lifetimesOf(table).batchMs);
  const putId = input.putId ?? randomUUID();
  const checkDeadline = () => {
    if (input.deadline && input.deadline.now() >= input.deadline.atMs) {
      throw new PutDeadlineError(shard, seq);
    }
  };
  // The payload first, in S3 or in continuation chunks: the head is the commit point (S1).
  let spilled: SpillRef | undefined;
  const spill = table.spill;
  if (spills(spill, input.batch.compressed.length)) {
    checkDeadline();
    spilled = await writeSpill(spill.store(), shard, seq, putId, input.batch.compressed);
  }
  const chunks = spilled ? [] : input.batch.chunks;
  for (let part = 1; part < chunks.length; part++) {
    checkDeadline();
    await sendUnconditional(
      table,
      new PutItemCommand({
        TableName: table.tableName,
        Item: {
          pk,
          sk: { S: batchPartSk(seq, part) },
          data: { B: chunks[part]! },
          expiresAt: expires,
        },
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
    enc: { S: BATCH_ENCODING },
    expiresAt: expires,
    putId: { S: putId },
  };
  if (spilled) {
    head.spillKey = { S: spilled.key };
    head.spillBytes = { N: String(spilled.bytes) };
    head.spillSha = { S: spilled.sha256 };
  } else {
    head.data = { B: chunks[0]! };
  }
  if (input.allocatedAtMs !== undefined) head.allocAtMs = { N: String(input.allocatedAtMs) };
  if (input.chargeEnd !== undefined) head.chargeEnd = { N: String(input.chargeEnd) };
  if (input.idempotencyKey) head.idemKey = { S: input.idempotencyKey };
  // The write may have landed with its response lost: re-sending is safe because the
  // seq is ours alone, and a condition failure below tells the two cases apart.
  const out = await retry(
    RetryPolicy.resendWrite,
    () => {
      checkDeadline();
      return send(
        table,
        new PutItemCommand({
          TableName: table.tableName,
          Item: head,
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
        'PutItem batch',
      );
    },
    { retryable: (error) => error instanceof UnavailableError },
  );
  if (out === CONDITION_FAILED) {
    // Something is at our seq: our own earlier attempt (a lost response), a void seal, or,
    // when the shard record was rolled back behind the memtable, another put's old batch.
    // Only the put id tells ours apart; nothing removes an item within a put's deadline (L5).
    const found = await readBatchHead(table, shard, seq);
    if (found?.kind === 'rows' && found.putId === putId) return;
    // What we wrote besides the head (chunks, a spilled payload) stays behind, referenced by
    // nothing: TTL and the lifecycle rule remove it, at no charge (a delete bills like a write).
    if (found?.kind === 'rows') throw new SeqTakenError(shard, seq);
    throw new GapSealedError(shard, seq);
  }
}

/** A batch head as a put sees it when settling its own seq. */
export interface BatchHeadSummary {
  kind: 'rows' | 'void';
  rowCount: number;
  idempotencyKey: string | undefined;
  /** The put that wrote it (`WriteBatchInput.putId`). */
  putId: string | undefined;
}

/** Reads the head of batch `seq` (strongly consistent); undefined when nothing is there. */
export async function readBatchHead(
  table: Table,
  shard: string,
  seq: number,
): Promise<BatchHeadSummary | undefined> {
  const item = await getItem(
    table,
    { pk: { S: shardPk(shard) }, sk: { S: batchSk(seq) } },
    'GetItem batch head',
    'kind, rowCount, idemKey, putId',
  );
  if (!item) return undefined;
  return {
    kind: str(item, 'kind') === 'void' ? 'void' : 'rows',
    rowCount: num(item, 'rowCount', 0),
    idempotencyKey: str(item, 'idemKey'),
    putId: str(item, 'putId'),
  };
}

/** Options of `sealVoid`. */
export interface SealOptions {
  /** Set by a put sealing its own seq: its charge, released when the void is committed (A2). */
  chargeEnd?: number;
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
  const item: Record<string, AttributeValue> = {
    pk: { S: shardPk(shard) },
    sk: { S: batchSk(seq) },
    kind: { S: 'void' },
    createdAtMs: { N: String(nowMs) },
    expiresAt: expiresAt(nowMs, lifetimesOf(table).voidMs),
  };
  if (options.chargeEnd !== undefined) item.chargeEnd = { N: String(options.chargeEnd) };
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
  let bytes = 0;
  const items = queryShardItems(
    table,
    shard,
    batchRange(input.fromSeq, input.toSeq),
    'Query batches',
  );
  const groups: ItemGroup[] = [];
  for await (const group of groupChunks(items, isBatchChunk)) {
    groups.push(group);
    if (str(group.head, 'kind') !== 'void') bytes += num(group.head, 'bytes', 0);
    if (bytes >= input.maxBytes) break;
  }
  // Spilled payloads are read from S3 side by side; the rest are decoded as they are.
  return mapWithConcurrency(groups, SPILL_READS_IN_FLIGHT, async (group) =>
    toStoredBatch(shard, group, await payloadOf(table, shard, group)),
  );
}

/** Spilled payloads read at once by one `readBatches`. */
export const SPILL_READS_IN_FLIGHT = 16;

/** The spill reference a head records, if its payload was spilled. */
export function spillRefOf(head: Item): SpillRef | undefined {
  const key = str(head, 'spillKey');
  if (key === undefined) return undefined;
  return { key, bytes: num(head, 'spillBytes', 0), sha256: str(head, 'spillSha') ?? '' };
}

/** The compressed payload parts of a batch group: its items' data, or its spilled object (S2). */
export async function payloadOf(
  table: Table,
  shard: string,
  group: ItemGroup,
): Promise<Uint8Array[]> {
  const ref = spillRefOf(group.head);
  if (ref === undefined) return group.payload;
  if (!table.spill) {
    throw new InternalError(
      `shard ${shard} ${group.sk}: its payload is spilled to ${ref.key} but this process has no object store for the table`,
    );
  }
  return [await readSpill(table.spill.store(), ref)];
}

function toStoredBatch(shard: string, group: ItemGroup, payload: Uint8Array[]): StoredBatch {
  const { head, itemKeys } = group;
  const seq = seqOfBatchSk(group.sk);
  const createdAtMs = num(head, 'createdAtMs', 0);
  const chargeEnd = head.chargeEnd?.N === undefined ? undefined : Number(head.chargeEnd.N);
  const allocatedAtMs = head.allocAtMs?.N === undefined ? undefined : Number(head.allocAtMs.N);
  if (str(head, 'kind') === 'void') {
    return { seq, kind: 'void', bytes: 0, createdAtMs, chargeEnd, allocatedAtMs, itemKeys };
  }
  const parts = spillRefOf(head) ? 1 : num(head, 'parts', 1);
  if (payload.length !== parts) {
    throw new InternalError(
      `shard ${shard} batch ${seq}: expected ${parts} chunks, got ${payload.length}`,
    );
  }
  const encoding = str(head, 'enc');
  const whole = payload.length === 1 ? payload[0]! : Buffer.concat(payload);
  let rows: BatchRow[] | undefined;
  return {
    seq,
    kind: 'rows',
    // Decoded only when read: the flusher passes the payload into the WAL as it is.
    get rows(): BatchRow[] {
      rows ??= decodeBatchRows(`shard ${shard} batch ${seq}`, [whole], encoding);
      return rows;
    },
    rowCount: num(head, 'rowCount', 0),
    bytes: num(head, 'bytes', 0),
    payload: whole,
    encoding,
    createdAtMs,
    chargeEnd,
    allocatedAtMs,
    itemKeys,
  };
}

/**
 * Deletes batch items by sort key (heads and chunks): only quarantine moves a
 * batch away. Raises `UnprocessedItemsError` when DynamoDB leaves some of
 * them in place after every retry.
 */
export async function deleteBatches(
  table: Table,
  shard: string,
  keys: readonly string[],
): Promise<void> {
  const pk = { S: shardPk(shard) };
  await deleteItems(
    table,
    keys.map((sk) => ({ pk, sk: { S: sk } })),
    'BatchWriteItem delete batches',
  );
}
