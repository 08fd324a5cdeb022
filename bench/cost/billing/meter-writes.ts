/**
 * Units of the write commands shardwal sends (PutItem, UpdateItem,
 * DeleteItem, BatchWriteItem), by the rules of `dynamodb-units.ts` and
 * `index-units.ts`. Each needs the item as it was before the write: a side
 * read through the inner client, uncounted, just before the write is sent.
 */
import type {
  BatchWriteItemCommand,
  BatchWriteItemCommandInput,
  BatchWriteItemCommandOutput,
  DeleteItemCommand,
  DeleteItemCommandInput,
  PutItemCommand,
  PutItemCommandInput,
  UpdateItemCommand,
  UpdateItemCommandInput,
  UpdateItemCommandOutput,
} from '@aws-sdk/client-dynamodb';
import {
  deleteItemWriteUnits,
  failedConditionalWriteUnits,
  putItemWriteUnits,
  updateItemWriteUnits,
} from './dynamodb-units.js';
import { canonical, indexWriteUnits, type TableSchema } from './index-units.js';
import { type Item, itemSize } from './item-size.js';
import type { MeterCounters } from './meter-ledger.js';
import { keyOf, sideGetItem } from './side-reads.js';
import type { CommandSender } from './table-schema.js';

/** What a metering function needs from the meter. */
export interface MeterContext {
  inner: CommandSender;
  schema(tableName: string): Promise<TableSchema>;
  record(operation: string, counters: Partial<MeterCounters>): void;
  /** Notes a side read that could not see what the caller's request saw. */
  mismatch(): void;
}

/**
 * Meters one single-item write: reads the item as it is before the write
 * (at `keyOf(schema)`), sends it, and records `units(schema, before, out)`;
 * a failed condition records `failedUnits(before)` and is rethrown.
 */
async function meterItemWrite<Out>(
  ctx: MeterContext,
  operation: string,
  // biome-ignore lint/suspicious/noExplicitAny: any write command, forwarded unchanged
  command: any,
  tableName: string,
  write: {
    keyOf: (schema: TableSchema) => Item;
    failedUnits: (before: Item | undefined) => number;
    units: (
      schema: TableSchema,
      before: Item | undefined,
      out: Out,
    ) => Promise<Partial<MeterCounters>> | Partial<MeterCounters>;
  },
): Promise<Out> {
  const schema = await ctx.schema(tableName);
  const before = await sideGetItem(ctx.inner, tableName, write.keyOf(schema));
  const out = (await sendConditional(ctx, operation, command, () =>
    write.failedUnits(before),
  )) as Out;
  ctx.record(operation, { requests: 1, ...(await write.units(schema, before, out)) });
  return out;
}

/** Sends a PutItem and records its units. */
export function meterPutItem(ctx: MeterContext, command: PutItemCommand): Promise<unknown> {
  const input = command.input as PutItemCommandInput;
  const after = input.Item!;
  return meterItemWrite(ctx, 'PutItem', command, input.TableName!, {
    keyOf: (schema) => keyOf(after, schema.keyNames),
    failedUnits: (before) => failedConditionalWriteUnits(sizeOf(before), itemSize(after)),
    units: (schema, before) => ({
      writeUnits: putItemWriteUnits(itemSize(after), sizeOf(before)),
      indexWriteUnits: indexUnits(schema, before, after),
      bytesWritten: itemSize(after),
    }),
  });
}

/** Sends an UpdateItem and records its units; the after image comes from ALL_NEW or a side read. */
export function meterUpdateItem(ctx: MeterContext, command: UpdateItemCommand): Promise<unknown> {
  const input = command.input as UpdateItemCommandInput;
  const tableName = input.TableName!;
  return meterItemWrite<UpdateItemCommandOutput>(ctx, 'UpdateItem', command, tableName, {
    keyOf: () => input.Key!,
    failedUnits: (before) => failedConditionalWriteUnits(sizeOf(before)),
    units: async (schema, before, out) => {
      const after =
        input.ReturnValues === 'ALL_NEW' && out.Attributes
          ? out.Attributes
          : await sideGetItem(ctx.inner, tableName, input.Key!);
      const afterSize = sizeOf(after) ?? 0;
      return {
        writeUnits: updateItemWriteUnits(afterSize, sizeOf(before)),
        indexWriteUnits: indexUnits(schema, before, after),
        bytesWritten: afterSize,
      };
    },
  });
}

