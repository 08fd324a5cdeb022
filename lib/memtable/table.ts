/**
 * The DynamoDB adapter's core: a table handle and the one place where SDK
 * exceptions become shardwal errors. Every memtable and fence module sends
 * through `send`, so no SDK exception reaches the rest of `lib/`.
 *
 * Item layout (one table):
 *   pk = shard#<shard>  sk = meta                      the shard record
 *   pk = shard#<shard>  sk = batch#<seq>               a batch head (rows or void)
 *   pk = shard#<shard>  sk = batch#<seq>#<part>        a batch continuation chunk
 *   pk = idem#<shard>#<key>  sk = idem                 an idempotency record
 * Batch heads, chunks and voids carry the TTL attribute `expiresAt` (epoch
 * seconds) from the moment they are written: nothing deletes them (L5).
 * The sparse GSI `pending` (pendingPk, pendingShard) holds only shard records
 * with pending data.
 */
import {
  type AttributeValue,
  type DynamoDBClient,
  GetItemCommand,
  QueryCommand,
} from '@aws-sdk/client-dynamodb';
import { validateSettings } from '../config.js';
import { InternalError, UnavailableError } from '../errors.js';
import { type ItemLifetimes, itemLifetimes } from '../liveness.js';
import { padPosition } from '../paths.js';
import type { PayloadSpill } from './spill.js';

/** A handle on the shardwal table. */
export interface Table {
  client: DynamoDBClient;
  tableName: string;
  /** How long batch items and voids live (L4, L5 in `lib/liveness.ts`); the defaults' when absent. */
  lifetimes?: ItemLifetimes;
  /** Where large payloads spill (`spill.ts`); absent: every batch is written whole to DynamoDB. */
  spill?: PayloadSpill;
}

let defaultLifetimes: ItemLifetimes | undefined;

/** The item lifetimes of `table`. */
export function lifetimesOf(table: Table): ItemLifetimes {
  if (table.lifetimes) return table.lifetimes;
  defaultLifetimes ??= itemLifetimes(validateSettings({}));
  return defaultLifetimes;
}

/** The TTL attribute of an item that expires `lifetimeMs` after `nowMs` (epoch seconds). */
export function expiresAt(nowMs: number, lifetimeMs: number): AttributeValue {
  return { N: String(Math.ceil((nowMs + lifetimeMs) / 1000)) };
}

/** Name of the sparse pending-shards index. */
export const PENDING_INDEX = 'pending';
/** The single partition value of the pending index. */
export const PENDING_PK = 'pending';
/** Sort key of the shard record. */
export const META_SK = 'meta';

/** Partition key of a shard's record and batches. */
export function shardPk(shard: string): string {
  return `shard#${shard}`;
}

/** Primary key of a shard's record. */
export function shardRecordKey(shard: string): Item {
  return { pk: { S: shardPk(shard) }, sk: { S: META_SK } };
}

/** Sort-key prefix of every batch item: the zero-padded seq follows (and `#part` on a chunk). */
const BATCH_SK_PREFIX = 'batch#';

/** Sort key of the head item of batch `seq`. */
export function batchSk(seq: number): string {
  return `${BATCH_SK_PREFIX}${padPosition(seq)}`;
}

/** True for the sort key of a batch item, head or chunk (`batchSk`, `batchPartSk`). */
export function isBatchSk(sk: string): boolean {
  return sk.startsWith(BATCH_SK_PREFIX);
}

/** The seq of a batch head's sort key (`batchSk`). */
export function seqOfBatchSk(sk: string): number {
  return Number(sk.slice(BATCH_SK_PREFIX.length));
}

/** Sort key of continuation chunk `part` (1-based) of batch `seq`. */
export function batchPartSk(seq: number, part: number): string {
  return `${batchSk(seq)}#${String(part).padStart(4, '0')}`;
}

/** Marker a caller gets back when a condition failed (the expected race outcome). */
export const CONDITION_FAILED = Symbol('condition-failed');

const RETRYABLE = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'InternalServerError',
  'ServiceUnavailable',
  'LimitExceededException',
  'TransactionConflictException',
]);

interface SdkLikeError {
  name?: string;
  message?: string;
  $metadata?: { httpStatusCode?: number };
}

/**
 * Sends a command; a failed condition resolves to `CONDITION_FAILED`, and
 * every other SDK error becomes `UnavailableError` (retryable) or
 * `InternalError` (a request shardwal built wrong).
 */
