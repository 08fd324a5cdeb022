/**
 * Idempotency records: `Idempotency-Key` (HTTP) or message id (SQS) → the
 * original ack, for a bounded window (DynamoDB TTL on `expiresAt`, and an
 * explicit expiry check because TTL deletion is lazy and the local emulator
 * has none).
 *
 * A put first reserves its key (create-if-absent or expired); a concurrent
 * repeat sees the reservation and is told to retry rather than buffering the
 * rows a second time. The reservation turns into the ack once the batch is
 * written, and is released when the put fails before buffering anything.
 */
import {
  type AttributeValue,
  DeleteItemCommand,
  GetItemCommand,
  PutItemCommand,
} from '@aws-sdk/client-dynamodb';
import { CONDITION_FAILED, send, sendUnconditional, type Table } from './table.js';

/** The ack a put returns; stored so a repeat returns it unchanged. */
export interface PutAck {
  shard: string;
  seq: number;
  rows: number;
  durable: boolean;
}

/** What a reservation attempt found. */
export type Reservation =
  | { state: 'reserved' }
  | { state: 'done'; ack: PutAck }
  | { state: 'in-progress' };

function idemKey(shard: string, key: string) {
  return { pk: { S: `idem#${shard}#${key}` }, sk: { S: 'idem' } };
}

/** Reserves `key` for a put lasting at most `leaseMs`; finds the earlier ack if any. */
export async function reserveIdempotencyKey(
  table: Table,
  shard: string,
  key: string,
  nowMs: number,
  leaseMs: number,
): Promise<Reservation> {
  const out = await send(
    table,
    new PutItemCommand({
      TableName: table.tableName,
      Item: {
        ...idemKey(shard, key),
        state: { S: 'pending' },
        expiresAtMs: { N: String(nowMs + leaseMs) },
        expiresAt: { N: String(Math.ceil((nowMs + leaseMs) / 1000)) },
      },
      ConditionExpression: 'attribute_not_exists(pk) OR expiresAtMs < :now',
      ExpressionAttributeValues: { ':now': { N: String(nowMs) } },
    }),
    'PutItem idempotency reservation',
  );
  if (out !== CONDITION_FAILED) return { state: 'reserved' };
  const found = await sendUnconditional<{ Item?: Record<string, AttributeValue> }>(
    table,
    new GetItemCommand({
      TableName: table.tableName,
      Key: idemKey(shard, key),
      ConsistentRead: true,
    }),
    'GetItem idempotency record',
  );
  const ack = found.Item?.ack?.S;
  if (found.Item?.state?.S === 'done' && ack)
    return { state: 'done', ack: JSON.parse(ack) as PutAck };
  return { state: 'in-progress' };
}

/** Records the ack of a completed put for `ttlMs`. */
export async function completeIdempotencyKey(
  table: Table,
  key: string,
  ack: PutAck,
  nowMs: number,
  ttlMs: number,
): Promise<void> {
  await sendUnconditional(
    table,
    new PutItemCommand({
      TableName: table.tableName,
      Item: {
        ...idemKey(ack.shard, key),
        state: { S: 'done' },
        ack: { S: JSON.stringify(ack) },
        expiresAtMs: { N: String(nowMs + ttlMs) },
        expiresAt: { N: String(Math.ceil((nowMs + ttlMs) / 1000)) },
      },
    }),
    'PutItem idempotency ack',
  );
}

/** Releases a reservation whose put buffered nothing, so the caller may retry. */
export async function releaseIdempotencyKey(
  table: Table,
  shard: string,
  key: string,
): Promise<void> {
  await send(
    table,
    new DeleteItemCommand({
      TableName: table.tableName,
      Key: idemKey(shard, key),
      ConditionExpression: '#state = :pending',
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: { ':pending': { S: 'pending' } },
    }),
    'DeleteItem idempotency reservation',
  );
}
