/**
 * Batch items: one per put, keyed by (shard, seq). This is the one place
 * their attribute maps are built and read; `write-batch.ts`, `seal-void.ts`,
 * `read-batches.ts` and `batch-heads.ts` send and query them.
 *
 * A batch's compressed payload is in the head's `data` (and continuation
 * chunks past 350 KB), or, above the table's spill threshold, in an S3 object
 * the head points at (`spillKey`, `spillBytes`, `spillSha`: `spill.ts`).
 * Readers get the rows either way.
 *
 * Invariants kept by the batch item writers:
 * H1. What a seq holds is immutable once written or sealed: the put path's
 *     write (`writeBatch`) and the flusher's void seal (`sealVoid`) are both
 *     conditional on the head item not existing, so exactly one of them
 *     defines it, and any flusher resolving from the same `durableSeq`
 *     encodes a prefix of the same rows (I1 in `lib/flush/flush-shard.ts`).
 * H2. Nothing deletes a batch item but quarantine (`deleteBatches`): each
 *     expires by TTL, a batch `batchMs` after its write, a void `voidMs`
 *     after its seal (L4, L5 in `lib/liveness.ts`). A void is what makes a
 *     late writer of a sealed seq fail its condition (GapSealedError)
 *     instead of landing rows below `durableSeq` that no flush will read.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { BATCH_ENCODING } from './batch-codec.js';
import { num, str } from './shard-record.js';
import type { SpillRef } from './spill.js';
import { batchPartSk, batchSk, type Item, shardPk } from './table.js';

/** What a head of written rows records. */
export interface RowsHead {
  shard: string;
  seq: number;
  /** Items the payload takes in DynamoDB (the head and its chunks); 0 when spilled. */
  parts: number;
  rowCount: number;
  /** Uncompressed payload bytes (what the buffer was charged). */
  bytes: number;
  nowMs: number;
  expiresAt: AttributeValue;
  /** The put that wrote it (`WriteBatchInput.putId`). */
  putId: string;
  /** The payload: inline (the first chunk) or spilled to S3. */
  payload: { data: Uint8Array } | { spilled: SpillRef };
  allocatedAtMs?: number | undefined;
  chargeEnd?: number | undefined;
  idempotencyKey?: string | undefined;
}

/** The head item of a batch of rows. */
export function rowsHeadItem(head: RowsHead): Item {
  const item: Item = {
    pk: { S: shardPk(head.shard) },
    sk: { S: batchSk(head.seq) },
    kind: { S: 'rows' },
    parts: { N: String(head.parts) },
    rowCount: { N: String(head.rowCount) },
    bytes: { N: String(head.bytes) },
    createdAtMs: { N: String(head.nowMs) },
    enc: { S: BATCH_ENCODING },
    expiresAt: head.expiresAt,
    putId: { S: head.putId },
  };
  if ('spilled' in head.payload) {
    item.spillKey = { S: head.payload.spilled.key };
    item.spillBytes = { N: String(head.payload.spilled.bytes) };
    item.spillSha = { S: head.payload.spilled.sha256 };
  } else {
    item.data = { B: head.payload.data };
  }
  if (head.allocatedAtMs !== undefined) item.allocAtMs = { N: String(head.allocatedAtMs) };
  if (head.chargeEnd !== undefined) item.chargeEnd = { N: String(head.chargeEnd) };
  if (head.idempotencyKey) item.idemKey = { S: head.idempotencyKey };
  return item;
}

/** Continuation chunk `part` (1-based) of batch `seq`. */
export function chunkItem(chunk: {
  shard: string;
  seq: number;
  part: number;
  data: Uint8Array;
  expiresAt: AttributeValue;
}): Item {
  return {
    pk: { S: shardPk(chunk.shard) },
    sk: { S: batchPartSk(chunk.seq, chunk.part) },
    data: { B: chunk.data },
    expiresAt: chunk.expiresAt,
  };
}

/**
 * The void head sealing `seq`; a put sealing its own seq records its charge
 * (A2 in `allocate.ts`), a rebuild sealing a seq S3 already holds (a
 * reissued seq, rule 3 in `lib/recovery/reconcile-batches.ts`) says so.
 */
export function voidItem(seal: {
  shard: string;
  seq: number;
  nowMs: number;
  expiresAt: AttributeValue;
  chargeEnd?: number | undefined;
  reissued?: boolean | undefined;
}): Item {
  const item: Item = {
    pk: { S: shardPk(seal.shard) },
    sk: { S: batchSk(seal.seq) },
    kind: { S: 'void' },
    createdAtMs: { N: String(seal.nowMs) },
    expiresAt: seal.expiresAt,
  };
  if (seal.chargeEnd !== undefined) item.chargeEnd = { N: String(seal.chargeEnd) };
  if (seal.reissued) item.reissued = { BOOL: true };
  return item;
}

/** Primary key of batch item `sk` (a head or a chunk) of `shard`. */
export function batchItemKey(shard: string, sk: string): Item {
  return { pk: { S: shardPk(shard) }, sk: { S: sk } };
}

/** What a batch head records, whatever its kind (absent numbers read as 0). */
export interface HeadFields {
  kind: 'rows' | 'void';
  rowCount: number;
  bytes: number;
  createdAtMs: number;
  idempotencyKey: string | undefined;
  putId: string | undefined;
  /** Cumulative charge through this batch's allocation (A2 in `allocate.ts`), when recorded. */
  chargeEnd: number | undefined;
  /** When its put allocated the seq, when recorded (L5 in `lib/liveness.ts`). */
  allocatedAtMs: number | undefined;
  /** The payload's encoding (undefined: the first version's JSON array). */
  encoding: string | undefined;
  /** A void a rebuild sealed at a seq S3 already holds (`voidItem`). */
  reissued: boolean;
}

/** Reads the fields of head item `head` (as projected: what was not read is absent). */
export function headFields(head: Item): HeadFields {
  return {
    kind: str(head, 'kind') === 'void' ? 'void' : 'rows',
    rowCount: num(head, 'rowCount', 0),
    bytes: num(head, 'bytes', 0),
    createdAtMs: num(head, 'createdAtMs', 0),
    idempotencyKey: str(head, 'idemKey'),
    putId: str(head, 'putId'),
    chargeEnd: head.chargeEnd?.N === undefined ? undefined : Number(head.chargeEnd.N),
    allocatedAtMs: head.allocAtMs?.N === undefined ? undefined : Number(head.allocAtMs.N),
    encoding: str(head, 'enc'),
    reissued: head.reissued?.BOOL === true,
  };
}

/** Payload items a head says it has: 1 when spilled, else its `parts` (the head and its chunks). */
export function payloadParts(head: Item): number {
  return spillRefOf(head) ? 1 : num(head, 'parts', 1);
}

/** The spill reference a head records, if its payload was spilled. */
export function spillRefOf(head: Item): SpillRef | undefined {
  const key = str(head, 'spillKey');
  if (key === undefined) return undefined;
  return { key, bytes: num(head, 'spillBytes', 0), sha256: str(head, 'spillSha') ?? '' };
}
