/**
 * Reads the meter makes for itself, through the inner client and never
 * counted: the item a write replaces (and, for an update, what it became),
 * the full item behind a projected GetItem, and the items a Query or Scan
 * evaluated before its filter and projection dropped some of them. They are
 * separate requests, so a concurrent writer can slip between them and the
 * caller's request; `evaluatedItems` reports the mismatch it can detect.
 */
import {
  GetItemCommand,
  type GetItemCommandOutput,
  QueryCommand,
  type QueryCommandInput,
  ScanCommand,
  type ScanCommandInput,
} from '@aws-sdk/client-dynamodb';
import { InternalError } from '../../../lib/errors.js';
import type { Item } from './item-size.js';
import type { CommandSender } from './table-schema.js';

/** The primary key of `item`. */
export function keyOf(item: Item, keyNames: readonly string[]): Item {
  const key: Item = {};
  for (const name of keyNames) {
    const value = item[name];
    if (value === undefined) throw new InternalError(`item has no key attribute ${name}`);
    key[name] = value;
  }
  return key;
}

/** The whole item at `key` (strongly consistent), or undefined. */
export async function sideGetItem(
  client: CommandSender,
  tableName: string,
  key: Item,
): Promise<Item | undefined> {
  const out = (await client.send(
    new GetItemCommand({ TableName: tableName, Key: key, ConsistentRead: true }),
  )) as GetItemCommandOutput;
  return out.Item;
}

/** The evaluated items of a Query or Scan page, and whether their count matched. */
export interface EvaluatedItems {
  items: Item[];
  /** False when the side read found a different number of items than the page scanned. */
  matched: boolean;
}

/**
 * The items a Query or Scan page evaluated: the same request from the same
 * start key, limited to the page's ScannedCount, with the filter, projection
 * and Select removed (and the expression names and values only they used).
 */
export async function evaluatedItems(
  client: CommandSender,
  command: QueryCommand | ScanCommand,
  scannedCount: number,
): Promise<EvaluatedItems> {
  if (scannedCount === 0) return { items: [], matched: true };
  const input = { ...command.input } as QueryCommandInput & ScanCommandInput;
  if (input.QueryFilter || input.ScanFilter || input.KeyConditions || input.AttributesToGet) {
    throw new InternalError('metered Query/Scan: legacy conditional parameters are not metered');
  }
  delete input.ProjectionExpression;
  delete input.FilterExpression;
  delete input.Select;
  delete input.ReturnConsumedCapacity;
  input.Limit = scannedCount;
  const used = placeholders(input.KeyConditionExpression ?? '');
  input.ExpressionAttributeNames = pick(input.ExpressionAttributeNames, used);
  input.ExpressionAttributeValues = pick(input.ExpressionAttributeValues, used);
  const side = command instanceof QueryCommand ? new QueryCommand(input) : new ScanCommand(input);
  const out = (await client.send(side)) as { Items?: Item[] };
  const items = out.Items ?? [];
  return { items, matched: items.length === scannedCount };
}

function placeholders(expression: string): Set<string> {
  return new Set(expression.match(/[#:][A-Za-z0-9_]+/g) ?? []);
}

function pick<T>(
  map: Record<string, T> | undefined,
  keep: Set<string>,
): Record<string, T> | undefined {
  if (!map) return undefined;
  const kept = Object.entries(map).filter(([name]) => keep.has(name));
  return kept.length > 0 ? Object.fromEntries(kept) : undefined;
}