/** Sends a DeleteItem and records its units. */
export function meterDeleteItem(ctx: MeterContext, command: DeleteItemCommand): Promise<unknown> {
  const input = command.input as DeleteItemCommandInput;
  return meterItemWrite(ctx, 'DeleteItem', command, input.TableName!, {
    keyOf: () => input.Key!,
    failedUnits: (before) => failedConditionalWriteUnits(sizeOf(before)),
    units: (schema, before) => ({
      writeUnits: deleteItemWriteUnits(sizeOf(before)),
      indexWriteUnits: indexUnits(schema, before, undefined),
    }),
  });
}

/** Sends a BatchWriteItem and records the units of the requests it processed. */
export async function meterBatchWriteItem(
  ctx: MeterContext,
  command: BatchWriteItemCommand,
): Promise<unknown> {
  const input = command.input as BatchWriteItemCommandInput;
  const planned: {
    tableName: string;
    schema: TableSchema;
    key: Item;
    put?: Item;
    before?: Item;
  }[] = [];
  for (const [tableName, requests] of Object.entries(input.RequestItems ?? {})) {
    const schema = await ctx.schema(tableName);
    for (const request of requests) {
      const put = request.PutRequest?.Item;
      const key = put ? keyOf(put, schema.keyNames) : request.DeleteRequest!.Key!;
      planned.push({ tableName, schema, key, put, before: undefined });
    }
  }
  for (const p of planned) p.before = await sideGetItem(ctx.inner, p.tableName, p.key);
  const out = (await ctx.inner.send(command)) as BatchWriteItemCommandOutput;
  const unprocessed = new Set<string>();
  for (const [tableName, requests] of Object.entries(out.UnprocessedItems ?? {})) {
    const schema = await ctx.schema(tableName);
    for (const r of requests) {
      const key = r.PutRequest?.Item
        ? keyOf(r.PutRequest.Item, schema.keyNames)
        : r.DeleteRequest!.Key!;
      unprocessed.add(`${tableName}\u0000${canonical(key)}`);
    }
  }
  const counters = { requests: 1, writeUnits: 0, indexWriteUnits: 0, bytesWritten: 0 };
  for (const p of planned) {
    if (unprocessed.has(`${p.tableName}\u0000${canonical(p.key)}`)) continue;
    counters.writeUnits += p.put
      ? putItemWriteUnits(itemSize(p.put), sizeOf(p.before))
      : deleteItemWriteUnits(sizeOf(p.before));
    counters.indexWriteUnits += indexUnits(p.schema, p.before, p.put);
    counters.bytesWritten += p.put ? itemSize(p.put) : 0;
  }
  ctx.record('BatchWriteItem', counters);
  return out;
}

/** Sends a conditional write; a failed condition is recorded with `failedUnits()` and rethrown. */
async function sendConditional(
  ctx: MeterContext,
  operation: string,
  // biome-ignore lint/suspicious/noExplicitAny: any write command, forwarded unchanged
  command: any,
  failedUnits: () => number,
): Promise<unknown> {
  try {
    return await ctx.inner.send(command);
  } catch (error) {
    if ((error as { name?: string }).name === 'ConditionalCheckFailedException') {
      ctx.record(operation, { requests: 1, writeUnits: failedUnits(), failedConditions: 1 });
    }
    throw error;
  }
}

function indexUnits(
  schema: TableSchema,
  before: Item | undefined,
  after: Item | undefined,
): number {
  let units = 0;
  for (const index of schema.indexes) {
    units += indexWriteUnits(before, after, index, schema.keyNames).units;
  }
  return units;
}

function sizeOf(item: Item | undefined): number | undefined {
  return item ? itemSize(item) : undefined;
}
