/**
 * Seeded random idempotency-record commands, as `lib/memtable/idempotency.ts`
 * sends them (as of this writing; the takeover's expressions are its own,
 * `takeoverUpdate`): reservation, read, takeover, completion, release, over a
 * few keys and owners so they collide.
 */
import * as ddb from '@aws-sdk/client-dynamodb';
import { takeoverUpdate } from '../../../lib/memtable/idempotency.js';
import type { GeneratedCommand } from './shardwal-commands.js';

const N = (n: number): ddb.AttributeValue => ({ N: String(n) });
const S = (s: string): ddb.AttributeValue => ({ S: s });

/** Generators of idempotency-record commands for `tableName`. */
export function idempotencyCommands(
  tableName: string,
  random: () => number,
): (() => GeneratedCommand)[] {
  const int = (n: number) => Math.floor(random() * n);
  const key = () => ({ pk: { S: `idem#s1#k${int(3)}` }, sk: { S: 'idem' } });
  const now = () => 1_000 + int(40) * 25;
  const owner = () => `o${int(3)}`;
  const pendingAttributes = (nowMs: number): Record<string, ddb.AttributeValue> => ({
    state: S('pending'),
    owner: S(owner()),
    fp: S(`f${int(2)}`),
    seq: N(1 + int(6)),
    rows: N(1 + int(4)),
    leaseExpiresAtMs: N(nowMs + 200),
    expiresAtMs: N(nowMs + 600),
    expiresAt: N(Math.ceil((nowMs + 600) / 1000)),
  });
  return [
    () => {
      const nowMs = now();
      return {
        kind: 'single',
        label: 'create reservation',
        command: new ddb.PutItemCommand({
          TableName: tableName,
          Item: { ...key(), ...pendingAttributes(nowMs) },
          ConditionExpression: 'attribute_not_exists(pk) OR expiresAtMs < :now',
          ExpressionAttributeValues: { ':now': N(nowMs) },
        }),
      };
    },
    () => ({
      kind: 'single',
      label: 'read idempotency record',
      command: new ddb.GetItemCommand({ TableName: tableName, Key: key(), ConsistentRead: true }),
    }),
    () => {
      const nowMs = now();
      return {
        kind: 'single',
        label: 'take over reservation',
        command: new ddb.UpdateItemCommand({
          TableName: tableName,
          Key: key(),
          ...takeoverUpdate(pendingAttributes(nowMs), owner(), nowMs),
        }),
      };
    },
    () => {
      const nowMs = now();
      const values: Record<string, ddb.AttributeValue> = {
        ':done': S('done'),
        ':ack': S(JSON.stringify({ shard: 's1', seq: 1 + int(6), rows: 1, durable: false })),
        ':expiresAtMs': N(nowMs + 600),
        ':expiresAt': N(Math.ceil((nowMs + 600) / 1000)),
        ':pendingState': S('pending'),
        ':owner': S(owner()),
      };
      let condition = '#state = :pendingState AND #owner = :owner';
      if (random() < 0.4) {
        values[':now'] = N(nowMs);
        condition += ' AND leaseExpiresAtMs < :now';
      }
      return {
        kind: 'single',
        label: 'complete reservation',
        command: new ddb.UpdateItemCommand({
          TableName: tableName,
          Key: key(),
          UpdateExpression:
            'SET #state = :done, ack = :ack, expiresAtMs = :expiresAtMs, expiresAt = :expiresAt REMOVE leaseExpiresAtMs',
          ConditionExpression: condition,
          ExpressionAttributeNames: { '#state': 'state', '#owner': 'owner' },
          ExpressionAttributeValues: values,
          ReturnValues: random() < 0.5 ? 'ALL_OLD' : 'NONE',
        }),
      };
    },
    () => ({
      kind: 'single',
      label: 'release reservation',
      command: new ddb.DeleteItemCommand({
        TableName: tableName,
        Key: key(),
        ConditionExpression: '#state = :pendingState AND #owner = :owner',
        ExpressionAttributeNames: { '#state': 'state', '#owner': 'owner' },
        ExpressionAttributeValues: { ':pendingState': S('pending'), ':owner': S(owner()) },
        ReturnValues: random() < 0.5 ? 'ALL_OLD' : 'NONE',
      }),
    }),
  ];
}
