/**
 * Idempotency records: `Idempotency-Key` (HTTP) or message id / attribute
 * (SQS) → a fingerprint of the request, the owner of the reservation and the
 * seq its put allocated, for the idempotency window (DynamoDB TTL on
 * `expiresAt`, and an explicit check on `expiresAtMs` because TTL deletion is
 * lazy and the local emulator has none). The original ack is not written
 * here: the batch at the recorded seq carries it (K6), so an idempotent put
 * costs three requests (allocate, reserve, write), not five.
 *
 * Invariants kept here (the put path, `lib/put/put-rows.ts`, drives them):
 * K1. A reservation is created already naming its seq: the put allocates
 *     first, so a reservation always says where its batch goes. A crash at
 *     any later step leaves the evidence a retry needs.
 * K2. Only the owner releases its reservation (conditional on `owner`); a
 *     put that lost its reservation to a takeover changes nothing. Nobody
 *     completes one any more: a reservation whose batch landed is complete
 *     by K6. (Records completed by earlier versions, state `done` with the
 *     ack, are still read and answered until their window ends.)
 * K3. A reservation is taken over only once its lease has expired (L3 in
 *     `lib/liveness.ts`: its put can no longer write), and the taker settles
 *     the recorded seq first (`lib/put/settle-seq.ts`): a batch there means
 *     "answer its ack", an empty seq is sealed void before anything new is
 *     buffered.
 * K4. A key is released only when its batch provably did not land.
 * K5. Every decision compares fingerprints: a key reused with another payload
 *     is refused, never answered with the other payload's ack.
 * K6. The batch carries the ack: the owner's batch item at the recorded seq
 *     (its put id is the reservation's `owner`, its `rowCount` the rows)
 *     means the put succeeded with the ack `{shard, seq, rows}`. A repeat
 *     reads the reservation, then the batch head at its seq
 *     (`lib/put/claim-key.ts`); once the batch expired, a seq at or below
 *     `durableSeq` reads as landed (L4, L5 in `lib/liveness.ts`: batches
 *     outlive the window).
 */
