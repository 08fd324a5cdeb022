import { randomUUID } from 'node:crypto';
import {
  DeleteItemCommand,
  GetItemCommand,
  PutItemCommand,
  TransactWriteItemsCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { type Item, itemSize } from '../../../../bench/cost/billing/item-size.js';
import { MeteredDynamoDB } from '../../../../bench/cost/billing/metered-dynamodb.js';
import { InternalError } from '../../../../lib/errors.js';
import { claimFlush } from '../../../../lib/fence/claim.js';
import { allocateSeq } from '../../../../lib/memtable/allocate.js';
import { deleteBatches } from '../../../../lib/memtable/batch-delete.js';
import { ensureTable } from '../../../../lib/memtable/create-table.js';
import { scanShardRecords } from '../../../../lib/memtable/list-shards.js';
import { clearPending, listPendingShards } from '../../../../lib/memtable/pending-index.js';
import { sealVoid } from '../../../../lib/memtable/seal-void.js';
import {
  batchRange,
  batchSk,
  queryShardItems,
  shardPk,
  shardRecordKey,
  type Table,
} from '../../../../lib/memtable/table.js';
import { useDynalite } from '../../../support/harness.js';

const dynalite = useDynalite();

/** `base` plus a `data` binary attribute sized so the item is exactly `total` bytes. */
function sized(base: Item, total: number): Item {
  const pad = total - itemSize(base) - 'data'.length;
  if (pad < 0) throw new Error(`base item already ${itemSize(base)} bytes`);
  const item = { ...base, data: { B: new Uint8Array(pad) } };
  expect(itemSize(item)).toBe(total);
  return item;
}

function batchItem(shard: string, seq: number, total: number): Item {
  return sized({ pk: { S: shardPk(shard) }, sk: { S: batchSk(seq) }, kind: { S: 'rows' } }, total);
}

let meter: MeteredDynamoDB;
let table: Table;
/** The same table through an unmetered client, for setup and read-backs. */
let raw: Table;

beforeEach(async () => {
  meter = new MeteredDynamoDB(dynalite().client, { label: 'setup' });
  table = { client: meter.client, tableName: `t-${randomUUID()}` };
  raw = { client: dynalite().client, tableName: table.tableName };
  await ensureTable(table);
  meter.label = 'test';
});

const put = (item: Item) =>
  raw.client.send(new PutItemCommand({ TableName: raw.tableName, Item: item }));

describe('MeteredDynamoDB', () => {
  describe('PutItem and DeleteItem', () => {
    it('charges a 2.5 KB put 3 write units and deleting it 3', async () => {
      const item = batchItem('s1', 1, 2560);
      await table.client.send(new PutItemCommand({ TableName: table.tableName, Item: item }));
      expect(meter.totals({ operation: 'PutItem' })).toMatchObject({
        requests: 1,
        writeUnits: 3,
        indexWriteUnits: 0,
        bytesWritten: 2560,
      });
      const key = { pk: item.pk!, sk: item.sk! };
      await table.client.send(new DeleteItemCommand({ TableName: table.tableName, Key: key }));
      expect(meter.totals({ operation: 'DeleteItem' })).toMatchObject({
        requests: 1,
        writeUnits: 3,
        bytesWritten: 0,
      });
    });

    it('charges a put that replaces a larger item by the larger one', async () => {
      await put(batchItem('s1', 1, 4000));
      const small = batchItem('s1', 1, 200);
      await table.client.send(new PutItemCommand({ TableName: table.tableName, Item: small }));
      expect(meter.totals().writeUnits).toBe(4);
    });
  });

  describe('UpdateItem', () => {
    it('charges 2 units when a 900-byte record grows to 1,100 bytes', async () => {
      const before = sized({ pk: { S: shardPk('s1') }, sk: { S: 'meta' } }, 900);
      await put(before);
      await table.client.send(
        new UpdateItemCommand({
          TableName: table.tableName,
          Key: shardRecordKey('s1'),
          UpdateExpression: 'SET note = :n',
          // note (4) + 196 bytes = 200 more
          ExpressionAttributeValues: { ':n': { S: 'n'.repeat(196) } },
        }),
      );
      expect(meter.totals({ operation: 'UpdateItem' })).toMatchObject({
        requests: 1,
        writeUnits: 2,
        bytesWritten: 1100,
      });
    });
  });

  describe('failed conditional writes', () => {
    it('charges a void seal that meets a 1.5 KB batch 2 units and counts the failure', async () => {
      await put(batchItem('s1', 7, 1536));
      expect(await sealVoid(table, 's1', 7, 1)).toBe('present');
      expect(meter.totals({ operation: 'PutItem' })).toMatchObject({
        requests: 1,
        writeUnits: 2,
        failedConditions: 1,
        bytesWritten: 0,
      });
    });

    it('charges one unit when the item a failed condition names does not exist', async () => {
      expect(await claimFlush(table, 'never-written', 'owner', 1, 1000)).toBeUndefined();
      expect(meter.totals({ operation: 'UpdateItem' })).toMatchObject({
        writeUnits: 1,
        failedConditions: 1,
      });
    });

    it('charges a repeat reservation by the size of the stored record', async () => {
      // The shape of the idempotency reservation (lib/memtable/idempotency.ts): a
      // create-if-absent-or-expired PutItem. A repeat meets the completed record,
      // whose stored ack makes it 1.5 KB: the failed put costs 2 units, not 1.
      const key = { pk: { S: 'idem#s1#k1' }, sk: { S: 'idem' } };
      await put(sized({ ...key, state: { S: 'done' }, expiresAtMs: { N: '9000' } }, 1536));
      const reserve = new PutItemCommand({
        TableName: table.tableName,
        Item: { ...key, state: { S: 'pending' }, expiresAtMs: { N: '5000' } },
        ConditionExpression: 'attribute_not_exists(pk) OR expiresAtMs < :now',
        ExpressionAttributeValues: { ':now': { N: '2000' } },
      });
      await expect(table.client.send(reserve)).rejects.toMatchObject({
        name: 'ConditionalCheckFailedException',
      });
      expect(meter.totals({ operation: 'PutItem' })).toMatchObject({
        requests: 1,
        writeUnits: 2,
        failedConditions: 1,
      });
    });
  });

  describe('the pending and registry indexes', () => {
    it('charges the first allocation one write to each sparse index and the next none', async () => {
      const input = {
        shard: 's1',
        bytes: 100,
        nowMs: 1,
        maxBufferedBytes: 1e6,
        retryAfterSeconds: 1,
      };
      await allocateSeq(table, input);
      const first = meter.totals({ operation: 'UpdateItem' });
      // pending entry: pk (2+8) + sk (2+4) + pendingPk (9+7) + pendingShard (12+2) = 46 bytes;
      // the registry entry is as small: one write unit each
      expect(first).toMatchObject({ requests: 1, writeUnits: 1, indexWriteUnits: 2 });
      meter.reset();
      await allocateSeq(table, { ...input, nowMs: 2 });
      expect(meter.totals({ operation: 'UpdateItem' })).toMatchObject({
        requests: 1,
        writeUnits: 1,
        indexWriteUnits: 0,
      });
    });

    it('charges clearing the marker one index delete', async () => {
      const input = {
        shard: 's1',
        bytes: 100,
        nowMs: 1,
        maxBufferedBytes: 1e6,
        retryAfterSeconds: 1,
      };
      await allocateSeq(table, input);
      await raw.client.send(
        new UpdateItemCommand({
          TableName: raw.tableName,
          Key: shardRecordKey('s1'),
          UpdateExpression: 'SET durableSeq = :one',
          ExpressionAttributeValues: { ':one': { N: '1' } },
        }),
      );
      meter.reset();
      expect(await clearPending(table, 's1', 2)).toBe(true);
      expect(meter.totals()).toMatchObject({ writeUnits: 1, indexWriteUnits: 1 });
    });

    it('charges a tick reading the index by entry size, eventually consistent', async () => {
      for (const shard of ['s1', 's2']) {
        await allocateSeq(table, {
          shard,
          bytes: 1,
          nowMs: 1,
          maxBufferedBytes: 1e6,
          retryAfterSeconds: 1,
        });
      }
      meter.reset();
      expect(await listPendingShards(table)).toEqual(['s1', 's2']);
      expect(meter.totals({ operation: 'Query' })).toMatchObject({ requests: 1, readUnits: 0.5 });
    });
  });

  describe('Query and Scan', () => {
    it('charges a strongly consistent Query of 3 items of 1.5 KB 2 units', async () => {
      for (const seq of [1, 2, 3]) await put(batchItem('s1', seq, 1536));
      const items = [];
      for await (const item of queryShardItems(table, 's1', batchRange(1, 3), 'q'))
        items.push(item);
      expect(items).toHaveLength(3);
      expect(meter.totals({ operation: 'Query' })).toMatchObject({ requests: 1, readUnits: 2 });
    });

    it('charges a projected Query by the whole items it read', async () => {
      for (const seq of [1, 2, 3]) await put(batchItem('s1', seq, 3000));
      for await (const _ of queryShardItems(table, 's1', batchRange(1, 3), 'q', 'sk')) {
        // drain
      }
      // 9,000 bytes evaluated: 3 units, though only the sort keys came back
      expect(meter.totals({ operation: 'Query' }).readUnits).toBe(3);
      expect(meter.sideReadMismatches).toBe(0);
    });

    it('charges a filtered Scan by every item it evaluated', async () => {
      await put(sized({ pk: { S: shardPk('s1') }, sk: { S: 'meta' } }, 500));
      for (const seq of [1, 2]) await put(batchItem('s1', seq, 4096));
      const shards = [];
      for await (const record of scanShardRecords(table)) shards.push(record.shard);
      expect(shards).toEqual(['s1']);
      // 500 + 2 × 4,096 bytes evaluated: 8,692 bytes, 3 units strongly consistent
      expect(meter.totals({ operation: 'Scan' })).toMatchObject({ requests: 1, readUnits: 3 });
    });
  });

  describe('GetItem', () => {
    it('charges a projected GetItem by the whole item', async () => {
      await put(batchItem('s1', 1, 5000));
      await table.client.send(
        new GetItemCommand({
          TableName: table.tableName,
          Key: { pk: { S: shardPk('s1') }, sk: { S: batchSk(1) } },
          ConsistentRead: true,
          ProjectionExpression: 'kind',
        }),
      );
      expect(meter.totals({ operation: 'GetItem' })).toMatchObject({ requests: 1, readUnits: 2 });
    });

    it('charges half a unit for an eventually consistent read of a missing item', async () => {
      await table.client.send(
        new GetItemCommand({ TableName: table.tableName, Key: shardRecordKey('nobody') }),
      );
      expect(meter.totals({ operation: 'GetItem' }).readUnits).toBe(0.5);
    });
  });

  describe('BatchWriteItem', () => {
    it('charges each deleted batch item by its own size', async () => {
      for (const seq of [1, 2, 3]) await put(batchItem('s1', seq, 1536));
      await deleteBatches(table, 's1', [batchSk(1), batchSk(2), batchSk(3)]);
      expect(meter.totals({ operation: 'BatchWriteItem' })).toMatchObject({
        requests: 1,
        writeUnits: 6,
      });
    });
  });

  describe('labels', () => {
    it('records requests under the label current when each was sent', async () => {
      meter.label = 'put';
      await table.client.send(
        new PutItemCommand({ TableName: table.tableName, Item: batchItem('s1', 1, 100) }),
      );
      meter.label = 'flush';
      await table.client.send(
        new PutItemCommand({ TableName: table.tableName, Item: batchItem('s1', 2, 100) }),
      );
      await table.client.send(
        new PutItemCommand({ TableName: table.tableName, Item: batchItem('s1', 3, 100) }),
      );
      expect(meter.totals({ label: 'put' }).requests).toBe(1);
      expect(meter.totals({ label: 'flush' }).requests).toBe(2);
    });

    it('records a labelled client under its own label whatever the current one', async () => {
      const exportClient = meter.labelled('export');
      meter.label = 'put';
      await exportClient.send(
        new PutItemCommand({ TableName: table.tableName, Item: batchItem('s1', 1, 100) }),
      );
      expect(meter.rows().map((r) => [r.label, r.operation, r.requests])).toEqual([
        ['export', 'PutItem', 1],
      ]);
    });
  });

  describe('side reads', () => {
    it('counts only the caller requests, never its own reads', async () => {
      await allocateSeq(table, {
        shard: 's1',
        bytes: 1,
        nowMs: 1,
        maxBufferedBytes: 1e6,
        retryAfterSeconds: 1,
      });
      await sealVoid(table, 's1', 1, 1);
      await sealVoid(table, 's1', 1, 1);
      const rows = meter.rows().map((r) => [r.operation, r.requests]);
      expect(rows).toEqual([
        ['PutItem', 2],
        ['UpdateItem', 1],
      ]);
      // and no read units were billed for them
      expect(meter.totals().readUnits).toBe(0);
    });
  });

  describe('unmetered commands', () => {
    it('refuses a data-plane command it has no rule for, before sending it', async () => {
      const command = new TransactWriteItemsCommand({
        TransactItems: [{ Put: { TableName: table.tableName, Item: batchItem('s1', 1, 100) } }],
      });
      await expect(table.client.send(command)).rejects.toThrow(InternalError);
      const out = await raw.client.send(
        new GetItemCommand({
          TableName: raw.tableName,
          Key: { pk: { S: shardPk('s1') }, sk: { S: batchSk(1) } },
        }),
      );
      expect(out.Item).toBeUndefined();
    });
  });

  describe('against dynalite ConsumedCapacity', () => {
    it('agrees on string and binary items for put, update, get and query', async () => {
      const units: number[] = [];
      const mine: number[] = [];
      const consumed = (out: { ConsumedCapacity?: { CapacityUnits?: number } }) =>
        units.push(out.ConsumedCapacity?.CapacityUnits ?? Number.NaN);
      for (const total of [60, 1024, 1025, 3000, 9000]) {
        meter.reset();
        const item = batchItem('x', total, total);
        consumed(
          await table.client.send(
            new PutItemCommand({
              TableName: table.tableName,
              Item: item,
              ReturnConsumedCapacity: 'TOTAL',
            }),
          ),
        );
        consumed(
          await table.client.send(
            new UpdateItemCommand({
              TableName: table.tableName,
              Key: { pk: item.pk!, sk: item.sk! },
              UpdateExpression: 'SET tag = :t',
              ExpressionAttributeValues: { ':t': { S: 't'.repeat(700) } },
              ReturnConsumedCapacity: 'TOTAL',
            }),
          ),
        );
        consumed(
          await table.client.send(
            new GetItemCommand({
              TableName: table.tableName,
              Key: { pk: item.pk!, sk: item.sk! },
              ConsistentRead: true,
              ReturnConsumedCapacity: 'TOTAL',
            }),
          ),
        );
        const t = meter.totals();
        mine.push(meter.totals({ operation: 'PutItem' }).writeUnits);
        mine.push(meter.totals({ operation: 'UpdateItem' }).writeUnits);
        mine.push(t.readUnits);
      }
      expect(mine).toEqual(units);
    });
  });
});
