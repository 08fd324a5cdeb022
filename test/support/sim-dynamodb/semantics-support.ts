/**
 * Shared set-up of the semantics tests: a MemoryDynamoDB holding shardwal's
 * table layout (with its sparse KEYS_ONLY index), and small request helpers.
 */
import { type AttributeValue, GetItemCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { ensureTable } from '../../../lib/memtable/create-table.js';
import { MemoryDynamoDB, type MemoryDynamoDBOptions } from './memory-dynamodb.js';

/** The table every semantics test uses. */
export const TABLE = 'semantics';
/** The key of item `sk` of partition `p`. */
export const key = (sk: string) => ({ pk: { S: 'p' }, sk: { S: sk } });

/** A MemoryDynamoDB holding shardwal's table layout (with the sparse KEYS_ONLY index). */
export async function memoryTable(options: MemoryDynamoDBOptions = {}): Promise<MemoryDynamoDB> {
  const db = new MemoryDynamoDB(options);
  await ensureTable({ client: db as never, tableName: TABLE });
  return db;
}

/** Reads item `sk`, strongly consistent. */
export async function get(
  db: MemoryDynamoDB,
  sk: string,
): Promise<Record<string, AttributeValue> | undefined> {
  return (
    await db.send(new GetItemCommand({ TableName: TABLE, Key: key(sk), ConsistentRead: true }))
  ).Item;
}

/** An UpdateItem of item `sk` returning ALL_NEW (overridable through `extra`). */
export function update(
  sk: string,
  expression: string,
  values?: Record<string, AttributeValue>,
  extra = {},
) {
  return new UpdateItemCommand({
    TableName: TABLE,
    Key: key(sk),
    UpdateExpression: expression,
    ExpressionAttributeValues: values,
    ReturnValues: 'ALL_NEW',
    ...extra,
  });
}

/** The name, message and status of the error `promise` rejects with. */
export async function errorOf(
  promise: Promise<unknown>,
): Promise<{ name: string; message: string; status?: number }> {
  try {
    await promise;
  } catch (error) {
    const e = error as { name: string; message: string; $metadata?: { httpStatusCode?: number } };
    return { name: e.name, message: e.message, status: e.$metadata?.httpStatusCode };
  }
  throw new Error('expected the request to fail');
}