import {
  type AttributeValue,
  DeleteItemCommand,
  PutItemCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { num, str } from './shard-record.js';
import { CONDITION_FAILED, getItem, send, type Table } from './table.js';

/** The ack a put returns; stored so a repeat returns it unchanged. */
export interface PutAck {
  shard: string;
  seq: number;
  rows: number;
  durable: boolean;
}

/** An idempotency record as the put path reads it. */
export type IdempotencyRecord =
  | { state: 'done'; fingerprint: string; ack: PutAck }
  | {
      state: 'pending';
      fingerprint: string;
      owner: string;
      seq: number;
      rows: number;
      leaseExpiresAtMs: number;
      /** The end of the key's window (L4 in `lib/liveness.ts`: voids outlive it). */
      expiresAtMs: number;
    };

/** A new reservation: who owns it and what its put allocated. */
export interface ReservationInput {
  shard: string;
  key: string;
  owner: string;
  fingerprint: string;
  seq: number;
  rows: number;
  nowMs: number;
  leaseMs: number;
  ttlMs: number;
}

function idemKey(shard: string, key: string) {
  return { pk: { S: `idem#${shard}#${key}` }, sk: { S: 'idem' } };
}

function pendingAttributes(input: ReservationInput): Record<string, AttributeValue> {
  const expiresAtMs = input.nowMs + input.ttlMs;
  return {
    state: { S: 'pending' },
    owner: { S: input.owner },
    fp: { S: input.fingerprint },
    seq: { N: String(input.seq) },
    rows: { N: String(input.rows) },
    leaseExpiresAtMs: { N: String(input.nowMs + input.leaseMs) },
    expiresAtMs: { N: String(expiresAtMs) },
    expiresAt: { N: String(Math.ceil(expiresAtMs / 1000)) },
  };
}

/**
 * Creates a reservation unless a live record holds the key (K1). True when
 * created; false when the key is taken (read it with `readIdempotencyRecord`).
 */
export async function createReservation(table: Table, input: ReservationInput): Promise<boolean> {
  const out = await send(
    table,
    new PutItemCommand({
      TableName: table.tableName,
      Item: { ...idemKey(input.shard, input.key), ...pendingAttributes(input) },
      ConditionExpression: 'attribute_not_exists(pk) OR expiresAtMs < :now',
      ExpressionAttributeValues: { ':now': { N: String(input.nowMs) } },
    }),
    'PutItem idempotency reservation',
  );
  return out !== CONDITION_FAILED;
}

/** The live record of `key`, or undefined when there is none (or it is past its window). */
export async function readIdempotencyRecord(
  table: Table,
  shard: string,
  key: string,
  nowMs: number,
): Promise<IdempotencyRecord | undefined> {
  const { Item: item } = await getItem(table, idemKey(shard, key), 'GetItem idempotency record');
  if (!item || num(item, 'expiresAtMs', 0) < nowMs) return undefined;
  const fingerprint = str(item, 'fp') ?? '';
  const ack = str(item, 'ack');
  if (str(item, 'state') === 'done' && ack) {
    return { state: 'done', fingerprint, ack: JSON.parse(ack) as PutAck };
  }
  return {
    state: 'pending',
    fingerprint,
    owner: str(item, 'owner') ?? '',
    seq: num(item, 'seq', 0),
    rows: num(item, 'rows', 0),
    leaseExpiresAtMs: num(item, 'leaseExpiresAtMs', 0),
    expiresAtMs: num(item, 'expiresAtMs', 0),
  };
}

/**
 * The expressions of a takeover (K3): set every one of `attributes`, on
 * condition that the record is `previousOwner`'s pending reservation whose
 * lease ran out before `nowMs`. (The emulator's differential test sends
 * these too.)
 */
export function takeoverUpdate(
  attributes: Record<string, AttributeValue>,
  previousOwner: string,
  nowMs: number,
) {
  const names = Object.keys(attributes);
  return {
    UpdateExpression: `SET ${names.map((name) => `#${name} = :${name}`).join(', ')}`,
    ConditionExpression:
      '#owner = :previous AND #state = :pendingState AND #leaseExpiresAtMs < :now',
    ExpressionAttributeNames: Object.fromEntries(names.map((name) => [`#${name}`, name])),
    ExpressionAttributeValues: {
      ...Object.fromEntries(names.map((name) => [`:${name}`, attributes[name]!])),
      ':previous': { S: previousOwner },
      ':pendingState': { S: 'pending' },
      ':now': { N: String(nowMs) },
    },
  };
}

/**
 * Takes over a pending reservation whose lease expired (K3), re-pointing it at
 * the taker's seq. False when it was not `previousOwner`'s expired
 * reservation any more (another taker won, or it completed).
 */
export async function takeOverReservation(
  table: Table,
  previousOwner: string,
  input: ReservationInput,
): Promise<boolean> {
  const out = await send(
    table,
    new UpdateItemCommand({
      TableName: table.tableName,
      Key: idemKey(input.shard, input.key),
      ...takeoverUpdate(pendingAttributes(input), previousOwner, input.nowMs),
    }),
    'UpdateItem idempotency takeover',
  );
  return out !== CONDITION_FAILED;
}

/** Releases `owner`'s reservation, whose batch provably did not land (K2, K4). */
export async function releaseReservation(
  table: Table,
  shard: string,
  key: string,
  owner: string,
): Promise<boolean> {
  const out = await send(
    table,
    new DeleteItemCommand({
      TableName: table.tableName,
      Key: idemKey(shard, key),
      ConditionExpression: '#state = :pendingState AND #owner = :owner',
      ExpressionAttributeNames: { '#state': 'state', '#owner': 'owner' },
      ExpressionAttributeValues: { ':pendingState': { S: 'pending' }, ':owner': { S: owner } },
    }),
    'DeleteItem idempotency reservation',
  );
  return out !== CONDITION_FAILED;
}