export async function send<T>(
  table: Table,
  // biome-ignore lint/suspicious/noExplicitAny: the SDK's command generics are not worth restating here
  command: any,
  what: string,
): Promise<T | typeof CONDITION_FAILED> {
  try {
    return (await table.client.send(command)) as T;
  } catch (error) {
    const e = error as SdkLikeError;
    if (e.name === 'ConditionalCheckFailedException') return CONDITION_FAILED;
    const status = e.$metadata?.httpStatusCode ?? 0;
    if (RETRYABLE.has(e.name ?? '') || status >= 500 || status === 0) {
      throw new UnavailableError(`DynamoDB ${what} failed: ${e.name}: ${e.message}`, {
        cause: error,
      });
    }
    throw new InternalError(`DynamoDB ${what} rejected: ${e.name}: ${e.message}`, { cause: error });
  }
}

/** Like `send` for commands without a condition: a condition failure is a bug. */
export async function sendUnconditional<T>(
  table: Table,
  // biome-ignore lint/suspicious/noExplicitAny: see send
  command: any,
  what: string,
): Promise<T> {
  const result = await send<T>(table, command, what);
  if (result === CONDITION_FAILED) {
    throw new InternalError(`DynamoDB ${what}: unexpected condition failure`);
  }
  return result;
}

/** A raw DynamoDB item. */
export type Item = Record<string, AttributeValue>;

/**
 * Reads the item at `key`, strongly consistent (only `projection`'s
 * attributes when given); `Item` is absent when there is none.
 */
export function getItem(
  table: Table,
  key: Item,
  what: string,
  projection?: string,
): Promise<{ Item?: Item }> {
  // The request's own promise: an async wrapper adds a microtask hop, which reorders
  // concurrent requests in the deterministic simulation.
  return sendUnconditional<{ Item?: Item }>(
    table,
    new GetItemCommand({
      TableName: table.tableName,
      Key: key,
      ConsistentRead: true,
      ProjectionExpression: projection,
    }),
    what,
  );
}

/**
 * Yields every item of a paginated Query or Scan. `command(startKey)` builds
 * each page's request; a consumer that stops early sends no further page.
 */
export async function* paginate(
  table: Table,
  // biome-ignore lint/suspicious/noExplicitAny: see send
  command: (exclusiveStartKey: Item | undefined) => any,
  what: string,
): AsyncGenerator<Item, void, undefined> {
  let startKey: Item | undefined;
  do {
    const out = await sendUnconditional<{ Items?: Item[]; LastEvaluatedKey?: Item }>(
      table,
      command(startKey),
      what,
    );
    yield* out.Items ?? [];
    startKey = out.LastEvaluatedKey;
  } while (startKey);
}

/**
 * The shard names a sparse index lists under one partition key (the registry,
 * the pending index): `index.partition` = `index.pk`, each item's shard name
 * in `index.shard`, ascending by the index's sort key.
 */
export async function listIndexShards(
  table: Table,
  index: { name: string; partition: string; pk: string; shard: string },
  what: string,
): Promise<string[]> {
  const shards: string[] = [];
  for await (const item of paginate(
    table,
    (startKey) =>
      new QueryCommand({
        TableName: table.tableName,
        IndexName: index.name,
        KeyConditionExpression: `${index.partition} = :p`,
        ExpressionAttributeValues: { ':p': { S: index.pk } },
        ExclusiveStartKey: startKey,
      }),
    what,
  )) {
    const shard = item[index.shard]?.S;
    if (shard) shards.push(shard);
  }
  return shards;
}

/** Items of a shard's partition with sort keys in [lo, hi], ascending, read strongly consistent. */
export function queryShardItems(
  table: Table,
  shard: string,
  range: { lo: string; hi: string },
  what: string,
  projection?: string,
): AsyncGenerator<Item, void, undefined> {
  return paginate(
    table,
    (startKey) =>
      new QueryCommand({
        TableName: table.tableName,
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :lo AND :hi',
        ProjectionExpression: projection,
        ExpressionAttributeValues: {
          ':pk': { S: shardPk(shard) },
          ':lo': { S: range.lo },
          ':hi': { S: range.hi },
        },
        ConsistentRead: true,
        ExclusiveStartKey: startKey,
      }),
    what,
  );
}

/** Sort-key range of batches `fromSeq`..`toSeq`, heads and chunks. */
export function batchRange(fromSeq: number, toSeq: number): { lo: string; hi: string } {
  return { lo: batchSk(fromSeq), hi: `${batchSk(toSeq)}#~` };
}

/** Sort-key range of every batch from `fromSeq` up, heads and chunks (`~` sorts after digits and `#`). */
export function batchesFrom(fromSeq: number): { lo: string; hi: string } {
  return { lo: batchSk(fromSeq), hi: `${BATCH_SK_PREFIX}~` };
}

/** True for a batch continuation chunk's sort key (longer than a head's). */
export function isBatchChunk(sk: string): boolean {
  return sk.length > batchSk(0).length;
}
