/**
 * Units of the read commands shardwal sends (GetItem, Query, Scan). A
 * projection or filter never lowers what a read is billed, so when one is
 * present the meter re-reads what the request evaluated, uncounted.
 */
import type {
  GetItemCommand,
  GetItemCommandInput,
  GetItemCommandOutput,
  QueryCommand,
  QueryCommandInput,
  QueryCommandOutput,
  ScanCommand,
} from '@aws-sdk/client-dynamodb';
import { getItemReadUnits, queryReadUnits, ReadConsistency } from './dynamodb-units.js';
import { itemSize } from './item-size.js';
import type { MeterContext } from './meter-writes.js';
import { evaluatedItems, sideGetItem } from './side-reads.js';

/** Sends a GetItem and records its units (by the whole item, whatever the projection). */
export async function meterGetItem(ctx: MeterContext, command: GetItemCommand): Promise<unknown> {
  const input = command.input as GetItemCommandInput;
  const out = (await ctx.inner.send(command)) as GetItemCommandOutput;
  const projected = input.ProjectionExpression !== undefined || input.AttributesToGet !== undefined;
  const item = projected ? await sideGetItem(ctx.inner, input.TableName!, input.Key!) : out.Item;
  const consistency = input.ConsistentRead ? ReadConsistency.strong : ReadConsistency.eventual;
  ctx.record('GetItem', {
    requests: 1,
    readUnits: getItemReadUnits(item ? itemSize(item) : undefined, consistency),
  });
  return out;
}

/**
 * Sends a Query or Scan page and records its units by the items it evaluated.
 * Queries of a global secondary index are eventually consistent (GSI.md
 * "Read capacity units") and are billed by the index entries' sizes, which
 * is what reading the index returns.
 */
export async function meterQueryOrScan(
  ctx: MeterContext,
  command: QueryCommand | ScanCommand,
  operation: 'Query' | 'Scan',
): Promise<unknown> {
  const input = command.input as QueryCommandInput;
  const out = (await ctx.inner.send(command)) as QueryCommandOutput;
  const reduced =
    input.ProjectionExpression !== undefined ||
    input.FilterExpression !== undefined ||
    (input.Select !== undefined &&
      input.Select !== 'ALL_ATTRIBUTES' &&
      input.Select !== 'ALL_PROJECTED_ATTRIBUTES');
  let items = out.Items ?? [];
  if (reduced) {
    const side = await evaluatedItems(ctx.inner, command, out.ScannedCount ?? items.length);
    if (!side.matched) ctx.mismatch();
    items = side.items;
  }
  const consistency =
    input.ConsistentRead && input.IndexName === undefined
      ? ReadConsistency.strong
      : ReadConsistency.eventual;
  ctx.record(operation, {
    requests: 1,
    readUnits: queryReadUnits(items.map(itemSize), consistency),
  });
  return out;
}
